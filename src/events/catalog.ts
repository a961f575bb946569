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
  /** What sends it: the operations and jobs of this API, or, for a name nothing sends yet, service.md's words. */
  firesWhen: string;
  /**
   * False for a name service.md lists for records this API does not hold yet (questions, wishlists, quick filters,
   * surveys): a subscription to it is accepted and receives nothing until they exist
   * (docs/api.md#event-catalog).
   */
  firing: boolean;
}

const CRUD = ['created', 'updated', 'deleted'] as const;

/**
 * One entry per name of service.md's table, in its order (families as `resource.*`, one sentence for all three), each
 * naming what sends it here. Checked against every place that records events (the recordEvents calls of src/resources
 * and src/resource-kit); `firing: false` marks the names nothing sends yet.
 */
const rows: readonly (readonly [readonly string[], string, boolean?])[] = [
  [
    ['customer.updated'],
    'PATCH /customers/{id}, and each customer that POST /customers/import creates or changes or PATCH /customers/bulk-update changes.',
  ],
  [['customer.deleted'], 'DELETE /customers/{id}.'],
  [
    ['order.updated'],
    'PATCH /orders/{id}, and each order that POST /orders/import creates or changes or PATCH /orders/bulk-update changes.',
  ],
  [['order.deleted'], 'DELETE /orders/{id}.'],
  [
    ['product.updated'],
    'PATCH /products/{id}, and each product that POST /products/import creates or changes (its variants, site links or tags included) or PATCH /products/bulk-update changes.',
  ],
  [['product.deleted'], 'DELETE /products/{id}.'],
  [['productVariant.updated'], 'PATCH /products/{productId}/variants/{variantId}.'],
  [['site.created'], 'POST /sites.'],
  [['site.updated'], 'PATCH /sites/{id}.'],
  [['site.deleted'], 'DELETE /sites/{id}.'],
  [
    ['customerTag.*', 'orderTag.*', 'productTag.*'],
    'created: a write names a tag that does not exist yet (PATCH, import or bulk-update of customers, orders or products); updated: PATCH on the tag (a rename); deleted: DELETE on the tag.',
  ],
  [['review.created'], 'A review arrives, published or not: each new review of POST /reviews/import.'],
  [
    ['review.updated'],
    'PATCH /reviews/{id}, each review that POST /reviews/import or PATCH /reviews/bulk-update changes, and each review DELETE /products/{id} unlinks and unpublishes.',
  ],
  [
    ['review.deleted'],
    'DELETE /reviews/{id}, and each review of a customer DELETE /customers/{id} removes or of a product DELETE /products/{id} removes while cascadeDeleteReviews is on.',
  ],
  [
    ['productQuestion.created'],
    'POST /product-questions (a question the merchant records), and each question POST /product-questions/import creates (asked by a shopper, published or not).',
  ],
  [
    ['productQuestion.updated'],
    'PATCH /product-questions/{id} (published, rejected or edited), and each question that POST /product-questions/import or PATCH /product-questions/bulk-update changes, or DELETE /products/{id} unlinks.',
  ],
  [
    ['productQuestion.deleted'],
    'DELETE /product-questions/{id}, each question of a customer DELETE /customers/{id} removes, and of a product DELETE /products/{id} removes while cascadeDeleteReviews is on; the data carries its answers, which send no events of their own.',
  ],
  [
    ['productQuestionAnswer.created'],
    'POST /product-questions/{id}/answers, and each answer POST /product-questions/import adds.',
  ],
  [
    ['productQuestionAnswer.updated'],
    'PATCH /product-question-answers/{id} (edited, published or hidden), and each answer POST /product-questions/import changes.',
  ],
  [
    ['productQuestionAnswer.deleted'],
    'DELETE /product-question-answers/{id}, and each answer POST /product-questions/import leaves out of a row that sends answers.',
  ],
  [['surveyFlow.*'], 'POST, PATCH and DELETE on /survey-flows.'],
  [
    ['survey.deleted'],
    'DELETE /surveys/{id}, and each survey of a flow DELETE /survey-flows/{id} removes or of an order DELETE /orders/{id} removes, whatever its status.',
  ],
  [
    ['loyaltyMembership.created'],
    'POST /loyalty-memberships (a customer joins or rejoins a program), and each membership POST /loyalty-memberships/import creates.',
  ],
  [
    ['loyaltyMembership.tierChanged'],
    'A member moves between tiers: PATCH /loyalty-memberships/{id} (pinning), points that move a member up (earning, adjustments, imports), tier creation or changes that move members, membership import, and the overnight tier review.',
  ],
  [
    ['loyaltyMembership.deleted'],
    'DELETE /loyalty-memberships/{id}, and each membership of a customer DELETE /customers/{id} removes (leaving a program sends none).',
  ],
  [
    ['loyaltyTransaction.created'],
    'Each ledger entry: points earned (POST /loyalty-events, order import, POST /loyalty-history), spent (a claim), adjusted (POST /loyalty-memberships/{id}/points-adjustments, a balance set by POST /loyalty-memberships/import) or expired (POST /loyalty-activity/bulk-expire, the overnight job).',
  ],
  [
    ['loyaltyReward.issued'],
    'POST /loyalty-rewards, POST /loyalty-memberships/{id}/claim, and a rule that grants a reward (a full stamp card, a reward offer on order import).',
  ],
  [
    ['loyaltyReward.redeemed'],
    'POST /loyalty-rewards/redeem, and a reward code on an order that POST /orders/import imports.',
  ],
  [['loyaltyReward.revoked'], 'POST /loyalty-rewards/{id}/revoke.'],
  [['loyaltyReward.expired'], 'The overnight loyalty job, for pending rewards whose expiresAt has passed.'],
  [
    ['loyaltyReward.expiringSoon', 'loyaltyPoints.expiringSoon'],
    "The overnight loyalty job (03:00 on the organization's clock), once per reward or credit expiring within expiringSoonDays; never a customer action.",
  ],
  [['stampCard.created'], 'The first stamp of a card: POST /loyalty-stamps, or a stamp earned on order import.'],
  [['stampCard.updated'], 'Each stamp: POST /loyalty-stamps, or a stamp earned on order import.'],
  [['stampCard.completed'], 'The stamp that fills a card (sent after its stampCard.updated).'],
  [
    ['referral.updated'],
    "A referral is created or attributed: POST /loyalty-events with a referral, or the referred customer's first order on import.",
  ],
  [['loyaltyProgram.*'], 'POST, PATCH and DELETE on /loyalty-programs.'],
  [['loyaltyRule.*'], 'POST, PATCH and DELETE on /loyalty-rules.'],
  [['loyaltyTier.*'], 'POST, PATCH and DELETE on /loyalty-tiers.'],
  [
    ['wishlist.created', 'wishlist.updated', 'wishlist.deleted'],
    'A wishlist changes. There are no item-level events: adding, removing or editing an item sends wishlist.updated for its list.',
  ],
  [['emailTemplate.*'], 'POST, PATCH and DELETE on /email-templates.'],
  [['quickFilter.*'], 'POST, PATCH and DELETE on /quick-filters.'],
  [
    ['webhook.*'],
    'POST /webhooks (created), PUT /webhooks/{id} and POST /webhooks/{id}/rotate-secret (updated), DELETE /webhooks/{id} (deleted).',
  ],
  // Bulk job events, beyond service.md's table (docs/api.md#import-jobs, #export-jobs), with the job as data.
  [
    ['importJob.completed'],
    'An import job started by POST /import-jobs has succeeded or failed (not when cancelled), with the job and its counts as data.',
  ],
  [
    ['exportJob.completed'],
    'An export job started by POST /export-jobs has succeeded (its file can be downloaded) or failed, with the job as data.',
  ],
];

const expand = (name: string): string[] =>
  name.endsWith('.*') ? CRUD.map((action) => `${name.slice(0, -1)}${action}`) : [name];

/** Every subscribable event, in service.md's order. */
export const EVENT_CATALOG: readonly CatalogEvent[] = Object.freeze(
  rows.flatMap(([names, firesWhen, firing = true]) =>
    names.flatMap(expand).map((name) => Object.freeze({ name, firesWhen, firing })),
  ),
);

const known: ReadonlySet<string> = new Set(EVENT_CATALOG.map((event) => event.name));

/** Exact, case-sensitive match: service.md "Subscriptions use the exact event name strings". */
export const isKnownEventName = (name: string): boolean => known.has(name);
