/**
 * The event names a webhook endpoint can subscribe to: service.md "Event names", with each asterisk family written
 * out as created, updated and deleted. Platform-level on purpose (no resource imports), so endpoint validation and
 * GET /v1/webhook-events need nothing but this list.
 *
 * `webhook.test`, the ping sent by POST /webhooks/{id}/test (docs/api.md#resend-and-test-ping), is deliberately absent:
 * it goes only to the endpoint being tested, whatever that endpoint subscribes to, so subscribing to it would mean
 * nothing.
 */
export interface CatalogEvent {
  name: string;
  firesWhen: string;
}

const CRUD = ['created', 'updated', 'deleted'] as const;

/** One row of service.md's table: its names (families as `resource.*`) and its "fires when" text. */
const rows: readonly (readonly [readonly string[], string])[] = [
  [['customer.updated', 'customer.deleted'], 'A customer record changes.'],
  [['order.updated', 'order.deleted'], 'An order changes (PATCH or DELETE on the order).'],
  [
    ['product.updated', 'product.deleted', 'productVariant.updated'],
    'A product or variant changes (PATCH or DELETE on it).',
  ],
  [['site.created', 'site.updated', 'site.deleted'], 'A site changes.'],
  [['customerTag.*', 'orderTag.*', 'productTag.*'], 'Tag changes.'],
  [['review.created'], 'A review arrives, published or not.'],
  [['review.updated'], 'A review is edited or its published state changes.'],
  [['review.deleted'], 'A review is deleted.'],
  [['productQuestion.created'], 'A question is asked, or recorded by the merchant.'],
  [['productQuestion.updated'], 'A question is published, rejected or edited.'],
  [['productQuestion.deleted'], 'A question is deleted, with its answers.'],
  [['productQuestionAnswer.created'], 'An answer is written, by the merchant or a shopper.'],
  [['productQuestionAnswer.updated'], 'An answer is edited, published or hidden.'],
  [['productQuestionAnswer.deleted'], 'An answer is deleted.'],
  [['surveyFlow.created', 'surveyFlow.updated', 'surveyFlow.deleted'], 'A survey flow changes.'],
  [['survey.deleted'], 'A sent survey is deleted.'],
  [['loyaltyMembership.created'], 'A customer joins a program.'],
  [['loyaltyMembership.tierChanged'], 'A member moves between tiers.'],
  [['loyaltyMembership.deleted'], 'A membership is removed.'],
  [['loyaltyTransaction.created'], 'Points are earned, spent, adjusted or expired.'],
  [['loyaltyReward.issued'], 'A member claims a reward and gets a code; also sent by POST /loyalty-rewards.'],
  [['loyaltyReward.redeemed'], 'A code is used.'],
  [['loyaltyReward.revoked', 'loyaltyReward.expired'], 'A reward stops being usable.'],
  [
    ['loyaltyReward.expiringSoon', 'loyaltyPoints.expiringSoon'],
    "A reward or a balance is about to expire. Produced by an overnight job on the organization's schedule, not by a customer action.",
  ],
  [['stampCard.created', 'stampCard.updated', 'stampCard.completed'], 'A stamp card is started, stamped or filled.'],
  [['referral.updated'], 'A referral is created or attributed.'],
  [['loyaltyProgram.*', 'loyaltyRule.*', 'loyaltyTier.*'], 'Configuration changes.'],
  [
    ['wishlist.created', 'wishlist.updated', 'wishlist.deleted'],
    'A wishlist changes. There are no item-level events: adding, removing or editing an item sends wishlist.updated for its list.',
  ],
  [['emailTemplate.*', 'quickFilter.*'], 'Configuration changes.'],
  [['webhook.*'], 'Configuration changes: a webhook endpoint is created, updated or deleted through /webhooks.'],
];

const expand = (name: string): string[] =>
  name.endsWith('.*') ? CRUD.map((action) => `${name.slice(0, -1)}${action}`) : [name];

/** Every subscribable event, in service.md's order. */
export const EVENT_CATALOG: readonly CatalogEvent[] = Object.freeze(
  rows.flatMap(([names, firesWhen]) => names.flatMap(expand).map((name) => Object.freeze({ name, firesWhen }))),
);

const known: ReadonlySet<string> = new Set(EVENT_CATALOG.map((event) => event.name));

/** Exact, case-sensitive match: service.md "Subscriptions use the exact event name strings". */
export const isKnownEventName = (name: string): boolean => known.has(name);
