/**
 * The event catalog: every name a webhook endpoint can subscribe to (GET /v1/webhook-events, the OpenAPI document's
 * webhooks, endpoint validation), built by the composition root from what each resource module declares it sends
 * and when (ResourceModule.events). The platform owns only what no module can say: the published order, and the
 * names service.md lists that nothing sends yet.
 *
 * `webhook.test`, the ping sent by POST /webhooks/{id}/test (docs/api.md#resend-and-test-ping), is deliberately absent:
 * it goes only to the endpoint being tested, whatever that endpoint subscribes to, so subscribing to it would mean
 * nothing.
 */
import type { CatalogEvent, EventCatalog, EventPayload } from '../core/types.js';

export type { CatalogEvent, EventCatalog } from '../core/types.js';

/**
 * service.md's "Event names" in its order, each asterisk family written out as created, updated and deleted; then the
 * names beyond it published since, where they have always been listed (bulk jobs' events, docs/api.md#import-jobs,
 * #export-jobs), so that a new module's names never reorder the published ones. A name declared by a module and not
 * here follows, in module order.
 */
const PUBLISHED_ORDER: readonly string[] = [
  'customer.updated',
  'customer.deleted',
  'order.updated',
  'order.deleted',
  'product.updated',
  'product.deleted',
  'productVariant.updated',
  'site.created',
  'site.updated',
  'site.deleted',
  'customerTag.created',
  'customerTag.updated',
  'customerTag.deleted',
  'orderTag.created',
  'orderTag.updated',
  'orderTag.deleted',
  'productTag.created',
  'productTag.updated',
  'productTag.deleted',
  'review.created',
  'review.updated',
  'review.deleted',
  'productQuestion.created',
  'productQuestion.updated',
  'productQuestion.deleted',
  'productQuestionAnswer.created',
  'productQuestionAnswer.updated',
  'productQuestionAnswer.deleted',
  'surveyFlow.created',
  'surveyFlow.updated',
  'surveyFlow.deleted',
  'survey.deleted',
  'loyaltyMembership.created',
  'loyaltyMembership.tierChanged',
  'loyaltyMembership.deleted',
  'loyaltyTransaction.created',
  'loyaltyReward.issued',
  'loyaltyReward.redeemed',
  'loyaltyReward.revoked',
  'loyaltyReward.expired',
  'loyaltyReward.expiringSoon',
  'loyaltyPoints.expiringSoon',
  'stampCard.created',
  'stampCard.updated',
  'stampCard.completed',
  'referral.updated',
  'loyaltyProgram.created',
  'loyaltyProgram.updated',
  'loyaltyProgram.deleted',
  'loyaltyRule.created',
  'loyaltyRule.updated',
  'loyaltyRule.deleted',
  'loyaltyTier.created',
  'loyaltyTier.updated',
  'loyaltyTier.deleted',
  'wishlist.created',
  'wishlist.updated',
  'wishlist.deleted',
  'emailTemplate.created',
  'emailTemplate.updated',
  'emailTemplate.deleted',
  'quickFilter.created',
  'quickFilter.updated',
  'quickFilter.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  // Beyond service.md's table.
  'importJob.completed',
  'exportJob.completed',
];

/**
 * The names service.md lists for records this API does not hold yet, with service.md's words for when they are sent:
 * a subscription to one is accepted and receives nothing until they exist (docs/api.md#event-catalog). None today.
 */
const NOT_FIRING: Readonly<Record<string, string>> = {};

/** The modules' declarations, by name: what sends each. Throws on one name given two different sentences. */
function firesWhenByName(declared: readonly EventPayload[]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const { names, firesWhen } of declared) {
    for (const name of names) {
      const sentence = typeof firesWhen === 'string' ? firesWhen : firesWhen[name];
      if (sentence === undefined) throw new Error(`${name} is declared without saying when it is sent (firesWhen)`);
      const known = byName.get(name);
      if (known !== undefined && known !== sentence)
        throw new Error(`${name} is declared with two firesWhen sentences`);
      if (name in NOT_FIRING)
        throw new Error(`${name} is marked not firing in the event catalog, but a module sends it`);
      byName.set(name, sentence);
    }
  }
  return byName;
}

/**
 * The catalog of the given modules' events: service.md's names first in its order, those nothing sends yet among them,
 * then the names beyond it. An app of a few modules (a test's) gets the catalog of those modules.
 */
export function eventCatalogOf(declared: readonly EventPayload[]): EventCatalog {
  const sent = firesWhenByName(declared);
  const ordered = [...PUBLISHED_ORDER, ...sent.keys()].filter((name, index, all) => all.indexOf(name) === index);
  const events: readonly CatalogEvent[] = Object.freeze(
    ordered.flatMap((name): CatalogEvent[] => {
      const firesWhen = sent.get(name);
      if (firesWhen !== undefined) return [Object.freeze({ name, firesWhen, firing: true })];
      const notYet = NOT_FIRING[name];
      return notYet === undefined ? [] : [Object.freeze({ name, firesWhen: notYet, firing: false })];
    }),
  );
  const known: ReadonlySet<string> = new Set(events.map((event) => event.name));
  return { events, isKnown: (name) => known.has(name) };
}

/** service.md's names that neither a module sends nor the catalog marks as not firing: the composed app has none. */
export function unsentSpecNames(catalog: EventCatalog): string[] {
  return PUBLISHED_ORDER.filter((name) => !catalog.isKnown(name));
}
