import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/cli/demo.js';
import { DEMO, DEMO_ANCHOR, HISTORY_DAYS } from '../../src/demo/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * The demo world is dated from the day it is seeded (docs/dashboard.md#the-demo-world): seeded today, the store has
 * orders today (none in the future), in the last week and over the last 90 days, with the week's rhythm and growth;
 * seeded on another day, its well-known records keep their ids and shapes and their dates move by whole days, which
 * is why the documented examples, generated on DEMO_ANCHOR, do not depend on the day they are generated.
 */
type Json = Record<string, any>;
const DAY_MS = 86_400_000;
/** The history's records take ids below the well-known ones (src/demo/history.ts). */
const HISTORY_ID_PREFIX = '0196a1c0-5d00-';
let t: TestApp;
let today: DemoSeed;
let anchored: DemoSeed;
let seededAt: Date;

beforeAll(async () => {
  t = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
  seededAt = new Date();
  today = await seedDemo(t.testDatabase.database, t.config);
  anchored = await seedDemo(t.testDatabase.database, t.config, { now: DEMO_ANCHOR });
}, 120_000);
afterAll(() => t?.close());

const utcDay = (instant: Date | string) => new Date(instant).toISOString().slice(0, 10);
const daysBefore = (days: number) => utcDay(new Date(Date.parse(`${utcDay(seededAt)}T00:00:00Z`) - days * DAY_MS));

async function ordersPerDay(key: string, from: string, to: string): Promise<Map<string, number>> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/analytics/query',
    key,
    body: {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity: 'day',
      timezone: 'UTC',
      filter: JSON.stringify({ createdAt: { $gte: `${from}T00:00:00Z`, $lt: `${to}T00:00:00Z` } }),
      fillGaps: true,
      limit: 400,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return new Map(response.json().data.map((row: Json) => [utcDay(row.createdAt), row.count as number]));
}

async function analyticsTotal(key: string, resource: string, measure: string, from: string): Promise<number> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/analytics/query',
    key,
    body: {
      resource,
      measures: [measure],
      timezone: 'UTC',
      filter: JSON.stringify({ createdAt: { $gte: `${from}T00:00:00Z` } }),
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return Number(response.json().data[0]?.[measure] ?? 0);
}

describe('the demo world seeded today', () => {
  it('has orders today (none after now), in the last 7 days, and on most of the last 90 days, growing, weekly', async () => {
    const tomorrow = daysBefore(-1);
    const byDay = await ordersPerDay(today.key, daysBefore(HISTORY_DAYS - 1), tomorrow);
    expect(byDay.get(utcDay(seededAt)), JSON.stringify([...byDay].slice(-3))).toBeGreaterThan(0);
    const lastWeek = [...Array(7).keys()].reduce((sum, back) => sum + (byDay.get(daysBefore(back)) ?? 0), 0);
    expect(lastWeek).toBeGreaterThanOrEqual(15);
    const daysWithOrders = [...byDay.values()].filter((count) => count > 0).length;
    expect(daysWithOrders).toBeGreaterThanOrEqual(70);
    // Growth: the last 30 days sell more than the first 30 of the 90.
    const window = (fromBack: number, toBack: number) =>
      [...Array(fromBack - toBack).keys()].reduce((sum, i) => sum + (byDay.get(daysBefore(toBack + i + 1)) ?? 0), 0);
    expect(window(30, 0)).toBeGreaterThan(window(90, 60) * 1.5);
    // The week's rhythm: weekends sell more than midweek days over the 90 days.
    const perWeekday = [0, 0, 0, 0, 0, 0, 0];
    for (const [day, count] of byDay) perWeekday[new Date(`${day}T00:00:00Z`).getUTCDay()]! += count;
    expect(perWeekday[0]! + perWeekday[6]!).toBeGreaterThan(perWeekday[2]! + perWeekday[3]!);
    // Nothing in the future, nothing before the 90 days but the well-known records' own dates.
    const newest = await t.request({ url: '/v1/orders?limit=1&sort=-createdAt', key: today.key });
    expect(Date.parse(newest.json().data[0].createdAt)).toBeLessThanOrEqual(Date.now());
    const future = await ordersPerDay(today.key, tomorrow, daysBefore(-400));
    expect([...future.values()].every((count) => count === 0)).toBe(true);
  });

  it('has members joining, points earned and spent, rewards issued and redeemed, and reviews in the last 30 days', async () => {
    const from = daysBefore(29);
    expect(await analyticsTotal(today.key, 'loyalty-members', 'count', from)).toBeGreaterThan(3);
    expect(await analyticsTotal(today.key, 'loyalty-activity', 'pointsEarned', from)).toBeGreaterThan(1000);
    expect(await analyticsTotal(today.key, 'loyalty-activity', 'pointsSpent', from)).toBeGreaterThan(0);
    expect(await analyticsTotal(today.key, 'loyalty-rewards', 'count', from)).toBeGreaterThan(0);
    expect(await analyticsTotal(today.key, 'reviews', 'count', from)).toBeGreaterThan(3);
    const redeemed = await t.request({
      url: `/v1/loyalty-rewards?limit=100&filter=${encodeURIComponent(JSON.stringify({ status: 'redeemed' }))}`,
      key: today.key,
    });
    expect(redeemed.json().data.length).toBeGreaterThan(0);
    // Events are dated as their records: the points earned on orders spread over the 90 days.
    const before = (days: number) =>
      encodeURIComponent(JSON.stringify({ createdAt: { $lt: `${daysBefore(days)}T00:00:00Z` } }));
    const events = await t.request({
      url: `/v1/events?type=loyaltyTransaction.created&limit=1&filter=${before(60)}`,
      key: today.key,
    });
    expect(events.statusCode, events.body).toBe(200);
    expect(events.json().data).toHaveLength(1);
    const older = await t.request({ url: `/v1/events?limit=1&filter=${before(HISTORY_DAYS + 1)}`, key: today.key });
    expect(older.json().data).toEqual([]);
  });
});

describe('the demo world seeded on another day', () => {
  const wellKnown: [string, string][] = [
    ['orders', DEMO.orders.first],
    ['orders', DEMO.orders.second],
    ['reviews', DEMO.reviews.adaOnShirt],
    ['reviews', DEMO.reviews.graceOnShirt],
    ['loyalty-memberships', DEMO.memberships.ada],
    ['loyalty-rules', DEMO.rules.retired],
    ['product-questions', DEMO.productQuestions.shirtShrink],
    ['customers', DEMO.customers.ada],
  ];

  it('keeps the well-known records’ ids and shapes, their dates moved by the whole days between', async () => {
    const shift = Math.round(
      (Date.parse(`${utcDay(seededAt)}T00:00:00Z`) - Date.parse(`${utcDay(DEMO_ANCHOR)}T00:00:00Z`)) / DAY_MS,
    );
    for (const [path, id] of wellKnown) {
      const [now, then] = await Promise.all(
        [today, anchored].map((seed) => t.request({ url: `/v1/${path}/${id}`, key: seed.key })),
      );
      expect(now!.statusCode, now!.body).toBe(200);
      expect(then!.statusCode, then!.body).toBe(200);
      expect(shapeOf(now!.json())).toEqual(shapeOf(then!.json()));
      expect(now!.json().id).toBe(id);
    }
    // Dates the world writes (an order placed, shipped and delivered; a review written) move by the shift exactly.
    const [first, firstThen] = await Promise.all(
      [today, anchored].map(async (seed) =>
        (await t.request({ url: `/v1/orders/${DEMO.orders.first}`, key: seed.key })).json(),
      ),
    );
    for (const field of ['createdAt', 'shippedAt', 'deliveredAt'])
      expect(Date.parse(first[field]) - Date.parse(firstThen[field]), field).toBe(shift * DAY_MS);
    // As of the anchor, the world's dates are those it is written with (the documented examples show them).
    expect(firstThen.createdAt).toBe('2026-05-02T10:15:00.000Z');
  });

  it('draws the same history as of the same instant: the anchor world is the one the examples are generated on', async () => {
    const again = await seedDemo(t.testDatabase.database, t.config, { now: DEMO_ANCHOR });
    const list = async (key: string, path: string) =>
      (await t.request({ url: `/v1/${path}?limit=100`, key }))
        .json()
        .data.filter((row: Json) => row.id.startsWith(HISTORY_ID_PREFIX))
        .map((row: Json) => [row.id, row.createdAt]);
    for (const path of ['orders', 'reviews', 'loyalty-memberships', 'customers']) {
      const drawn = await list(anchored.key, path);
      expect(drawn.length, path).toBeGreaterThan(10);
      expect(await list(again.key, path), path).toEqual(drawn);
    }
  }, 60_000);
});

/** The keys and kinds of value of a record, as test/contract/examples.test.ts compares the documented examples. */
function shapeOf(value: unknown): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Json)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, field]) => [name, shapeOf(field)]),
    );
  return typeof value;
}
