import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHORS, generateData, type GeneratedData } from '../support/analytics-data.js';
import {
  reference,
  rounded,
  type Granularity,
  type RefQuery,
  type RefRecord,
  type Row,
} from '../support/analytics-reference.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
let dataA: GeneratedData;
let dataB: GeneratedData;

beforeAll(async () => {
  t = await startTestApp();
  // A ceiling no test run reaches: these suites send hundreds of queries at cost 5.
  a = await t.tenant({ timezone: 'America/New_York', apiRequestsPerMinute: 100_000_000 });
  b = await t.tenant({ timezone: 'Europe/Berlin', apiRequestsPerMinute: 100_000_000 });
  const db = t.testDatabase.database.db;
  dataA = await generateData(db, a.organization.id, 1);
  // The other organization's rows sit at the same times with other values: counting any of them shows in every total.
  dataB = await generateData(db, b.organization.id, 2, {
    customers: 30,
    products: 10,
    orders: 200,
    reviews: 80,
    members: 20,
    activity: 100,
    rewards: 80,
  });
});
afterAll(() => t.close());

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata'] as const;
const CALENDAR: Granularity[] = ['day', 'week', 'month', 'quarter', 'year'];
const HOUR = 3_600_000;

const recordsOf = (data: GeneratedData, resource: string): RefRecord[] =>
  ({
    orders: data.orders,
    customers: data.customers,
    products: data.products,
    reviews: data.reviews,
    'review-answers': data.reviewAnswers,
    'loyalty-members': data.members,
    'loyalty-activity': data.activity,
    'loyalty-rewards': data.rewards,
  })[resource]!;

const post = (key: string, body: unknown) => t.request({ method: 'POST', url: '/v1/analytics/query', key, body });

/** Asks Patron and the reference the same question; the answers must be the same rows in the same order. */
async function check(query: RefQuery, tenant = a, data = dataA): Promise<Row[]> {
  const { filter, ...rest } = query;
  const response = await post(tenant.key, { ...rest, ...(filter ? { filter: JSON.stringify(filter) } : {}) });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ data: Row[]; meta: Record<string, unknown> }>();
  const expected = reference(recordsOf(data, query.resource), query);
  expect(rounded(body.data)).toEqual(rounded(expected));
  expect(body.meta).toMatchObject({
    resource: query.resource,
    measures: query.measures,
    groupBy: query.groupBy ?? [],
    timezone: query.timezone,
  });
  return body.data;
}

const window = (center: number, hours: number) => ({
  $gte: new Date(center - hours * HOUR).toISOString(),
  $lt: new Date(center + hours * HOUR).toISOString(),
});

describe('orders against the reference, in four zones and every granularity', () => {
  const measures = ['revenue', 'count', 'averageOrderValue', 'uniqueCustomers'];
  for (const timezone of ZONES) {
    for (const granularity of CALENDAR) {
      it(`${timezone} by ${granularity}: every measure, gaps filled`, async () => {
        const rows = await check({ resource: 'orders', measures, groupBy: ['createdAt'], granularity, timezone });
        expect(rows.length).toBeGreaterThan(1);
      });
      it(`${timezone} by ${granularity} and currency, top 3 plus Other`, async () => {
        const rows = await check({
          resource: 'orders',
          measures: ['uniqueCustomers', 'count', 'revenue', 'averageOrderValue'],
          groupBy: ['currencyCode', 'createdAt'],
          granularity,
          timezone,
          limit: 3,
        });
        expect(rows.some((row) => row.currencyCode === 'Other')).toBe(true);
      });
    }
  }

  const transitions: [string, number][] = [
    ['America/New_York', ANCHORS.newYorkSpring],
    ['America/New_York', ANCHORS.newYorkFall],
    ['Europe/Berlin', ANCHORS.berlinSpring],
    ['Europe/Berlin', ANCHORS.berlinFall],
    ['Australia/Lord_Howe', ANCHORS.lordHoweFall],
    ['Australia/Lord_Howe', ANCHORS.lordHoweSpring],
    ['Asia/Kolkata', ANCHORS.yearEndKolkata],
    ['Europe/Berlin', ANCHORS.yearEndBerlin],
  ];
  for (const [timezone, anchor] of transitions) {
    it(`${timezone} by hour across ${new Date(anchor).toISOString()}`, async () => {
      const filter = { createdAt: window(anchor, 30) };
      await check({ resource: 'orders', measures, groupBy: ['createdAt'], granularity: 'hour', timezone, filter });
      await check({
        resource: 'orders',
        measures: ['uniqueCustomers', 'revenue'],
        groupBy: ['createdAt', 'tags.name'],
        granularity: 'hour',
        timezone,
        filter,
        limit: 2,
      });
      await check({
        resource: 'orders',
        measures,
        groupBy: ['createdAt'],
        granularity: 'hour',
        timezone,
        filter,
        fillGaps: false,
      });
    });
  }
});

describe('buckets a person can check by hand', () => {
  const buckets = async (timezone: string, granularity: Granularity, from: string, to: string) => {
    const response = await post(a.key, {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity,
      timezone,
      filter: JSON.stringify({ createdAt: { $gte: from, $lt: to } }),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: Row[] }>().data.map((row) => row.createdAt);
  };

  it('New York: the repeated 01:00 is two hour buckets; the skipped 02:00 is none; the days last 25 and 23 hours', async () => {
    expect(await buckets('America/New_York', 'hour', '2024-11-03T04:00:00Z', '2024-11-03T08:00:00Z')).toEqual([
      '2024-11-03T04:00:00.000Z',
      '2024-11-03T05:00:00.000Z',
      '2024-11-03T06:00:00.000Z',
      '2024-11-03T07:00:00.000Z',
    ]);
    expect(await buckets('America/New_York', 'hour', '2024-03-10T05:00:00Z', '2024-03-10T08:00:00Z')).toEqual([
      '2024-03-10T05:00:00.000Z',
      '2024-03-10T06:00:00.000Z',
      '2024-03-10T07:00:00.000Z',
    ]);
    expect(await buckets('America/New_York', 'day', '2024-11-02T04:00:00Z', '2024-11-05T05:00:00Z')).toEqual([
      '2024-11-02T04:00:00.000Z',
      '2024-11-03T04:00:00.000Z',
      '2024-11-04T05:00:00.000Z',
    ]);
  });

  it('Berlin: 31 March 2024 is a 23-hour day, 27 October a 25-hour one', async () => {
    expect(await buckets('Europe/Berlin', 'day', '2024-03-30T23:00:00Z', '2024-04-01T22:00:00Z')).toEqual([
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
    ]);
    expect(await buckets('Europe/Berlin', 'day', '2024-10-26T22:00:00Z', '2024-10-28T23:00:00Z')).toEqual([
      '2024-10-26T22:00:00.000Z',
      '2024-10-27T23:00:00.000Z',
    ]);
  });

  it('Lord Howe: the half-hour change makes half-hour and split hour buckets', async () => {
    // Spring, 6 Oct 2024: 02:00 (+10:30) becomes 02:30 (+11) at 15:30Z; the local hour 02 is 15:30–16:00Z.
    expect(await buckets('Australia/Lord_Howe', 'hour', '2024-10-05T13:30:00Z', '2024-10-05T17:00:00Z')).toEqual([
      '2024-10-05T13:30:00.000Z',
      '2024-10-05T14:30:00.000Z',
      '2024-10-05T15:30:00.000Z',
      '2024-10-05T16:00:00.000Z',
    ]);
    // Autumn, 7 Apr 2024: 02:00 (+11) becomes 01:30 (+10:30) at 15:00Z; 01:30–02:00 repeats, under the other offset.
    expect(await buckets('Australia/Lord_Howe', 'hour', '2024-04-06T13:00:00Z', '2024-04-06T16:30:00Z')).toEqual([
      '2024-04-06T13:00:00.000Z',
      '2024-04-06T14:00:00.000Z',
      '2024-04-06T15:00:00.000Z',
      '2024-04-06T15:30:00.000Z',
    ]);
    expect(await buckets('Australia/Lord_Howe', 'day', '2024-10-04T13:30:00Z', '2024-10-06T13:00:00Z')).toEqual([
      '2024-10-04T13:30:00.000Z',
      '2024-10-05T13:30:00.000Z',
    ]);
  });

  it('Kolkata: days begin at 18:30Z, years at its midnight', async () => {
    expect(await buckets('Asia/Kolkata', 'day', '2024-12-30T18:30:00Z', '2025-01-01T18:30:00Z')).toEqual([
      '2024-12-30T18:30:00.000Z',
      '2024-12-31T18:30:00.000Z',
    ]);
    expect(await buckets('Asia/Kolkata', 'year', '2024-06-01T00:00:00Z', '2025-06-01T00:00:00Z')).toEqual([
      '2023-12-31T18:30:00.000Z',
      '2024-12-31T18:30:00.000Z',
    ]);
  });

  it('weeks begin on Monday, quarters on the first of January, April, July and October', async () => {
    expect(await buckets('Europe/Berlin', 'week', '2024-12-25T00:00:00Z', '2025-01-08T00:00:00Z')).toEqual([
      '2024-12-22T23:00:00.000Z',
      '2024-12-29T23:00:00.000Z',
      '2025-01-05T23:00:00.000Z',
    ]);
    expect(await buckets('America/New_York', 'quarter', '2024-02-01T00:00:00Z', '2024-08-01T00:00:00Z')).toEqual([
      '2024-01-01T05:00:00.000Z',
      '2024-04-01T04:00:00.000Z',
      '2024-07-01T04:00:00.000Z',
    ]);
  });
});

describe('zones whose offsets or changes are off the quarter hour', () => {
  // St. John's changed clocks at 00:01 local until 2011 (going back, 00:00–00:01 of 29 Oct 2006 came before 23:01 of
  // the 28th), and New York kept local mean time (-04:56:02) until 18 Nov 1883: 15-minute slots straddle their
  // buckets there, so the rows must be bucketed one by one.
  let c: Tenant;
  let dataC: GeneratedData;
  const irregular = [
    Date.parse('2006-04-02T03:31:00Z'),
    Date.parse('2006-10-29T02:31:00Z'),
    Date.parse('1883-11-18T17:00:00Z'),
    Date.parse('1880-03-01T04:56:02Z'), // a local mean midnight
  ];
  beforeAll(async () => {
    c = await t.tenant({ timezone: 'America/St_Johns', apiRequestsPerMinute: 100_000_000 });
    dataC = await generateData(
      t.testDatabase.database.db,
      c.organization.id,
      3,
      { customers: 20, products: 5, orders: 400, reviews: 0, members: 0, activity: 0, rewards: 0 },
      (rng) => {
        const anchor = rng.pick(irregular);
        const nearby = Math.round((rng.next() * 2 - 1) * 12 * 60) * 1000; // within 12 minutes: inside the anchor's slots
        return (
          anchor +
          rng.pick([
            0,
            -1,
            60_000,
            -60_000,
            nearby,
            nearby,
            Math.round(((rng.next() * 2 - 1) * 50 * HOUR) / 1000) * 1000,
          ])
        );
      },
    );
  });

  for (const [timezone, from, to] of [
    ['America/St_Johns', '2006-03-30T00:00:00Z', '2006-11-02T00:00:00Z'],
    ['America/New_York', '1880-02-20T00:00:00Z', '1883-11-25T00:00:00Z'],
  ] as const) {
    for (const granularity of [...CALENDAR, 'hour'] as Granularity[]) {
      it(`${timezone} by ${granularity}`, async () => {
        const around = (anchor: number) => ({ createdAt: window(anchor, 30) });
        const filters =
          granularity === 'hour' ? irregular.map(around) : [{ createdAt: { $gte: from, $lt: to } }, undefined];
        for (const filter of filters) {
          // Without a filter the data spans 126 years: too many days and weeks for a filled series.
          const fillGaps =
            filter !== undefined || granularity === 'month' || granularity === 'quarter' || granularity === 'year';
          await check(
            {
              resource: 'orders',
              measures: ['revenue', 'count', 'averageOrderValue'],
              groupBy: ['createdAt'],
              granularity,
              timezone,
              fillGaps,
              ...(filter ? { filter } : {}),
            },
            c,
            dataC,
          );
          await check(
            {
              resource: 'orders',
              measures: ['count', 'revenue'],
              groupBy: ['createdAt', 'currencyCode'],
              granularity,
              timezone,
              limit: 2,
              fillGaps: false,
              ...(filter ? { filter } : {}),
            },
            c,
            dataC,
          );
        }
      });
    }
  }

  it("St. John's, 29 Oct 2006: the minute 00:00–00:01 before the clocks went back is its own hour bucket", async () => {
    const response = await post(c.key, {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity: 'hour',
      timezone: 'America/St_Johns',
      filter: JSON.stringify({ createdAt: { $gte: '2006-10-29T01:30:00Z', $lt: '2006-10-29T04:30:00Z' } }),
    });
    expect(response.json().data.map((row: Row) => row.createdAt)).toEqual([
      '2006-10-29T01:30:00.000Z',
      '2006-10-29T02:30:00.000Z',
      '2006-10-29T02:31:00.000Z',
      '2006-10-29T03:30:00.000Z',
    ]);
  });
});

describe('every resource and measure against the reference', () => {
  const cases: { resource: string; measures: string[]; dimension: string; limit: number }[] = [
    {
      resource: 'reviews',
      measures: [
        'count',
        'avgRating',
        'publishedCount',
        'flaggedCount',
        'verifiedBuyerCount',
        'uniqueCustomers',
        'uniqueProducts',
      ],
      dimension: 'rating',
      limit: 2,
    },
    {
      resource: 'review-answers',
      measures: ['count', 'averageStep', 'uniqueReviews'],
      dimension: 'question',
      limit: 2,
    },
    {
      resource: 'orders',
      measures: ['count', 'revenue', 'averageOrderValue', 'uniqueCustomers'],
      dimension: 'tags.name',
      limit: 3,
    },
    { resource: 'customers', measures: ['count', 'subscribedCount', 'optedOutCount'], dimension: 'country', limit: 2 },
    { resource: 'products', measures: ['count', 'reviewedCount'], dimension: 'tags.name', limit: 2 },
    { resource: 'loyalty-members', measures: ['count', 'activeCount'], dimension: 'customer.country', limit: 2 },
    { resource: 'loyalty-activity', measures: ['count', 'pointsEarned', 'pointsSpent'], dimension: 'kind', limit: 2 },
    { resource: 'loyalty-rewards', measures: ['count', 'redeemedCount'], dimension: 'reward.type', limit: 2 },
  ];
  for (const [index, { resource, measures, dimension, limit }] of cases.entries()) {
    it(`${resource}: total, by ${dimension} with Other, and by createdAt at every granularity`, async () => {
      await check({ resource, measures, timezone: 'UTC' });
      await check({ resource, measures, groupBy: [dimension], limit, timezone: 'UTC' });
      // Each measure first in turn: it ranks the combinations and orders the rows.
      for (const first of measures) {
        await check({
          resource,
          measures: [first, ...measures.filter((m) => m !== first)],
          groupBy: [dimension, 'createdAt'],
          granularity: 'month',
          limit,
          timezone: ZONES[index % 4]!,
        });
      }
      for (const [n, granularity] of CALENDAR.entries()) {
        await check({ resource, measures, groupBy: ['createdAt'], granularity, timezone: ZONES[(index + n) % 4]! });
      }
      const timezone = ZONES[(index + 1) % 4]!;
      await check({
        resource,
        measures,
        groupBy: ['createdAt', dimension],
        granularity: 'hour',
        limit,
        timezone,
        filter: { createdAt: window(ANCHORS.lordHoweSpring, 20) },
      });
    });
  }

  it('several dimensions at once, to-many ones counting a record once per value', async () => {
    await check({
      resource: 'orders',
      measures: ['count', 'revenue'],
      groupBy: ['tags.name', 'metadata.channel', 'createdAt'],
      granularity: 'quarter',
      limit: 5,
      timezone: 'Europe/Berlin',
    });
    await check({
      resource: 'orders',
      measures: ['uniqueCustomers', 'averageOrderValue'],
      groupBy: ['items.productId', 'customer.country'],
      limit: 7,
      timezone: 'UTC',
    });
    await check({
      resource: 'products',
      measures: ['count'],
      groupBy: ['variants.currencyCode', 'tags.name'],
      limit: 4,
      timezone: 'UTC',
    });
    await check({
      resource: 'customers',
      measures: ['optedOutCount', 'count'],
      groupBy: ['emailOptOutSource', 'emailOptOut', 'tags.name'],
      limit: 6,
      timezone: 'UTC',
    });
    await check({
      resource: 'reviews',
      measures: ['avgRating', 'count'],
      groupBy: ['published', 'language', 'customer.country'],
      limit: 5,
      timezone: 'UTC',
    });
    await check({
      resource: 'review-answers',
      measures: ['averageStep', 'uniqueReviews'],
      groupBy: ['step', 'question', 'createdAt'],
      granularity: 'year',
      limit: 8,
      timezone: 'Asia/Kolkata',
    });
    await check({
      resource: 'loyalty-rewards',
      measures: ['redeemedCount'],
      groupBy: ['status', 'fulfillment.status', 'metadata.origin'],
      limit: 6,
      timezone: 'UTC',
    });
    await check({
      resource: 'loyalty-rewards',
      measures: ['count'],
      groupBy: ['fulfillment.mode', 'customer.country'],
      limit: 4,
      timezone: 'UTC',
    });
    await check({
      resource: 'loyalty-activity',
      measures: ['pointsSpent', 'count'],
      groupBy: ['eventName', 'metadata.campaign'],
      limit: 3,
      timezone: 'UTC',
    });
  });

  it('a date that can be missing: records without it form one bucket, last, outside the gaps', async () => {
    const rows = await check({
      resource: 'orders',
      measures: ['count', 'revenue'],
      groupBy: ['shippedAt'],
      granularity: 'month',
      timezone: 'Europe/Berlin',
    });
    expect(rows[rows.length - 1]!.shippedAt).toBeNull();
    await check({
      resource: 'loyalty-rewards',
      measures: ['count'],
      groupBy: ['redeemedAt', 'status'],
      granularity: 'week',
      timezone: 'America/New_York',
      limit: 2,
    });
    await check({
      resource: 'loyalty-members',
      measures: ['activeCount', 'count'],
      groupBy: ['leftAt'],
      granularity: 'quarter',
      timezone: 'Australia/Lord_Howe',
    });
  });

  it('the filter selects the rows, and its bounds on the date bound the series', async () => {
    const filter = {
      createdAt: { $gt: '2024-03-01T00:00:00Z', $lte: '2024-12-31T12:00:00+01:00' },
      'tags.name': { $in: ['vip', 'gift'] },
    };
    const rows = await check({
      resource: 'orders',
      measures: ['count', 'revenue'],
      groupBy: ['createdAt'],
      granularity: 'week',
      timezone: 'Europe/Berlin',
      filter,
    });
    expect(rows[0]!.createdAt).toBe('2024-02-25T23:00:00.000Z');
    expect(rows[rows.length - 1]!.createdAt).toBe('2024-12-29T23:00:00.000Z');
    // Bounds under $or do not bound the selection, so the data's own range is used.
    await check({
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity: 'month',
      timezone: 'UTC',
      filter: { $or: [{ createdAt: { $gte: '2024-06-01T00:00:00Z' } }, { currencyCode: 'JPY' }] },
    });
    // $and bounds count; one side only: the other from the data.
    await check({
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity: 'month',
      timezone: 'UTC',
      filter: { $and: [{ createdAt: { $gte: '2023-06-01T00:00:00Z' } }, { currencyCode: { $ne: 'EUR' } }] },
    });
    // A range with no data at all: zeros for every bucket of the single series.
    const empty = await check({
      resource: 'orders',
      measures: ['count', 'averageOrderValue'],
      groupBy: ['createdAt'],
      granularity: 'month',
      timezone: 'UTC',
      filter: { createdAt: { $gte: '2030-01-01T00:00:00Z', $lt: '2030-04-01T00:00:00Z' } },
    });
    expect(empty).toEqual([
      { createdAt: '2030-01-01T00:00:00.000Z', count: 0, averageOrderValue: null },
      { createdAt: '2030-02-01T00:00:00.000Z', count: 0, averageOrderValue: null },
      { createdAt: '2030-03-01T00:00:00.000Z', count: 0, averageOrderValue: null },
    ]);
    // Review answers filter by their review's fields.
    await check({
      resource: 'review-answers',
      measures: ['count', 'averageStep'],
      groupBy: ['question'],
      timezone: 'UTC',
      filter: { published: true, rating: { $gte: 4 } },
    });
  });

  it('Other re-aggregates from the rows: a distinct count is not the sum of the hidden groups, an average is not their mean', async () => {
    const rows = await check({
      resource: 'orders',
      measures: ['uniqueCustomers', 'averageOrderValue', 'count'],
      groupBy: ['tags.name'],
      limit: 1,
      timezone: 'UTC',
    });
    const all = await check({
      resource: 'orders',
      measures: ['uniqueCustomers', 'averageOrderValue', 'count'],
      groupBy: ['tags.name'],
      limit: 500,
      timezone: 'UTC',
    });
    const other = rows.find((row) => row['tags.name'] === 'Other')!;
    const hidden = all.slice(1);
    expect(other.count).toBe(hidden.reduce((sum, row) => sum + Number(row.count), 0));
    expect(Number(other.uniqueCustomers)).toBeLessThan(
      hidden.reduce((sum, row) => sum + Number(row.uniqueCustomers), 0),
    );
    const meanOfMeans = hidden.reduce((sum, row) => sum + Number(row.averageOrderValue), 0) / hidden.length;
    expect(other.averageOrderValue).not.toBeCloseTo(meanOfMeans, 3);
  });
});

describe('the response', () => {
  it('meta per D25; the organization zone by default; truncated only when an Other row exists', async () => {
    const response = await post(a.key, {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['currencyCode'],
      limit: 2,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().meta).toEqual({
      resource: 'orders',
      measures: ['count'],
      groupBy: ['currencyCode'],
      granularity: null,
      timezone: 'America/New_York',
      limit: 2,
      truncated: true,
    });
    const all = await post(a.key, {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt', 'currencyCode'],
      granularity: 'year',
      limit: 500,
    });
    expect(all.json().meta).toMatchObject({ granularity: 'year', limit: 500, truncated: false });
    expect(all.json().data.some((row: Row) => row.currencyCode === 'Other')).toBe(false);
    const defaults = await post(a.key, { resource: 'orders', measures: ['count'], groupBy: ['createdAt'] });
    expect(defaults.json().meta).toMatchObject({ granularity: 'day', limit: 50, timezone: 'America/New_York' });
  });

  it('a single total row without groupBy, zeros and null average when nothing matches', async () => {
    const response = await post(a.key, {
      resource: 'orders',
      measures: ['count', 'revenue', 'averageOrderValue', 'uniqueCustomers'],
      filter: JSON.stringify({ currencyCode: 'XXX' }),
    });
    expect(response.json().data).toEqual([{ count: 0, revenue: 0, averageOrderValue: null, uniqueCustomers: 0 }]);
    const grouped = await post(a.key, {
      resource: 'orders',
      measures: ['count'],
      groupBy: ['currencyCode'],
      filter: JSON.stringify({ currencyCode: 'XXX' }),
    });
    expect(grouped.json()).toMatchObject({ data: [], meta: { truncated: false } });
  });

  it('values keep their types: booleans, integers, null; dates as UTC bucket starts with milliseconds', async () => {
    const response = await post(a.key, {
      resource: 'reviews',
      measures: ['count'],
      groupBy: ['published', 'rating', 'language'],
      limit: 500,
      timezone: 'UTC',
    });
    const rows = response.json<{ data: Row[] }>().data;
    expect(rows.every((row) => typeof row.published === 'boolean' && Number.isInteger(row.rating))).toBe(true);
    expect(rows.some((row) => row.language === null)).toBe(true);
  });

  it('with fillGaps false only buckets holding rows appear', async () => {
    const rows = await check({
      resource: 'orders',
      measures: ['count'],
      groupBy: ['createdAt'],
      granularity: 'day',
      timezone: 'UTC',
      fillGaps: false,
    });
    expect(rows.every((row) => Number(row.count) > 0)).toBe(true);
  });
});

describe('tenancy', () => {
  it("another organization's rows never count", async () => {
    for (const resource of [
      'orders',
      'customers',
      'products',
      'reviews',
      'review-answers',
      'loyalty-members',
      'loyalty-activity',
      'loyalty-rewards',
    ]) {
      const query: RefQuery = {
        resource,
        measures: ['count'],
        groupBy: ['createdAt'],
        granularity: 'year',
        timezone: 'UTC',
      };
      const fromA = await check(query);
      const fromB = await check(query, b, dataB);
      expect(fromA).not.toEqual(fromB);
    }
    // Filtering on the other organization's customer finds nothing.
    const customerOfB = dataB.orders[0]!['customer.id'];
    const response = await post(a.key, {
      resource: 'orders',
      measures: ['count'],
      filter: JSON.stringify({ 'customer.id': customerOfB }),
    });
    expect(response.json().data).toEqual([{ count: 0 }]);
  });
});

describe('validation (D3)', () => {
  const refused = async (body: unknown, path: string, message?: RegExp) => {
    const response = await post(a.key, body);
    expect(response.statusCode, response.body).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details?.map((detail: { path: string }) => detail.path)).toContain(path);
    if (message) expect(error.message).toMatch(message);
    return error;
  };
  const base = { resource: 'orders', measures: ['count'] };

  it('measures and dimensions outside the whitelist name what is allowed', async () => {
    await refused(
      { ...base, measures: ['count', 'avgRating'] },
      'body.measures[1]',
      /not a measure of orders; measures: count, revenue, averageOrderValue, uniqueCustomers/,
    );
    await refused(
      { resource: 'loyalty-rewards', measures: ['revenue'] },
      'body.measures[0]',
      /measures: count, redeemedCount/,
    );
    await refused(
      { ...base, groupBy: ['title'] },
      'body.groupBy[0]',
      /not a dimension of orders; dimensions: createdAt, .*tags\.name, metadata\.<key>/,
    );
    await refused(
      { resource: 'loyalty-members', measures: ['count'], groupBy: ['metadata.x'] },
      'body.groupBy[0]',
      /not a dimension of loyalty-members/,
    );
    await refused({ ...base, measures: [] }, 'body.measures');
    await refused({ ...base, measures: ['count', 'count'] }, 'body.measures[1]', /once/);
    await refused({ ...base, groupBy: ['currencyCode', 'currencyCode'] }, 'body.groupBy[1]');
    await refused({ resource: 'invoices', measures: ['count'] }, 'body.resource');
    await refused({ measures: ['count'] }, 'body.resource');
    await refused({ resource: 'orders' }, 'body.measures');
  });

  it('at most three dimensions, at most one a date', async () => {
    await refused({ ...base, groupBy: ['currencyCode', 'tags.name', 'siteId', 'createdAt'] }, 'body.groupBy');
    await refused(
      { ...base, groupBy: ['createdAt', 'shippedAt'] },
      'body.groupBy',
      /createdAt, shippedAt are all dates/,
    );
  });

  it('limit 1..500, a known granularity, an IANA zone', async () => {
    await refused({ ...base, groupBy: ['currencyCode'], limit: 0 }, 'body.limit');
    await refused({ ...base, groupBy: ['currencyCode'], limit: 501 }, 'body.limit');
    await refused({ ...base, limit: 2.5 }, 'body.limit');
    await refused({ ...base, granularity: 'minute' }, 'body.granularity');
    await refused({ ...base, timezone: 'Mars/Olympus' }, 'body.timezone', /Unknown time zone "Mars\/Olympus"/);
    await refused({ ...base, timezone: 'EST5EDT,M3.2.0,M11.1.0' }, 'body.timezone');
    await refused({ ...base, timezone: '+05:00' }, 'body.timezone');
    await refused({ ...base, fillGaps: 'yes' }, 'body.fillGaps');
    await refused({ ...base, extra: 1 }, 'body.extra');
  });

  it('the filter is checked like the list endpoint checks it, reported under body.filter', async () => {
    await refused({ ...base, filter: '{"title":"x"}' }, 'body.filter.title', /not a filterable field of orders/);
    await refused({ ...base, filter: '{"createdAt":{"$gte":"2024-01-01"}}' }, 'body.filter.createdAt.$gte');
    await refused({ ...base, filter: '{not json' }, 'body.filter', /not valid JSON/);
    await refused({ ...base, filter: '[]' }, 'body.filter');
    await refused(
      { resource: 'review-answers', measures: ['count'], filter: '{"question":"Fit"}' },
      'body.filter.question',
    );
    await refused(
      { ...base, filter: '{"createdAt":{"$gte":"0000-01-01T00:00:00Z"}}' },
      'body.filter.createdAt.$gte',
      /years 0001 and 9999/,
    );
    await refused(
      { ...base, filter: JSON.stringify({ 'tags.name': { $in: Array.from({ length: 501 }, (_, i) => `t${i}`) } }) },
      'body.filter.tags.name.$in',
    );
    await refused({ ...base, filter: 'x'.repeat(16 * 1024 + 1) }, 'body.filter');
  });

  it('metadata keys: 1..40 characters, no NUL', async () => {
    await refused({ ...base, groupBy: ['metadata.'] }, 'body.groupBy[0]');
    await refused({ ...base, groupBy: [`metadata.${'k'.repeat(41)}`] }, 'body.groupBy[0]');
    await refused({ ...base, groupBy: ['metadata.a\u0000b'] }, 'body.groupBy[0]');
    const response = await post(a.key, { ...base, groupBy: ['metadata.never used'] });
    expect(response.json().data).toEqual([{ 'metadata.never used': null, count: dataA.orders.length }]);
  });

  it('a series too long for one answer is refused, not truncated', async () => {
    const twoYears = JSON.stringify({ createdAt: { $gte: '2023-01-01T00:00:00Z', $lt: '2025-01-01T00:00:00Z' } });
    await refused(
      { ...base, groupBy: ['createdAt'], granularity: 'hour', filter: twoYears },
      'body.granularity',
      /more than 10000 hour buckets/,
    );
    await refused(
      {
        ...base,
        groupBy: ['createdAt'],
        granularity: 'day',
        filter: JSON.stringify({ createdAt: { $gte: '1970-01-01T00:00:00Z', $lt: '2100-01-01T00:00:00Z' } }),
      },
      'body.granularity',
    );
    const unfilled = await post(a.key, {
      ...base,
      groupBy: ['createdAt'],
      granularity: 'hour',
      fillGaps: false,
      filter: twoYears,
    });
    expect(unfilled.statusCode).toBe(200);
  });

  it('malformed bodies', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/analytics/query',
      key: a.key,
      body: '{"resource":',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect((await post(a.key, { ...base, measures: 'count' })).statusCode).toBe(400);
    expect((await post(a.key, { ...base, groupBy: [1] })).statusCode).toBe(400);
  });
});

describe('permissions and cost', () => {
  const base = { resource: 'orders', measures: ['count'] };
  const left = (response: { headers: Record<string, unknown> }) =>
    Number(/r=(\d+)/.exec(String(response.headers.ratelimit))![1]);

  it('the query costs 5 tokens, the schema 1', async () => {
    // 60 a minute refills one token a second: the three requests run well within it.
    const tenant = await t.tenant({ apiRequestsPerMinute: 60 });
    const first = await post(tenant.key, base);
    expect(first.statusCode).toBe(200);
    expect(left(first)).toBe(55);
    const second = await post(tenant.key, base);
    expect(left(second)).toBe(50);
    const schema = await t.request({ url: '/v1/analytics/schema', key: tenant.key });
    expect(schema.statusCode).toBe(200);
    expect(left(schema)).toBe(49);
  });

  it('analytics:read is needed for both endpoints', async () => {
    const reader = await t.key(a.organization.id, ['analytics:read']);
    const other = await t.key(a.organization.id, ['orders:read', 'reviews:read', 'loyalty:read', 'products:read']);
    const forbidden = await post(other, base);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('analytics:read'),
    });
    expect((await t.request({ url: '/v1/analytics/schema', key: other })).statusCode).toBe(403);
    expect((await t.request({ url: '/v1/analytics/schema' })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/v1/analytics/query', body: base })).statusCode).toBe(401);
    expect((await post(reader, base)).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/analytics/schema', key: reader })).statusCode).toBe(200);
  });
});

describe('GET /v1/analytics/schema', () => {
  it('lists the eight resources with exactly the measures of service.md, each measure and dimension described', async () => {
    const response = await t.request({ url: '/v1/analytics/schema', key: a.key });
    expect(response.statusCode).toBe(200);
    const resources = response.json().data as {
      resource: string;
      measures: { name: string; type: string; description: string }[];
      dimensions: { name: string; type: string; description: string; values?: string[] }[];
    }[];
    expect(
      Object.fromEntries(
        resources.map((resource) => [resource.resource, resource.measures.map((measure) => measure.name)]),
      ),
    ).toEqual({
      reviews: [
        'count',
        'avgRating',
        'publishedCount',
        'flaggedCount',
        'verifiedBuyerCount',
        'uniqueCustomers',
        'uniqueProducts',
      ],
      'review-answers': ['count', 'averageStep', 'uniqueReviews'],
      orders: ['count', 'revenue', 'averageOrderValue', 'uniqueCustomers'],
      customers: ['count', 'subscribedCount', 'optedOutCount'],
      products: ['count', 'reviewedCount'],
      'loyalty-members': ['count', 'activeCount'],
      'loyalty-activity': ['count', 'pointsEarned', 'pointsSpent'],
      'loyalty-rewards': ['count', 'redeemedCount'],
    });
    for (const resource of resources) {
      for (const item of [...resource.measures, ...resource.dimensions])
        expect(item.description.length).toBeGreaterThan(15);
      expect(resource.dimensions.some((dimension) => dimension.name === 'createdAt' && dimension.type === 'date')).toBe(
        true,
      );
      for (const dimension of resource.dimensions.filter((d) => d.type === 'enum'))
        expect(dimension.values!.length).toBeGreaterThan(1);
    }
    const orders = resources.find((resource) => resource.resource === 'orders')!;
    expect(orders.dimensions.map((dimension) => dimension.name)).toEqual(
      expect.arrayContaining([
        'createdAt',
        'shippedAt',
        'currencyCode',
        'customer.id',
        'customer.country',
        'items.productId',
        'tags.name',
        'metadata.<key>',
      ]),
    );
    expect(orders.measures.find((measure) => measure.name === 'revenue')!.description).toMatch(/cents.*currencyCode/s);
  });
});

describe('sums past 2^53 - 1', () => {
  it('answers a revenue up to 2^53 - 1 exactly, and refuses one beyond with 422 instead of rounding it', async () => {
    const tenant = await t.tenant();
    const post = (url: string, body: unknown) => t.request({ method: 'POST', url, key: tenant.key, body });
    expect((await post('/v1/sites', { data: { name: 'Huge', domain: 'huge.example' } })).statusCode).toBe(201);
    expect((await post('/v1/customers/import', { data: [{ email: 'big@example.com' }] })).statusCode).toBe(200);
    const huge = Number.MAX_SAFE_INTEGER; // the largest totalCents an order may have
    const imported = await post('/v1/orders/import', {
      data: [
        { site: 'huge.example', customer: 'big@example.com', remoteId: 'huge-1', number: '#1', totalCents: huge },
        { site: 'huge.example', customer: 'big@example.com', remoteId: 'huge-2', number: '#2', totalCents: 1 },
      ],
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const query = (filter?: object) =>
      post('/v1/analytics/query', {
        resource: 'orders',
        measures: ['revenue', 'count'],
        ...(filter ? { filter: JSON.stringify(filter) } : {}),
      });

    const exact = await query({ number: '#1' });
    expect(exact.statusCode, exact.body).toBe(200);
    expect(exact.json().data).toEqual([{ revenue: huge, count: 1 }]);

    const beyond = await query();
    expect(beyond.statusCode, beyond.body).toBe(422);
    expect(beyond.json().error).toMatchObject({
      code: 'UNPROCESSABLE',
      message: expect.stringMatching(/9007199254740992/),
    });
  });
});
