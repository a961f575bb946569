import { sql, type Kysely } from 'kysely';

/** Record kinds a path parameter or a body field can name. */
export type Kind =
  | 'products'
  | 'variants'
  | 'sites'
  | 'customers'
  | 'orders'
  | 'productTags'
  | 'orderTags'
  | 'customerTags'
  | 'webhooks'
  | 'deliveries'
  | 'rewards'
  | 'programs'
  | 'tiers'
  | 'rules'
  | 'memberships'
  | 'transactions'
  | 'reviews'
  | 'wishlists'
  | 'wishlistItems'
  | 'productQuestions'
  | 'productQuestionAnswers'
  | 'users'
  | 'apiKeys';

/** Real values of one organization, read from its tables before each operation is fuzzed. */
export interface OrganizationPool {
  ids: Record<Kind, string[]>;
  /** [productId, variantId], [webhookId, deliveryId], [wishlistId, itemId]: nested path parameters that belong together. */
  variantPairs: [string, string][];
  deliveryPairs: [string, string][];
  wishlistItemPairs: [string, string][];
  siteRefs: string[];
  customerRefs: string[];
  productRefs: string[];
  variantSlugs: string[];
  rewardCodes: string[];
  referralCodes: string[];
  emails: string[];
}

const SELECTS: Record<Kind, string> = {
  products: `select id from products where organization_id = $1`,
  variants: `select id from product_variants where organization_id = $1`,
  sites: `select id from sites where organization_id = $1`,
  customers: `select id from customers where organization_id = $1`,
  orders: `select id from orders where organization_id = $1`,
  productTags: `select id from tags where organization_id = $1 and kind = 'product'`,
  orderTags: `select id from tags where organization_id = $1 and kind = 'order'`,
  customerTags: `select id from tags where organization_id = $1 and kind = 'customer'`,
  webhooks: `select id from webhook_endpoints where organization_id = $1`,
  deliveries: `select id from webhook_deliveries where organization_id = $1`,
  rewards: `select id from loyalty_rewards where organization_id = $1`,
  programs: `select id from loyalty_programs where organization_id = $1`,
  tiers: `select id from loyalty_tiers where organization_id = $1`,
  rules: `select id from loyalty_rules where organization_id = $1 and deleted_at is null`,
  memberships: `select id from loyalty_memberships where organization_id = $1`,
  transactions: `select id from loyalty_transactions where organization_id = $1`,
  reviews: `select id from reviews where organization_id = $1`,
  wishlists: `select id from wishlists where organization_id = $1`,
  wishlistItems: `select id from wishlist_items where organization_id = $1`,
  productQuestions: `select id from product_questions where organization_id = $1`,
  productQuestionAnswers: `select id from product_question_answers where organization_id = $1`,
  // Never the fuzzer's own signed-in owner, nor its own keys: only users and keys made to be changed.
  users: `select id from users where organization_id = $1 and email not like 'fuzz-owner%'`,
  apiKeys: `select id from api_keys where organization_id = $1 and name like 'spare%'`,
};

async function column(db: Kysely<any>, statement: string, organizationId: string): Promise<string[]> {
  // Ordered and capped: the same database state gives the same pool, so a seed replays the same choices.
  const result = await sql
    .raw<Record<string, unknown>>(`${statement.replace('$1', `'${organizationId}'`)} order by 1 limit 40`)
    .execute(db);
  return result.rows.map((row) => String(Object.values(row)[0]));
}

export async function readPool(db: Kysely<any>, organizationId: string): Promise<OrganizationPool> {
  const ids = {} as Record<Kind, string[]>;
  for (const [kind, statement] of Object.entries(SELECTS) as [Kind, string][])
    ids[kind] = await column(db, statement, organizationId);
  const pairs = async (statement: string) =>
    (await column(db, statement, organizationId)).map((text) => text.split(' ') as [string, string]);
  return {
    ids,
    variantPairs: await pairs(`select product_id || ' ' || id from product_variants where organization_id = $1`),
    deliveryPairs: await pairs(`select webhook_id || ' ' || id from webhook_deliveries where organization_id = $1`),
    wishlistItemPairs: await pairs(`select wishlist_id || ' ' || id from wishlist_items where organization_id = $1`),
    siteRefs: [
      ...(await column(db, `select domain from sites where organization_id = $1`, organizationId)),
      ...ids.sites,
    ],
    customerRefs: [
      ...(await column(db, `select email from customers where organization_id = $1`, organizationId)),
      ...ids.customers.slice(0, 5),
    ],
    productRefs: [
      ...(await column(db, `select slug from products where organization_id = $1`, organizationId)),
      ...ids.products.slice(0, 5),
    ],
    variantSlugs: await column(
      db,
      `select distinct slug from product_variants where organization_id = $1`,
      organizationId,
    ),
    rewardCodes: await column(
      db,
      `select code from loyalty_rewards where organization_id = $1 and code is not null`,
      organizationId,
    ),
    referralCodes: await column(
      db,
      `select referral_code from loyalty_memberships where organization_id = $1`,
      organizationId,
    ),
    emails: await column(db, `select email from customers where organization_id = $1`, organizationId),
  };
}

/** The kind a path parameter names, from the collection segment before it (e.g. /loyalty-tiers/{id} → tiers). */
export function kindOfPathParameter(path: string, name: string): Kind | undefined {
  const segments = path.split('/');
  const index = segments.indexOf(`{${name}}`);
  const collection = segments[index - 1];
  const parent = segments[index - 3];
  if (collection === 'events' && parent === 'webhooks') return 'deliveries';
  if (collection === 'items' && parent === 'wishlists') return 'wishlistItems';
  return COLLECTIONS[collection ?? ''];
}

const COLLECTIONS: Record<string, Kind> = {
  products: 'products',
  variants: 'variants',
  sites: 'sites',
  customers: 'customers',
  orders: 'orders',
  'product-tags': 'productTags',
  'order-tags': 'orderTags',
  'customer-tags': 'customerTags',
  webhooks: 'webhooks',
  'loyalty-rewards': 'rewards',
  'loyalty-programs': 'programs',
  'loyalty-tiers': 'tiers',
  'loyalty-rules': 'rules',
  'loyalty-memberships': 'memberships',
  reviews: 'reviews',
  wishlists: 'wishlists',
  'product-questions': 'productQuestions',
  'product-question-answers': 'productQuestionAnswers',
  users: 'users',
  keys: 'apiKeys',
};

/** The kind a body field of uuid format names, from its name (customerId → customers). */
export function kindOfField(name: string): Kind | undefined {
  return FIELD_KINDS[name];
}

const FIELD_KINDS: Record<string, Kind> = {
  customerId: 'customers',
  productId: 'products',
  productVariantId: 'variants',
  orderId: 'orders',
  siteId: 'sites',
  webhookId: 'webhooks',
  loyaltyMembershipId: 'memberships',
  loyaltyProgramId: 'programs',
  loyaltyTierId: 'tiers',
  loyaltyRuleId: 'rules',
  stampCardRuleId: 'rules',
  loyaltyRewardId: 'rewards',
  loyaltyTransactionId: 'transactions',
  reviewId: 'reviews',
  questionId: 'productQuestions',
};
