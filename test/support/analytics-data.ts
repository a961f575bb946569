/**
 * Generated data for the analytics tests: every resource analytics aggregates, with times gathered around the DST
 * changes of America/New_York, Europe/Berlin and Australia/Lord_Howe (a 30-minute change), the year end in each test
 * zone (Asia/Kolkata included, +05:30) and spread over fourteen months. Written straight into the tables, and
 * returned as plain records (API field names) for the reference implementation (test/support/analytics-reference.ts).
 */
import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { DB } from '../../src/db/schema.js';
import type { RefRecord } from './analytics-reference.js';

/** Deterministic randomness, so a failure can be replayed (mulberry32). */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  /** A skewed pick: earlier values are more likely, so rankings have clear leaders and a tail for Other. */
  const skewed = <T>(values: readonly T[]): T => values[Math.floor(next() ** 2 * values.length)]!;
  return { next, int, pick, skewed, chance: (p: number) => next() < p };
}
export type Random = ReturnType<typeof random>;

const HOUR = 3_600_000;

/** Instants around which times gather: each zone's DST changes in 2024 and every test zone's year end. */
export const ANCHORS = {
  newYorkSpring: Date.parse('2024-03-10T07:00:00Z'), // 02:00 EST → 03:00 EDT
  newYorkFall: Date.parse('2024-11-03T06:00:00Z'), // 02:00 EDT → 01:00 EST
  berlinSpring: Date.parse('2024-03-31T01:00:00Z'), // 02:00 CET → 03:00 CEST
  berlinFall: Date.parse('2024-10-27T01:00:00Z'), // 03:00 CEST → 02:00 CET
  lordHoweFall: Date.parse('2024-04-06T15:00:00Z'), // 02:00 +11 → 01:30 +10:30
  lordHoweSpring: Date.parse('2024-10-05T15:30:00Z'), // 02:00 +10:30 → 02:30 +11
  yearEndKolkata: Date.parse('2024-12-31T18:30:00Z'),
  yearEndBerlin: Date.parse('2024-12-31T23:00:00Z'),
  yearEndNewYork: Date.parse('2025-01-01T05:00:00Z'),
  yearEndLordHowe: Date.parse('2024-12-31T13:00:00Z'),
};
const SPREAD = { from: Date.parse('2023-12-20T00:00:00Z'), to: Date.parse('2025-02-10T00:00:00Z') };

/** A time: mostly within 40 hours of an anchor (some exactly on it or a millisecond away), the rest anywhere. */
export function someTime(rng: Random): number {
  const anchors = Object.values(ANCHORS);
  const roll = rng.next();
  if (roll < 0.08) return rng.pick(anchors) + rng.pick([0, -1, 1, 30 * 60_000, -30 * 60_000, HOUR]);
  if (roll < 0.7) return rng.pick(anchors) + Math.round(((rng.next() * 2 - 1) * 40 * HOUR) / 1000) * 1000;
  return SPREAD.from + Math.floor(rng.next() * (SPREAD.to - SPREAD.from));
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'AUD', 'CAD', 'SEK'] as const;
export const COUNTRIES = ['DE', 'US', 'FR', 'AU', 'IN', 'GB', null] as const;
export const ORDER_TAGS = ['vip', 'gift', 'wholesale', 'repeat', 'promo', 'b2b'] as const;
export const QUESTIONS = ['Fit', 'Quality', 'Value', 'Comfort', 'Delivery'] as const;

export interface GeneratedData {
  orders: RefRecord[];
  customers: RefRecord[];
  products: RefRecord[];
  reviews: RefRecord[];
  reviewAnswers: RefRecord[];
  members: RefRecord[];
  activity: RefRecord[];
  rewards: RefRecord[];
}

export interface DataSize {
  customers: number;
  products: number;
  orders: number;
  reviews: number;
  members: number;
  activity: number;
  rewards: number;
}

export const FULL_SIZE: DataSize = {
  customers: 90,
  products: 40,
  orders: 700,
  reviews: 360,
  members: 70,
  activity: 420,
  rewards: 300,
};

/** Inserts one organization's data and returns it as the reference sees it. */
export async function generateData(
  db: Kysely<DB>,
  organizationId: string,
  seed: number,
  size: DataSize = FULL_SIZE,
  timeOf: (rng: Random) => number = someTime,
): Promise<GeneratedData> {
  const rng = random(seed);
  const someTime = timeOf;
  const org = organizationId;
  const program = await db
    .selectFrom('loyalty_programs')
    .select('id')
    .where('organization_id', '=', org)
    .executeTakeFirstOrThrow();

  // Tags of every kind.
  const tagIds = new Map<string, string>();
  const tagRows: Record<string, unknown>[] = [];
  for (const kind of ['customer', 'order', 'product'] as const) {
    for (const name of ORDER_TAGS) {
      const id = uuidv7();
      tagIds.set(`${kind}:${name}`, id);
      tagRows.push({ organization_id: org, id, kind, name });
    }
  }
  const someTags = () => [
    ...new Set(Array.from({ length: rng.skewed([0, 0, 1, 1, 1, 2, 3]) }, () => rng.skewed(ORDER_TAGS))),
  ];

  const site = uuidv7();
  await db
    .insertInto('sites')
    .values({
      organization_id: org,
      id: site,
      name: 'Shop',
      domain: `shop-${seed}.example`,
      platform: 'test',
      currency_code: 'EUR',
    })
    .execute();

  // Customers
  const customers: RefRecord[] = [];
  const customerRows: Record<string, unknown>[] = [];
  const customerTags: Record<string, unknown>[] = [];
  for (let i = 0; i < size.customers; i++) {
    const id = uuidv7();
    const createdAt = someTime(rng);
    const optedOut = rng.chance(0.3);
    const optOutAt = optedOut ? createdAt + rng.int(0, 200) * HOUR : null;
    const source = optedOut ? rng.pick(['customer', 'merchant', 'import', 'platform']) : null;
    const country = rng.skewed(COUNTRIES);
    const metadata: Record<string, string> = rng.chance(0.6)
      ? { segment: rng.skewed(['retail', 'trade', 'staff']) }
      : {};
    const tags = someTags();
    customerRows.push({
      organization_id: org,
      id,
      email: `c${seed}-${i}@example.com`,
      country,
      email_opt_out: optedOut,
      email_opt_out_at: iso(optOutAt),
      email_opt_out_source: source,
      metadata,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + HOUR),
    });
    for (const tag of tags)
      customerTags.push({ organization_id: org, customer_id: id, tag_id: tagIds.get(`customer:${tag}`) });
    customers.push({
      id,
      createdAt,
      updatedAt: createdAt + HOUR,
      emailOptOutAt: optOutAt,
      emailOptOut: optedOut,
      emailOptOutSource: source,
      country,
      'tags.name': tags,
      metadata,
    });
  }
  const countryOf = new Map(customers.map((customer) => [customer.id as string, customer.country]));

  // Products and variants
  const products: RefRecord[] = [];
  const productRows: Record<string, unknown>[] = [];
  const variantRows: Record<string, unknown>[] = [];
  const productTags: Record<string, unknown>[] = [];
  const variantsOf = new Map<string, string[]>();
  for (let i = 0; i < size.products; i++) {
    const id = uuidv7();
    const createdAt = someTime(rng);
    const currencies = [...new Set(Array.from({ length: rng.int(0, 2) }, () => rng.skewed(CURRENCIES)))];
    const variants: string[] = [];
    currencies.forEach((currency, n) => {
      const variant = uuidv7();
      variants.push(variant);
      variantRows.push({
        organization_id: org,
        id: variant,
        product_id: id,
        slug: `v${n}`,
        currency_code: currency,
        price_cents: 1000,
      });
    });
    variantsOf.set(id, variants);
    const tags = someTags();
    for (const tag of tags)
      productTags.push({ organization_id: org, product_id: id, tag_id: tagIds.get(`product:${tag}`) });
    const metadata: Record<string, string> = rng.chance(0.5)
      ? { brand: rng.skewed(['acme', 'globex', 'initech']) }
      : {};
    productRows.push({
      organization_id: org,
      id,
      slug: `p${i}`,
      title: `Product ${i}`,
      metadata,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + 2 * HOUR),
    });
    products.push({
      id,
      createdAt,
      updatedAt: createdAt + 2 * HOUR,
      'variants.currencyCode': currencies,
      'tags.name': tags,
      metadata,
      reviewed: false,
    });
  }
  const sellable = products.filter((product) => (variantsOf.get(product.id as string) ?? []).length > 0);

  // Orders
  const orders: RefRecord[] = [];
  const orderRows: Record<string, unknown>[] = [];
  const orderTags: Record<string, unknown>[] = [];
  const itemRows: Record<string, unknown>[] = [];
  for (let i = 0; i < size.orders; i++) {
    const id = uuidv7();
    const createdAt = someTime(rng);
    const customer = rng.skewed(customers);
    const total = rng.int(0, 5) === 0 ? 0 : rng.int(100, 250_000);
    const shippedAt = rng.chance(0.6) ? createdAt + rng.int(1, 96) * HOUR + rng.int(0, 59) * 60_000 : null;
    const cancelledAt = rng.chance(0.1) ? createdAt + rng.int(1, 5) * HOUR : null;
    const currency = rng.skewed(CURRENCIES);
    const metadata: Record<string, string> = rng.chance(0.7)
      ? { channel: rng.skewed(['web', 'pos', 'app', 'phone']) }
      : {};
    const tags = someTags();
    for (const tag of tags) orderTags.push({ organization_id: org, order_id: id, tag_id: tagIds.get(`order:${tag}`) });
    const productIds: string[] = [];
    const itemCount = sellable.length ? rng.skewed([1, 1, 2, 3, 0]) : 0;
    for (let n = 0; n < itemCount; n++) {
      const product = rng.skewed(sellable);
      const variant = rng.pick(variantsOf.get(product.id as string)!);
      productIds.push(product.id as string);
      itemRows.push({
        organization_id: org,
        id: uuidv7(),
        order_id: id,
        product_id: product.id,
        product_variant_id: variant,
        quantity: 1,
        unit_price_cents: 100,
        position: n,
      });
    }
    orderRows.push({
      organization_id: org,
      id,
      site_id: site,
      customer_id: customer.id,
      remote_id: `r${i}`,
      number: `#${i}`,
      total_cents: total,
      currency_code: currency,
      shipped_at: iso(shippedAt),
      cancelled_at: iso(cancelledAt),
      metadata,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + 3 * HOUR),
    });
    orders.push({
      id,
      createdAt,
      updatedAt: createdAt + 3 * HOUR,
      shippedAt,
      deliveredAt: null,
      cancelledAt,
      currencyCode: currency,
      siteId: site,
      'customer.id': customer.id,
      'customer.country': customer.country,
      'items.productId': [...new Set(productIds)],
      'tags.name': tags,
      metadata,
      totalCents: total,
    });
  }

  // Reviews and their answers
  const reviews: RefRecord[] = [];
  const reviewAnswers: RefRecord[] = [];
  const reviewRows: Record<string, unknown>[] = [];
  for (let i = 0; i < size.reviews; i++) {
    const id = uuidv7();
    const createdAt = someTime(rng);
    const product = rng.chance(0.9) ? rng.skewed(products) : null;
    const customer = rng.chance(0.85) ? rng.skewed(customers) : null;
    const published = rng.chance(0.7);
    if (product && published) product.reviewed = true;
    const answers = Array.from({ length: rng.skewed([0, 1, 2, 3]) }, () => ({
      question: rng.skewed(QUESTIONS),
      step: rng.int(1, 5),
    }));
    const review: RefRecord = {
      id,
      createdAt,
      updatedAt: createdAt + HOUR,
      published,
      verifiedBuyer: rng.chance(0.5),
      flagged: rng.chance(0.15),
      rating: rng.skewed([5, 4, 3, 1, 2]),
      language: rng.skewed(['en', 'de', 'fr', null]),
      'product.id': product?.id ?? null,
      'customer.id': customer?.id ?? null,
      'customer.country': customer ? (countryOf.get(customer.id as string) ?? null) : null,
      metadata: rng.chance(0.5) ? { source: rng.skewed(['email', 'widget']) } : {},
    };
    reviewRows.push({
      organization_id: org,
      id,
      product_id: review['product.id'],
      customer_id: review['customer.id'],
      rating: review.rating,
      title: 't',
      body: 'b',
      published,
      verified_buyer: review.verifiedBuyer,
      flagged: review.flagged,
      language: review.language,
      answers,
      metadata: review.metadata,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + HOUR),
    });
    reviews.push(review);
    for (const answer of answers)
      reviewAnswers.push({ ...review, reviewId: id, question: answer.question, step: answer.step });
  }

  // Loyalty memberships, ledger entries and rewards
  const members: RefRecord[] = [];
  const memberRows: Record<string, unknown>[] = [];
  const memberCustomers = customers.slice(0, Math.min(size.members, customers.length));
  memberCustomers.forEach((customer, i) => {
    const id = uuidv7();
    const createdAt = someTime(rng);
    const leftAt = rng.chance(0.25) ? createdAt + rng.int(1, 900) * HOUR : null;
    const pinned = false;
    memberRows.push({
      organization_id: org,
      id,
      customer_id: customer.id,
      loyalty_program_id: program.id,
      referral_code: `R${seed}X${i}`,
      left_at: iso(leftAt),
      tier_assigned_manually: pinned,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + HOUR),
    });
    members.push({
      id,
      createdAt,
      updatedAt: createdAt + HOUR,
      tierAttainedAt: null,
      tierReviewAt: null,
      leftAt,
      tierAssignedManually: pinned,
      loyaltyProgramId: program.id,
      loyaltyTierId: null,
      'customer.id': customer.id,
      'customer.country': customer.country,
    });
  });

  const activity: RefRecord[] = [];
  const activityRows: Record<string, unknown>[] = [];
  for (let i = 0; i < (members.length ? size.activity : 0); i++) {
    const member = rng.skewed(members);
    const kind = rng.skewed(['earned', 'spent', 'adjusted', 'expired'] as const);
    const magnitude = rng.int(1, 500);
    const points =
      kind === 'earned' ? magnitude : kind === 'adjusted' ? (rng.chance(0.5) ? magnitude : -magnitude) : -magnitude;
    const createdAt = someTime(rng);
    const expiresAt = points > 0 && rng.chance(0.5) ? createdAt + 24 * HOUR * rng.int(30, 400) : null;
    const eventName = kind === 'earned' && rng.chance(0.5) ? rng.skewed(['signup', 'birthday', 'review']) : null;
    const id = uuidv7();
    activityRows.push({
      organization_id: org,
      id,
      loyalty_membership_id: member.id,
      customer_id: member['customer.id'],
      kind,
      points,
      balance_after: 1000,
      remaining: points > 0 ? points : null,
      expires_at: iso(expiresAt),
      event_name: eventName,
      metadata: rng.chance(0.4) ? { campaign: rng.skewed(['spring', 'fall']) } : {},
      created_at: iso(createdAt),
    });
    activity.push({
      id,
      createdAt,
      expiresAt,
      kind,
      eventName,
      loyaltyRuleId: null,
      loyaltyMembershipId: member.id,
      'customer.id': member['customer.id'],
      'customer.country': member['customer.country'],
      points,
      metadata: activityRows[activityRows.length - 1]!.metadata as Record<string, string>,
    });
  }

  const rewards: RefRecord[] = [];
  const rewardRows: Record<string, unknown>[] = [];
  for (let i = 0; i < (members.length ? size.rewards : 0); i++) {
    const member = rng.skewed(members);
    const status = rng.skewed(['pending', 'redeemed', 'expired', 'revoked'] as const);
    const type = rng.skewed(['amountCoupon', 'percentageCoupon', 'freeShipping', 'giftCard'] as const);
    const createdAt = someTime(rng);
    const redeemedAt = status === 'redeemed' ? createdAt + rng.int(1, 300) * HOUR : null;
    const revokedAt = status === 'revoked' ? createdAt + rng.int(1, 300) * HOUR : null;
    const expiresAt = rng.chance(0.6) ? createdAt + rng.int(24, 2000) * HOUR : null;
    const fulfillment = rng.chance(0.8)
      ? { mode: 'manual', status: rng.skewed(['active', 'deactivated', 'pending', 'failed']) }
      : null;
    const id = uuidv7();
    const metadata: Record<string, string> = rng.chance(0.3) ? { origin: rng.skewed(['ops', 'crm']) } : {};
    rewardRows.push({
      organization_id: org,
      id,
      loyalty_membership_id: member.id,
      customer_id: member['customer.id'],
      reward: { type },
      status,
      code: `C${seed}X${i}`,
      redeemed_at: iso(redeemedAt),
      revoked_at: iso(revokedAt),
      expires_at: iso(expiresAt),
      fulfillment,
      metadata,
      created_at: iso(createdAt),
      updated_at: iso(createdAt + HOUR),
    });
    rewards.push({
      id,
      createdAt,
      updatedAt: createdAt + HOUR,
      redeemedAt,
      expiresAt,
      revokedAt,
      status,
      'reward.type': type,
      'fulfillment.mode': fulfillment?.mode ?? null,
      'fulfillment.status': fulfillment?.status ?? null,
      loyaltyRuleId: null,
      loyaltyMembershipId: member.id,
      'customer.id': member['customer.id'],
      'customer.country': member['customer.country'],
      metadata,
    });
  }

  await insertRows(db, 'tags', tagRows, 'organization_id uuid, id uuid, kind text, name text');
  await insertRows(
    db,
    'customers',
    customerRows,
    'organization_id uuid, id uuid, email text, country text, email_opt_out boolean, email_opt_out_at timestamptz, email_opt_out_source text, metadata jsonb, created_at timestamptz, updated_at timestamptz',
  );
  await insertRows(db, 'customer_tags', customerTags, 'organization_id uuid, customer_id uuid, tag_id uuid');
  await insertRows(
    db,
    'products',
    productRows,
    'organization_id uuid, id uuid, slug text, title text, metadata jsonb, created_at timestamptz, updated_at timestamptz',
  );
  await insertRows(
    db,
    'product_variants',
    variantRows,
    'organization_id uuid, id uuid, product_id uuid, slug text, currency_code text, price_cents bigint',
  );
  await insertRows(db, 'product_tags', productTags, 'organization_id uuid, product_id uuid, tag_id uuid');
  await insertRows(
    db,
    'orders',
    orderRows,
    'organization_id uuid, id uuid, site_id uuid, customer_id uuid, remote_id text, number text, total_cents bigint, currency_code text, shipped_at timestamptz, cancelled_at timestamptz, metadata jsonb, created_at timestamptz, updated_at timestamptz',
  );
  await insertRows(db, 'order_tags', orderTags, 'organization_id uuid, order_id uuid, tag_id uuid');
  await insertRows(
    db,
    'order_items',
    itemRows,
    'organization_id uuid, id uuid, order_id uuid, product_id uuid, product_variant_id uuid, quantity integer, unit_price_cents bigint, position integer',
  );
  await insertRows(
    db,
    'reviews',
    reviewRows,
    'organization_id uuid, id uuid, product_id uuid, customer_id uuid, rating integer, title text, body text, published boolean, verified_buyer boolean, flagged boolean, language text, answers jsonb, metadata jsonb, created_at timestamptz, updated_at timestamptz',
  );
  await insertRows(
    db,
    'loyalty_memberships',
    memberRows,
    'organization_id uuid, id uuid, customer_id uuid, loyalty_program_id uuid, referral_code text, left_at timestamptz, tier_assigned_manually boolean, created_at timestamptz, updated_at timestamptz',
  );
  await insertRows(
    db,
    'loyalty_transactions',
    activityRows,
    'organization_id uuid, id uuid, loyalty_membership_id uuid, customer_id uuid, kind text, points bigint, balance_after bigint, remaining bigint, expires_at timestamptz, event_name text, metadata jsonb, created_at timestamptz',
  );
  await insertRows(
    db,
    'loyalty_rewards',
    rewardRows,
    'organization_id uuid, id uuid, loyalty_membership_id uuid, customer_id uuid, reward jsonb, status text, code text, redeemed_at timestamptz, revoked_at timestamptz, expires_at timestamptz, fulfillment jsonb, metadata jsonb, created_at timestamptz, updated_at timestamptz',
  );

  return { orders, customers, products, reviews, reviewAnswers, members, activity, rewards };
}

/** One statement per table: the rows travel as one JSON parameter, typed by the column list. */
async function insertRows(
  db: Kysely<DB>,
  table: string,
  rows: Record<string, unknown>[],
  columns: string,
): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.split(',').map((column) => column.trim().split(' ')[0]!);
  await sql`insert into ${sql.table(table)} (${sql.join(names.map((name) => sql.ref(name)))})
    select ${sql.join(names.map((name) => sql.ref(name)))} from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(${sql.raw(columns)})`.execute(
    db,
  );
}
