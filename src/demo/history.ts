import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { DEMO } from './ids.js';
import type { DemoRequest } from './world.js';

/**
 * The demo store's recent history: shoppers who ordered over the last 90 days, the members among them earning points
 * and spending some on free shipping, and their reviews, so the dashboard's overview shows the store at work on a
 * first start (docs/dashboard.md#the-demo-world). Drawn from a fixed seed relative to `now`: seeded as of the same
 * instant it is the same history; on another day, the same shoppers, with their orders on that day's weekdays. Its
 * records take ids below the well-known ones (src/demo/ids.ts), none of which an example names.
 */

/** The history's length in days, today included. */
export const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const HISTORY_SEED = 0x5eed_2026;
/** How many members claim a reward: each claim (and redemption) is a request of its own, the seed's dearest part. */
const CLAIMS = 7;

/** Ids below the well-known ones (`0196a1c0-5e00-…`), by kind, so the history's records sort after them by id. */
const historyId = (kind: number, index: number) => `0196a1c0-5d00-7000-8000-${kind}${String(index).padStart(11, '0')}`;

const FIRST_NAMES = (
  'Nora Liam Sofia Mateo Amara Jonas Ingrid Kenji Lucia Omar Priya Tomas Yara Felix Hana Diego Elsa Ravi Chloe Idris ' +
  'Maya Anton Leila Hugo Zoe Emil Aisha Bruno Clara Dmitri Freya Gabriel Isla Jamal Keiko Lars Mira Nico Olga Pablo'
).split(' ');
const LAST_NAMES = (
  'Berg Costa Dahl Evans Fischer Garcia Haas Ito Jensen Kowalski ' +
  'Larsen Moreau Novak Okafor Petrov Quinn Rossi Silva Tanaka Ueda'
).split(' ');
const COUNTRIES = ['US', 'US', 'US', 'GB', 'CA', 'DE', 'NL', 'FR', 'US', 'AU'];
const CUSTOMERS = FIRST_NAMES.length;
/** Seven in ten of the history's shoppers join the loyalty program. */
const isMember = (index: number) => index % 10 < 7;

/** Orders per day relative to a Thursday's: the store sells most at the weekend. Indexed by UTC day of week. */
const WEEKDAY_FACTOR = [1.45, 1.1, 0.85, 0.9, 1, 1.15, 1.4];
/** How likely each hour of the day is for an order (UTC, the demo organization's zone). */
const HOUR_WEIGHTS = [
  0.4, 0.2, 0.1, 0.1, 0.1, 0.2, 0.5, 1, 1.6, 2, 2.3, 2.5, 2.8, 2.6, 2.4, 2.4, 2.6, 2.9, 3.2, 3.4, 3.1, 2.5, 1.6, 0.9,
];

const REVIEW_LINES: Record<number, { title: string; body: string }[]> = {
  5: [
    { title: 'Exactly as pictured', body: 'Arrived quickly and the quality is better than I expected.' },
    { title: 'Bought a second one', body: 'Liked the first so much I ordered another for my partner.' },
    { title: 'Lovely material', body: 'Soft, well finished, and it still looks new after weeks of use.' },
  ],
  4: [
    { title: 'Very nice', body: 'Good quality for the price; the colour is a touch darker than online.' },
    { title: 'Happy with it', body: 'Fits well. Shipping took a day longer than promised.' },
  ],
  3: [{ title: 'It is fine', body: 'Decent, but I expected a little more for the price.' }],
};

/** A small, fast, seeded generator (mulberry32): the same seed draws the same history. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    /** An index drawn in proportion to `weights`. */
    weighted(weights: readonly number[]) {
      let left = next() * weights.reduce((sum, weight) => sum + weight, 0);
      for (let index = 0; index < weights.length; index++) {
        left -= weights[index]!;
        if (left < 0) return index;
      }
      return weights.length - 1;
    },
  };
}

interface PlannedOrder {
  id: string;
  customer: number;
  createdAt: Date;
  row: Record<string, unknown>;
  totalCents: number;
  cancelled: boolean;
  delivered?: Date;
  products: string[];
}

/** The history drawn for `now`: who the shoppers are, what they ordered when, who joined, reviewed and claimed. */
export function planHistory(now: Date) {
  const random = seeded(HISTORY_SEED);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const customers = FIRST_NAMES.map((firstName, index) => ({
    id: historyId(2, index),
    email: `${firstName.toLowerCase()}.${LAST_NAMES[index % LAST_NAMES.length]!.toLowerCase()}@example.org`,
    firstName,
    lastName: LAST_NAMES[index % LAST_NAMES.length]!,
    country: COUNTRIES[index % COUNTRIES.length]!,
    // Shoppers arrive over the history, the first on its first day and the last a few days ago, so members join
    // all along.
    firstDay: Math.floor((index * (HISTORY_DAYS - 3)) / CUSTOMERS),
    // Earlier shoppers come back more often.
    weight: 1 / (1 + index) ** 0.6,
  }));
  /** A time on `day` (0 = the history's first day), before `now` on today. */
  const timeOn = (day: number) => {
    const midnight = today - (HISTORY_DAYS - 1 - day) * DAY_MS;
    for (let attempt = 0; attempt < 20; attempt++) {
      const at = midnight + (random.weighted(HOUR_WEIGHTS) + random.next()) * HOUR_MS;
      if (at < now.getTime() - 60_000) return new Date(Math.floor(at / 1000) * 1000);
    }
    return new Date(midnight + Math.floor(((now.getTime() - midnight) * random.next() * 0.9) / 1000) * 1000);
  };
  const orders: PlannedOrder[] = [];
  for (let day = 0; day < HISTORY_DAYS; day++) {
    const midnight = today - (HISTORY_DAYS - 1 - day) * DAY_MS;
    // Growth: from about 1.5 orders a day to about 4.5, in the week's rhythm; today only the hours gone so far.
    const growth = 1.5 + (3 * day) / (HISTORY_DAYS - 1);
    const share = day === HISTORY_DAYS - 1 ? Math.min(1, (now.getTime() - midnight) / DAY_MS) : 1;
    const expected = growth * WEEKDAY_FACTOR[new Date(midnight).getUTCDay()]! * share;
    let count = Math.floor(expected + random.next());
    if (day === HISTORY_DAYS - 1) count = Math.max(1, count);
    const present = customers.filter((customer) => customer.firstDay <= day);
    for (let index = 0; index < count; index++) {
      const customer = customers.indexOf(present[random.weighted(present.map((shopper) => shopper.weight))]!);
      orders.push(drawOrder(random, customer, timeOn(day), now));
    }
  }
  orders.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  orders.forEach((order, index) => {
    order.id = historyId(5, index);
    order.row.remoteId = String(7_100_000_000 + index);
    order.row.number = `#${2001 + index}`;
  });
  const ordersOf = (customer: number) => orders.filter((order) => order.customer === customer);
  // Members join a little before their first order (and earn on every order, which the import credits), or on the
  // day they arrive when they have not ordered yet.
  const members = customers
    .map((customer, index) => ({ customer, index, first: ordersOf(index)[0] }))
    .filter(({ index }) => isMember(index))
    .map(({ customer, index, first }, position) => ({
      id: historyId(7, position),
      customer: index,
      email: customer.email,
      joinedAt: first
        ? new Date(first.createdAt.getTime() - (1 + random.int(36)) * HOUR_MS)
        : timeOn(customer.firstDay),
    }));
  // One delivered order in eight gets a review a few days after it arrived.
  const reviews = orders
    .filter((order) => order.delivered && random.next() < 0.125)
    .map((order, index) => {
      const rating = random.weighted([0, 0, 0, 1, 3, 6]);
      const lines = REVIEW_LINES[rating]!;
      const writtenAt = new Date(order.delivered!.getTime() + (6 + random.int(72)) * HOUR_MS);
      return {
        id: historyId(8, index),
        row: {
          product: order.products[0]!,
          customer: customers[order.customer]!.email,
          remoteId: `history-${index + 1}`,
          published: true,
          verifiedBuyer: true,
          language: 'en',
          rating,
          ...lines[random.int(lines.length)]!,
          createdAt: (writtenAt.getTime() < now.getTime() ? writtenAt : order.delivered!).toISOString(),
        },
      };
    });
  // Members with the most points (300 or more) claim free shipping (200 points) after their last order; most use it.
  const claimants = members
    .map((member) => {
      const own = ordersOf(member.customer).filter((order) => !order.cancelled);
      const points = own.reduce((sum, order) => sum + Math.floor(order.totalCents / 100), 0);
      const last = own.at(-1);
      if (!last) return [];
      const claimedAt = new Date(
        Math.min(last.createdAt.getTime() + (2 + random.int(30)) * HOUR_MS, now.getTime() - 30 * 60_000),
      );
      const redeemedAt = new Date(claimedAt.getTime() + (12 + random.int(72)) * HOUR_MS);
      return [{ member, points, claimedAt, redeemedAt: redeemedAt < now ? redeemedAt : null }];
    })
    .flat()
    .filter(({ points }) => points >= 300)
    .sort((a, b) => b.points - a.points);
  const claims = [
    ...claimants.filter((claim) => claim.redeemedAt).slice(0, CLAIMS - 3),
    ...claimants.filter((claim) => !claim.redeemedAt).slice(0, 3),
  ];
  return { customers, orders, members, reviews, claims };
}

function drawOrder(random: ReturnType<typeof seeded>, customer: number, createdAt: Date, now: Date): PlannedOrder {
  const items: { product: string; variant?: string; quantity: number; unitPriceCents: number }[] = [];
  const kind = random.next();
  let site = 'shop.example.com';
  if (kind < 0.1) {
    site = 'outlet.example.com';
    items.push({ product: 'canvas-tote', quantity: 1 + random.int(2), unitPriceCents: 2800 });
  } else {
    if (kind < 0.75)
      items.push({
        product: 'linen-shirt',
        variant: random.next() < 0.6 ? 'linen-shirt-m' : 'linen-shirt-l',
        quantity: 1 + random.int(2),
        unitPriceCents: 4500,
      });
    if (kind >= 0.55) items.push({ product: 'merino-scarf', quantity: 1, unitPriceCents: 6500 });
  }
  const totalCents = items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
  const age = now.getTime() - createdAt.getTime();
  const cancelled = random.next() < 0.03;
  const shipped = !cancelled && age > 2 * DAY_MS ? new Date(createdAt.getTime() + DAY_MS) : undefined;
  const delivered = shipped && age > 5 * DAY_MS ? new Date(createdAt.getTime() + 3 * DAY_MS) : undefined;
  return {
    id: '',
    customer,
    createdAt,
    totalCents,
    cancelled,
    delivered,
    products: items.map((item) => item.product),
    row: {
      site,
      totalCents,
      subtotalCents: totalCents,
      currencyCode: 'USD',
      createdAt: createdAt.toISOString(),
      ...(shipped ? { shippedAt: shipped.toISOString() } : {}),
      ...(delivered ? { deliveredAt: delivered.toISOString() } : {}),
      ...(cancelled ? { cancelledAt: new Date(createdAt.getTime() + 2 * HOUR_MS).toISOString() } : {}),
      items,
    },
  };
}

type Send = (request: DemoRequest & { ids?: readonly string[] }) => Promise<{ statusCode: number; body: string }>;

/**
 * Seeds the history through the API (customers, members, orders earning points, reviews, claims and redemptions),
 * then dates what the API stamps with the time of the request (members' joining, ledger entries, rewards) as the
 * history has it. Needs the store's sites and products and the main program's rules.
 */
export async function seedHistory(db: Kysely<DB>, organizationId: string, now: Date, send: Send): Promise<void> {
  const history = planHistory(now);
  const customerOf = (index: number) => history.customers[index]!;
  await send({
    method: 'POST',
    url: '/v1/customers/import',
    ids: history.customers.map((customer) => customer.id),
    body: {
      data: history.customers.map(({ email, firstName, lastName, country }) => ({
        email,
        firstName,
        lastName,
        country,
      })),
    },
  });
  await send({
    method: 'POST',
    url: '/v1/loyalty-memberships/import',
    ids: history.members.map((member) => member.id),
    body: {
      data: history.members.map((member) => ({ customer: member.email, loyaltyProgramId: DEMO.programs.main })),
    },
  });
  await send({
    method: 'POST',
    url: '/v1/orders/import',
    ids: history.orders.map((order) => order.id),
    body: { data: history.orders.map((order) => ({ ...order.row, customer: customerOf(order.customer).email })) },
  });
  await send({
    method: 'POST',
    url: '/v1/reviews/import',
    ids: history.reviews.map((review) => review.id),
    body: { data: history.reviews.map((review) => review.row) },
  });
  const claimed: { rewardId: string; transactionId: string; claimedAt: Date; redeemedAt: Date | null }[] = [];
  for (const claim of history.claims) {
    const answer = await send({
      method: 'POST',
      url: `/v1/loyalty-memberships/${claim.member.id}/claim`,
      body: { loyaltyRuleId: DEMO.rules.freeShippingForPoints },
    });
    const reward = JSON.parse(answer.body) as { id: string; code: string; loyaltyTransactionId: string };
    if (claim.redeemedAt)
      await send({ method: 'POST', url: '/v1/loyalty-rewards/redeem', body: { code: reward.code } });
    claimed.push({ rewardId: reward.id, transactionId: reward.loyaltyTransactionId, ...claim });
  }
  const ids = (values: readonly string[]) => sql`${values}::uuid[]`;
  const times = (values: readonly (Date | null)[]) =>
    sql`${values.map((value) => value?.toISOString() ?? null)}::timestamptz[]`;
  await sql`update customers c set created_at = u.at, updated_at = u.at
    from unnest(${ids(history.customers.map((customer) => customer.id))},
      ${times(history.customers.map((_, index) => firstSeen(history, index, now)))}) as u(id, at)
    where c.organization_id = ${organizationId}::uuid and c.id = u.id`.execute(db);
  await sql`update loyalty_memberships m set created_at = u.at, updated_at = u.at
    from unnest(${ids(history.members.map((member) => member.id))}, ${times(history.members.map((member) => member.joinedAt))}) as u(id, at)
    where m.organization_id = ${organizationId}::uuid and m.id = u.id`.execute(db);
  await sql`update loyalty_transactions t set created_at = u.at
    from unnest(${ids(claimed.map((claim) => claim.transactionId))}, ${times(claimed.map((claim) => claim.claimedAt))}) as u(id, at)
    where t.organization_id = ${organizationId}::uuid and t.id = u.id`.execute(db);
  await sql`update loyalty_rewards r set created_at = u.claimed, redeemed_at = u.redeemed,
      updated_at = coalesce(u.redeemed, u.claimed)
    from unnest(${ids(claimed.map((claim) => claim.rewardId))}, ${times(claimed.map((claim) => claim.claimedAt))},
      ${times(claimed.map((claim) => claim.redeemedAt))}) as u(id, claimed, redeemed)
    where r.organization_id = ${organizationId}::uuid and r.id = u.id`.execute(db);
}

/** When a shopper of the history was first seen: the morning they arrived, or before their first order or joining. */
function firstSeen(history: ReturnType<typeof planHistory>, index: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const arrived = today - (HISTORY_DAYS - 1 - history.customers[index]!.firstDay) * DAY_MS + 7 * HOUR_MS;
  const first = history.orders.find((order) => order.customer === index)?.createdAt.getTime() ?? arrived;
  const joined = history.members.find((member) => member.customer === index)?.joinedAt.getTime() ?? arrived;
  return new Date(Math.min(arrived, first - HOUR_MS, joined - HOUR_MS, now.getTime() - HOUR_MS));
}

/**
 * Dates what the API stamped with the time of the request as the records say it happened: customers and members are
 * no younger than their first order, points earned on an order carry the order's time, and an event about a review,
 * a member, a ledger entry or a reward carries the time of that record (a redemption's, its reward's redeemedAt).
 * Only moves times back, never forward.
 */
export async function dateFromRecords(db: Kysely<DB>, organizationId: string): Promise<void> {
  // A customer, and a member, was there a day before their first order at the latest.
  await sql`update customers c set created_at = f.first - interval '1 day', updated_at = f.first - interval '1 day'
    from (select customer_id, min(created_at) as first from orders
      where organization_id = ${organizationId}::uuid and customer_id is not null group by customer_id) f
    where c.organization_id = ${organizationId}::uuid and c.id = f.customer_id and f.first < c.created_at`.execute(db);
  await sql`update loyalty_memberships m set created_at = f.first - interval '1 day'
    from (select customer_id, min(created_at) as first from orders
      where organization_id = ${organizationId}::uuid and customer_id is not null group by customer_id) f
    where m.organization_id = ${organizationId}::uuid and m.customer_id = f.customer_id and f.first < m.created_at`.execute(
    db,
  );
  await sql`update loyalty_transactions t set created_at = o.created_at
    from orders o
    where t.organization_id = ${organizationId}::uuid and o.organization_id = t.organization_id and o.id = t.order_id
      and t.kind = 'earned' and o.created_at < t.created_at`.execute(db);
  const events: [table: string, name: string, column: string][] = [
    ['reviews', 'review.created', 'created_at'],
    ['loyalty_memberships', 'loyaltyMembership.created', 'created_at'],
    ['loyalty_transactions', 'loyaltyTransaction.created', 'created_at'],
    ['loyalty_rewards', 'loyaltyReward.issued', 'created_at'],
    ['loyalty_rewards', 'loyaltyReward.redeemed', 'redeemed_at'],
  ];
  for (const [table, name, column] of events) {
    await sql`update events e set created_at = r.${sql.ref(column)}
      from ${sql.table(table)} r
      where e.organization_id = ${organizationId}::uuid and r.organization_id = e.organization_id and r.id = e.object_id
        and e.name = ${name} and r.${sql.ref(column)} < e.created_at`.execute(db);
  }
}
