/**
 * Targeted cases of the list engine (D8–D11): every operator on every value type, the limits of a filter
 * document, cursors, page sizes, includes, and hostile input. Products cover uuid, string, timestamp, metadata
 * and to-many fields; a test-only resource over product variants (`/v1/probe-variants`) plugs into the platform
 * like any resource to cover integer, boolean and enum fields, a to-one join and a nullable sort.
 */
import { sql } from 'kysely';
import Type from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authOf } from '../../src/http/auth.js';
import type { ResourceModule } from '../../src/core/types.js';
import { compileSelection, listPage } from '../../src/lists/engine.js';
import { listQuerySchema } from '../../src/lists/query.js';
import { chooseRowByRow } from '../../src/lists/related.js';
import type { ListDefinition } from '../../src/lists/types.js';
import { listEnvelope } from '../../src/records/envelope.js';
import { productList } from '../../src/resources/products/list.js';
import { allResources, startTestApp, type TestApp, type Tenant } from '../support/app.js';

const probeList: ListDefinition = {
  name: 'probe variants',
  from: 'product_variants v',
  alias: 'v',
  select: 'v.*',
  joins: { product: 'join products pr on pr.organization_id = v.organization_id and pr.id = v.product_id' },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'v.id' },
    slug: { type: 'string', column: 'v.slug' },
    priceCents: { type: 'integer', column: 'v.price_cents' },
    available: { type: 'boolean', column: 'v.available' },
    currencyCode: { type: 'enum', column: 'v.currency_code', enumValues: ['USD', 'EUR', 'GBP'] },
    createdAt: { type: 'timestamp', column: 'v.created_at' },
    metadata: { type: 'metadata', column: 'v.metadata' },
    'product.title': { type: 'string', column: 'pr.title', join: 'product' },
  },
  sorts: {
    priceCents: { column: 'v.price_cents', type: 'integer', nullable: false },
    createdAt: { column: 'v.created_at', type: 'timestamp', nullable: false },
    slug: { column: 'v.slug', type: 'string', nullable: false },
    rank: { column: "(v.metadata ->> 'rank')", type: 'string', nullable: true },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`v.slug ilike ${pattern}`,
  includes: {},
};

const ProbeVariant = Type.Object({ id: Type.String(), slug: Type.String() });

const probeResource: ResourceModule = {
  name: 'probe-variants',
  routes(app, { db }) {
    app.get(
      '/probe-variants',
      {
        config: { permission: 'products:read', cost: 1 },
        schema: { querystring: listQuerySchema(probeList), response: { 200: listEnvelope(ProbeVariant) } },
      },
      async (request) => {
        const page = await listPage<{ id: string; slug: string }>(
          db,
          probeList,
          authOf(request).organizationId,
          request.query,
        );
        return { data: page.rows.map((row) => ({ id: row.id, slug: row.slug })), nextCursor: page.nextCursor };
      },
    );
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ resources: [...allResources, probeResource] });
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const q = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
const tenant = () => t.tenant({ apiRequestsPerMinute: 1_000_000 });

async function importProducts(who: Tenant, rows: unknown[]) {
  const response = await t.request({ method: 'POST', url: '/v1/products/import', key: who.key, body: { data: rows } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as any[];
}

async function list(who: Tenant, url: string) {
  const response = await t.request({ url, key: who.key });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json() as { data: any[]; nextCursor: string | null };
}

async function walk(who: Tenant, url: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const body = await list(
      who,
      `${url}${cursor ? `${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...body.data);
    cursor = body.nextCursor;
  } while (cursor);
  return rows;
}

async function refused(who: Tenant, url: string, path: string, message?: string | RegExp) {
  const response = await t.request({ url, key: who.key });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
  const { error } = response.json();
  expect(error.code).toBe('VALIDATION_ERROR');
  expect(error.details[0].path, url).toBe(path);
  if (message) expect(`${error.message} ${error.details[0].message}`).toMatch(message);
}

const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');

describe('operators on every value type (probe over variants)', () => {
  let owner: Tenant;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    owner = await tenant();
    await importProducts(owner, [
      {
        slug: 'alpha',
        title: 'Alpha Tee',
        variants: [
          {
            slug: 'v-cheap',
            priceCents: 100,
            currencyCode: 'USD',
            available: true,
            metadata: { rank: 'b', note: '50% off' },
          },
          { slug: 'v-mid', priceCents: 2500, currencyCode: 'EUR', available: false, metadata: { rank: 'a' } },
        ],
      },
      {
        slug: 'beta',
        title: 'Beta Cap',
        variants: [
          { slug: 'v-dear', priceCents: 99999, currencyCode: 'GBP', available: true },
          { slug: 'v-free', priceCents: 0, currencyCode: 'USD', available: false, metadata: { note: 'back\\slash_x' } },
        ],
      },
    ]);
    const created: Record<string, string> = {
      'v-cheap': '2026-01-01T00:00:00Z',
      'v-mid': '2026-01-02T00:00:00Z',
      'v-dear': '2026-01-03T00:00:00Z',
      'v-free': '2026-01-03T00:00:00Z',
    };
    for (const [slug, at] of Object.entries(created)) {
      const { rows } = await sql<{ id: string }>`update product_variants set created_at = ${at}::timestamptz
        where organization_id = ${owner.organization.id}::uuid and slug = ${slug} returning id`.execute(db());
      id[slug] = rows[0]!.id;
    }
  });

  const slugsFor = async (filter: unknown) =>
    (await walk(owner, `/v1/probe-variants?sort=slug&limit=2&filter=${q(filter)}`)).map((row) => row.slug);

  it('integer', async () => {
    const cases: [unknown, string[]][] = [
      [{ priceCents: 2500 }, ['v-mid']],
      [{ priceCents: { $eq: 0 } }, ['v-free']],
      [{ priceCents: { $ne: 100 } }, ['v-dear', 'v-free', 'v-mid']],
      [{ priceCents: { $gt: 100 } }, ['v-dear', 'v-mid']],
      [{ priceCents: { $gte: 100 } }, ['v-cheap', 'v-dear', 'v-mid']],
      [{ priceCents: { $lt: 2500 } }, ['v-cheap', 'v-free']],
      [{ priceCents: { $lte: 0 } }, ['v-free']],
      [{ priceCents: { $gt: 0, $lt: 99999 } }, ['v-cheap', 'v-mid']],
      [{ priceCents: { $in: [0, 99999, 7] } }, ['v-dear', 'v-free']],
      [{ priceCents: { $nin: [0] } }, ['v-cheap', 'v-dear', 'v-mid']],
      [{ priceCents: { $exists: true } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
      [{ priceCents: { $exists: false } }, []],
      [{ priceCents: null }, []],
      [{ priceCents: { $ne: null } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
      [{ priceCents: { $gt: -9007199254740991 } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ priceCents: '100' }, 'query.filter.priceCents', /integer/],
      [{ priceCents: 1.5 }, 'query.filter.priceCents', /integer/],
      [{ priceCents: 9007199254740992 }, 'query.filter.priceCents', /integer/],
      [{ priceCents: { $gt: null } }, 'query.filter.priceCents.$gt', /integer/],
      [{ priceCents: { $gte: true } }, 'query.filter.priceCents.$gte', /integer/],
      [{ priceCents: { $in: [1, '2'] } }, 'query.filter.priceCents.$in[1]', /integer/],
      [{ priceCents: { $nin: 1 } }, 'query.filter.priceCents.$nin', /non-empty array/],
      [{ priceCents: { $contains: '1' } }, 'query.filter.priceCents.$contains', /text fields only/],
      [{ priceCents: { $startsWith: '1' } }, 'query.filter.priceCents.$startsWith', /text fields only/],
      [{ priceCents: { $exists: 'yes' } }, 'query.filter.priceCents.$exists', /true or false/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('boolean', async () => {
    const cases: [unknown, string[]][] = [
      [{ available: true }, ['v-cheap', 'v-dear']],
      [{ available: { $eq: false } }, ['v-free', 'v-mid']],
      [{ available: { $ne: true } }, ['v-free', 'v-mid']],
      [{ available: { $in: [false] } }, ['v-free', 'v-mid']],
      [{ available: { $nin: [false] } }, ['v-cheap', 'v-dear']],
      [{ available: { $in: [true, false] } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
      [{ available: { $exists: true } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ available: 'true' }, 'query.filter.available', /true or false/],
      [{ available: 1 }, 'query.filter.available', /true or false/],
      [{ available: { $gt: false } }, 'query.filter.available.$gt', /does not apply to boolean/],
      [{ available: { $lte: true } }, 'query.filter.available.$lte', /does not apply to boolean/],
      [{ available: { $contains: 't' } }, 'query.filter.available.$contains', /text fields only/],
      [{ available: { $in: [0] } }, 'query.filter.available.$in[0]', /true or false/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('enum', async () => {
    const cases: [unknown, string[]][] = [
      [{ currencyCode: 'USD' }, ['v-cheap', 'v-free']],
      [{ currencyCode: { $ne: 'USD' } }, ['v-dear', 'v-mid']],
      [{ currencyCode: { $in: ['EUR', 'GBP'] } }, ['v-dear', 'v-mid']],
      [{ currencyCode: { $nin: ['EUR', 'GBP'] } }, ['v-cheap', 'v-free']],
      [{ currencyCode: { $exists: false } }, []],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ currencyCode: 'JPY' }, 'query.filter.currencyCode', /one of "USD", "EUR", "GBP"/],
      [{ currencyCode: 'usd' }, 'query.filter.currencyCode', /one of/],
      [{ currencyCode: 1 }, 'query.filter.currencyCode', /one of/],
      [{ currencyCode: { $in: ['USD', 'XXX'] } }, 'query.filter.currencyCode.$in[1]', /one of/],
      [{ currencyCode: { $gt: 'EUR' } }, 'query.filter.currencyCode.$gt', /does not apply to enum/],
      [{ currencyCode: { $contains: 'US' } }, 'query.filter.currencyCode.$contains', /text fields only/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('timestamp', async () => {
    const cases: [unknown, string[]][] = [
      [{ createdAt: '2026-01-03T00:00:00Z' }, ['v-dear', 'v-free']],
      [{ createdAt: '2026-01-03T01:00:00+01:00' }, ['v-dear', 'v-free']],
      [{ createdAt: '2026-01-02T19:00:00.000-05:00' }, ['v-dear', 'v-free']],
      [{ createdAt: { $ne: '2026-01-03T00:00:00Z' } }, ['v-cheap', 'v-mid']],
      [{ createdAt: { $gt: '2026-01-02T00:00:00Z' } }, ['v-dear', 'v-free']],
      [{ createdAt: { $gte: '2026-01-02T00:00:00Z' } }, ['v-dear', 'v-free', 'v-mid']],
      [{ createdAt: { $lt: '2026-01-02T00:00:00.001Z' } }, ['v-cheap', 'v-mid']],
      [{ createdAt: { $lte: '2026-01-01T00:00:00Z' } }, ['v-cheap']],
      [{ createdAt: { $gte: '2026-01-01T12:00Z', $lt: '2026-01-03T00:00:00Z' } }, ['v-mid']],
      [{ createdAt: { $in: ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'] } }, ['v-cheap', 'v-mid']],
      [{ createdAt: { $nin: ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'] } }, ['v-dear', 'v-free']],
      [{ createdAt: { $exists: true } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path] of [
      [{ createdAt: '2026-01-03' }, 'query.filter.createdAt'],
      [{ createdAt: '2026-01-03T00:00:00' }, 'query.filter.createdAt'],
      [{ createdAt: '2026-02-30T00:00:00Z' }, 'query.filter.createdAt'],
      [{ createdAt: '2026-13-01T00:00:00Z' }, 'query.filter.createdAt'],
      [{ createdAt: 'yesterday' }, 'query.filter.createdAt'],
      [{ createdAt: 1767225600000 }, 'query.filter.createdAt'],
      [{ createdAt: { $gt: '2026-01-03 00:00:00Z' } }, 'query.filter.createdAt.$gt'],
      [{ createdAt: { $in: ['2026-01-01T00:00:00Z', 'x'] } }, 'query.filter.createdAt.$in[1]'],
      [{ createdAt: { $contains: '2026' } }, 'query.filter.createdAt.$contains'],
      [{ createdAt: '0000-01-01T00:00:00Z' }, 'query.filter.createdAt'],
      [{ createdAt: { $gt: '0001-01-01T00:30:00+01:00' } }, 'query.filter.createdAt.$gt'],
    ] as const) {
      await refused(
        owner,
        `/v1/probe-variants?filter=${q(filter)}`,
        path,
        /ISO 8601|text fields only|years 0001 and 9999/,
      );
    }
  });

  it('uuid', async () => {
    const cases: [unknown, string[]][] = [
      [{ id: id['v-mid'] }, ['v-mid']],
      [{ id: id['v-mid']!.toUpperCase() }, ['v-mid']],
      [{ id: { $ne: id['v-mid'] } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ id: { $in: [id['v-mid'], id['v-free'], uuidv7()] } }, ['v-free', 'v-mid']],
      [{ id: { $nin: [id['v-mid'], id['v-free']] } }, ['v-cheap', 'v-dear']],
      [{ id: { $exists: true } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
      [{ id: uuidv7() }, []],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ id: 'abc' }, 'query.filter.id', /UUID/],
      [{ id: 123 }, 'query.filter.id', /UUID/],
      [{ id: `${id['v-mid']}'` }, 'query.filter.id', /UUID/],
      [{ id: { $gt: id['v-mid'] } }, 'query.filter.id.$gt', /does not apply to uuid/],
      [{ id: { $contains: 'a' } }, 'query.filter.id.$contains', /text fields only/],
      [{ id: { $in: ['nope'] } }, 'query.filter.id.$in[0]', /UUID/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('string', async () => {
    const cases: [unknown, string[]][] = [
      [{ slug: 'v-mid' }, ['v-mid']],
      [{ slug: 'V-MID' }, []],
      [{ slug: { $ne: 'v-mid' } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ slug: { $gt: 'v-dear' } }, ['v-free', 'v-mid']],
      [{ slug: { $gte: 'v-dear' } }, ['v-dear', 'v-free', 'v-mid']],
      [{ slug: { $lt: 'v-dear' } }, ['v-cheap']],
      [{ slug: { $lte: 'v-dear' } }, ['v-cheap', 'v-dear']],
      [{ slug: { $in: ['v-mid', 'v-free', 'nope'] } }, ['v-free', 'v-mid']],
      [{ slug: { $nin: ['v-mid', 'v-free'] } }, ['v-cheap', 'v-dear']],
      [{ slug: { $contains: 'E' } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ slug: { $startsWith: 'V-M' } }, ['v-mid']],
      [{ slug: { $startsWith: 'mid' } }, []],
      [{ slug: { $exists: true } }, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
      [{ 'product.title': 'Alpha Tee' }, ['v-cheap', 'v-mid']],
      [{ 'product.title': { $contains: 'cap' } }, ['v-dear', 'v-free']],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ slug: 5 }, 'query.filter.slug', /string/],
      [{ slug: ['v-mid'] }, 'query.filter.slug', /string/],
      [{ slug: { $gt: 5 } }, 'query.filter.slug.$gt', /string/],
      [{ slug: { $contains: '' } }, 'query.filter.slug.$contains', /non-empty string/],
      [{ slug: { $contains: 5 } }, 'query.filter.slug.$contains', /non-empty string/],
      [{ slug: { $startsWith: null } }, 'query.filter.slug.$startsWith', /non-empty string/],
      [{ slug: { $in: [] } }, 'query.filter.slug.$in', /non-empty array/],
      [{ slug: { $in: 'v-mid' } }, 'query.filter.slug.$in', /non-empty array/],
      [{ slug: { $in: ['a', 3] } }, 'query.filter.slug.$in[1]', /string/],
      [{ slug: 'x'.repeat(1001) }, 'query.filter.slug', /1000 characters/],
      [{ slug: { $contains: 'x'.repeat(1001) } }, 'query.filter.slug.$contains', /1000 characters/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('metadata keys, null and missing values, and $not', async () => {
    const cases: [unknown, string[]][] = [
      [{ 'metadata.rank': 'a' }, ['v-mid']],
      [{ 'metadata.rank': null }, ['v-dear', 'v-free']],
      [{ 'metadata.rank': { $eq: null } }, ['v-dear', 'v-free']],
      [{ 'metadata.rank': { $exists: false } }, ['v-dear', 'v-free']],
      [{ 'metadata.rank': { $exists: true } }, ['v-cheap', 'v-mid']],
      [{ 'metadata.rank': { $ne: null } }, ['v-cheap', 'v-mid']],
      [{ 'metadata.rank': { $ne: 'a' } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ 'metadata.rank': { $nin: ['a'] } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ 'metadata.rank': { $nin: [null, 'a'] } }, ['v-cheap']],
      [{ 'metadata.rank': { $in: [null, 'a'] } }, ['v-dear', 'v-free', 'v-mid']],
      [{ 'metadata.rank': { $in: ['a', 'b'] } }, ['v-cheap', 'v-mid']],
      [{ 'metadata.rank': { $gt: 'a' } }, ['v-cheap']],
      [{ 'metadata.rank': { $lte: 'b' } }, ['v-cheap', 'v-mid']],
      [{ 'metadata.note': { $contains: '%' } }, ['v-cheap']],
      [{ 'metadata.note': { $contains: '\\' } }, ['v-free']],
      [{ 'metadata.note': { $contains: '_' } }, ['v-free']],
      [{ 'metadata.note': { $startsWith: 'BACK\\S' } }, ['v-free']],
      [{ 'metadata.note': { $startsWith: '50%' } }, ['v-cheap']],
      [{ 'metadata.note': { $startsWith: '5_%' } }, []],
      [{ 'metadata.missing': { $contains: 'a' } }, []],
      [{ $not: { 'metadata.rank': 'a' } }, ['v-cheap', 'v-dear', 'v-free']],
      [{ $not: { 'metadata.rank': { $gt: 'a' } } }, ['v-dear', 'v-free', 'v-mid']],
      [{ $not: { $not: { 'metadata.rank': { $gt: 'a' } } } }, ['v-cheap']],
      [{ $or: [{ 'metadata.rank': { $gt: 'a' } }, { priceCents: 0 }] }, ['v-cheap', 'v-free']],
      [
        { $and: [{ available: true }, { $or: [{ 'metadata.rank': null }, { priceCents: { $lt: 200 } }] }] },
        ['v-cheap', 'v-dear'],
      ],
      [{}, ['v-cheap', 'v-dear', 'v-free', 'v-mid']],
    ];
    for (const [filter, expected] of cases) expect(await slugsFor(filter), JSON.stringify(filter)).toEqual(expected);
    for (const [filter, path, message] of [
      [{ metadata: { rank: 'a' } }, 'query.filter.metadata', /one metadata key at a time/],
      [{ metadata: 'a' }, 'query.filter.metadata', /one metadata key at a time/],
      [{ 'metadata.': 'a' }, 'query.filter.metadata.', /not a filterable field/],
      [{ [`metadata.${'k'.repeat(41)}`]: 'a' }, `query.filter.metadata.${'k'.repeat(41)}`, /not a filterable field/],
      [{ 'metadata.rank': 1 }, 'query.filter.metadata.rank', /string/],
      [{ 'metadata.rank': { $gt: true } }, 'query.filter.metadata.rank.$gt', /string/],
    ] as const) {
      await refused(owner, `/v1/probe-variants?filter=${q(filter)}`, path, message);
    }
  });

  it('sorts a nullable column with nulls last in both directions, across cursor pages', async () => {
    const byId = (a: string, b: string) => (id[a]! < id[b]! ? -1 : 1);
    const ascending = ['v-mid', 'v-cheap', ...['v-dear', 'v-free'].sort(byId)];
    const descending = ['v-cheap', 'v-mid', ...['v-dear', 'v-free'].sort(byId).reverse()];
    for (const limit of [1, 2, 3, 10]) {
      expect(
        (await walk(owner, `/v1/probe-variants?sort=rank&limit=${limit}`)).map((row) => row.slug),
        `rank ${limit}`,
      ).toEqual(ascending);
      expect(
        (await walk(owner, `/v1/probe-variants?sort=-rank&limit=${limit}`)).map((row) => row.slug),
        `-rank ${limit}`,
      ).toEqual(descending);
    }
    // A cursor positioned on a null sort value.
    const first = await list(owner, '/v1/probe-variants?sort=rank&limit=3');
    expect(decode(first.nextCursor!).v).toBeNull();
    const rest = await list(owner, `/v1/probe-variants?sort=rank&limit=3&cursor=${q(first.nextCursor!)}`);
    expect(rest.data.map((row) => row.slug)).toEqual(ascending.slice(3));
  });
});

describe('filter documents: shape and limits', () => {
  let owner: Tenant;
  beforeAll(async () => {
    owner = await tenant();
    await importProducts(owner, [{ slug: 'one', title: 'One' }]);
  });
  const url = (filter: unknown) => `/v1/products?filter=${q(filter)}`;

  it('refuses unknown fields and operators, naming them', async () => {
    await refused(
      owner,
      url({ price: 1 }),
      'query.filter.price',
      /filterable: id, slug, title, metadata.<key>, createdAt, tags.name/,
    );
    await refused(
      owner,
      url({ $or: [{ title: 'x' }, { nope: 1 }] }),
      'query.filter.$or[1].nope',
      /not a filterable field/,
    );
    await refused(owner, url({ title: { $regex: '.*' } }), 'query.filter.title.$regex', /not an operator/);
    await refused(owner, url({ title: { $eq: 'x', $like: 'x' } }), 'query.filter.title.$like', /not an operator/);
    await refused(owner, url({ $where: 'true' }), 'query.filter.$where', /not a logical operator/);
    await refused(owner, url({ $nor: [{ title: 'x' }] }), 'query.filter.$nor', /not a logical operator/);
    await refused(owner, url({ title: {} }), 'query.filter.title', /at least one operator/);
    await refused(owner, url({ 'tags.name': { $gt: 1 } }), 'query.filter.tags.name.$gt', /string/);
    await refused(owner, url({ 'tags.id': 'x' }), 'query.filter.tags.id', /not a filterable field/);
    await refused(
      owner,
      url({ 'variants.metadata.': 'x' }),
      'query.filter.variants.metadata.',
      /not a filterable field/,
    );
  });

  it('refuses malformed logical operators', async () => {
    await refused(owner, url({ $and: [] }), 'query.filter.$and', /non-empty array/);
    await refused(owner, url({ $and: { title: 'x' } }), 'query.filter.$and', /non-empty array/);
    await refused(owner, url({ $or: [1] }), 'query.filter.$or[0]', /filter object/);
    await refused(owner, url({ $or: [[{ title: 'x' }]] }), 'query.filter.$or[0]', /filter object/);
    await refused(owner, url({ $not: [] }), 'query.filter.$not', /filter object/);
    await refused(owner, url({ $not: 'x' }), 'query.filter.$not', /filter object/);
    await refused(owner, url({ $not: null }), 'query.filter.$not', /filter object/);
  });

  it('refuses malformed JSON and documents that are not objects', async () => {
    for (const raw of ['{', '{"title":}', "{'title':'x'}", 'title=x', '{"title":"x"}}', 'undefined']) {
      await refused(owner, `/v1/products?filter=${q(raw)}`, 'query.filter', /not valid JSON/);
    }
    for (const raw of ['[]', '[{"title":"x"}]', '"title"', '1', 'null', 'true']) {
      await refused(owner, `/v1/products?filter=${q(raw)}`, 'query.filter', /JSON object/);
    }
    // An empty document, or an empty parameter, selects everything.
    expect((await list(owner, `/v1/products?filter=${q({})}`)).data).toHaveLength(1);
    expect((await list(owner, '/v1/products?filter=')).data).toHaveLength(1);
  });

  it('allows 5 levels of nesting and refuses 6', async () => {
    const nest = (levels: number): Record<string, unknown> =>
      levels === 1 ? { title: 'One' } : { $and: [nest(levels - 1)] };
    expect((await list(owner, url(nest(5)))).data).toHaveLength(1);
    expect((await list(owner, url({ $not: { $not: { $or: [{ $and: [{ title: 'One' }] }] } } }))).data).toHaveLength(1);
    await refused(owner, url(nest(6)), 'query.filter.$and[0].$and[0].$and[0].$and[0].$and[0]', /deeper than 5 levels/);
    await refused(
      owner,
      url({ $not: { $not: { $not: { $not: { $not: { title: 'x' } } } } } }),
      'query.filter.$not.$not.$not.$not.$not',
      /deeper than 5/,
    );
  });

  it('allows 100 conditions and refuses 101', async () => {
    const conditions = (count: number) => ({
      $or: Array.from({ length: count }, (_, index) => ({ title: `t${index}` })),
    });
    const hundred = conditions(100);
    hundred.$or[99] = { title: 'One' };
    expect((await list(owner, url(hundred))).data).toHaveLength(1);
    await refused(owner, url(conditions(101)), 'query.filter.$or[100].title', /exceed 100 conditions/);
    // Several operators on one field count one each.
    const operators = Object.fromEntries(
      ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$contains', '$startsWith'].map((op) => [op, 'x']),
    );
    await refused(
      owner,
      url({ $or: Array.from({ length: 13 }, () => ({ title: operators })) }),
      'query.filter.$or[12].title',
      /exceed 100 conditions/,
    );
  });

  it('allows $in with 500 values and refuses 501', async () => {
    const values = (count: number) => Array.from({ length: count }, (_, index) => `t${index}`);
    expect((await list(owner, url({ title: { $in: [...values(499), 'One'] } }))).data).toHaveLength(1);
    expect((await list(owner, url({ title: { $nin: values(500) } }))).data).toHaveLength(1);
    await refused(owner, url({ title: { $in: values(501) } }), 'query.filter.title.$in', /at most 500 values/);
    await refused(owner, url({ title: { $nin: values(501) } }), 'query.filter.title.$nin', /at most 500 values/);
  });

  it('refuses documents over 16 KiB, counted in bytes', async () => {
    // A value over 1,000 characters is refused on its own; spread the bytes over several values instead.
    const spread = (bytes: number, char = 'x') => {
      const unit = Buffer.byteLength(char);
      const per = Math.floor(900 / unit);
      const values: string[] = [];
      let size = JSON.stringify({ title: { $in: ['One'] } }).length;
      while (size + (per * unit + 3) <= bytes) {
        values.push(char.repeat(per));
        size += per * unit + 3;
      }
      const document = { title: { $in: ['One', ...values] } };
      const rest = bytes - Buffer.byteLength(JSON.stringify(document)) - 3;
      if (rest > 0) document.title.$in.push('y'.repeat(rest));
      return JSON.stringify(document);
    };
    const exact = spread(16 * 1024);
    expect(Buffer.byteLength(exact)).toBe(16 * 1024);
    expect((await list(owner, `/v1/products?filter=${q(exact)}`)).data).toHaveLength(1);
    const over = spread(16 * 1024 + 1);
    expect(Buffer.byteLength(over)).toBe(16 * 1024 + 1);
    await refused(owner, `/v1/products?filter=${q(over)}`, 'query.filter');
    // Fewer than 16,384 characters but more than 16 KiB of UTF-8.
    const wide = spread(16 * 1024 + 2, 'é');
    expect(wide.length).toBeLessThan(16 * 1024);
    expect(Buffer.byteLength(wide)).toBeGreaterThan(16 * 1024);
    await refused(owner, `/v1/products?filter=${q(wide)}`, 'query.filter', /16 KiB/);
  });
});

describe('cursors, page sizes, sorts and includes', () => {
  let owner: Tenant;
  let rows: any[];
  beforeAll(async () => {
    owner = await tenant();
    rows = await importProducts(
      owner,
      Array.from({ length: 30 }, (_, index) => ({
        slug: `p${String(index).padStart(2, '0')}`,
        title: ['lamp', 'desk', 'chair', 'sofa'][index % 4],
        createdAt: new Date(Date.UTC(2026, 0, 1 + (index % 7))).toISOString(),
        tags: index % 3 === 0 ? ['third'] : [],
      })),
    );
    // A product without a counter row counts 0 (migration 0031).
    for (const [index, row] of rows.entries()) {
      if (index % 5)
        await db()
          .insertInto('product_wishlist_counts')
          .values({ organization_id: owner.organization.id, product_id: row.id, wishlists_count: index % 5 })
          .execute();
    }
  });

  it('a page deep in the list equals the same slice of one long page, for every sort', async () => {
    for (const sort of ['title', '-title', 'createdAt', '-createdAt', 'wishlistsCount', '-wishlistsCount']) {
      const whole = (await list(owner, `/v1/products?sort=${sort}&limit=250`)).data.map((row) => row.id);
      expect(whole).toHaveLength(30);
      let cursor: string | null = null;
      for (let page = 0; page < 3; page++) {
        const body = await list(owner, `/v1/products?sort=${sort}&limit=10${cursor ? `&cursor=${q(cursor)}` : ''}`);
        expect(
          body.data.map((row) => row.id),
          `${sort} page ${page}`,
        ).toEqual(whole.slice(page * 10, page * 10 + 10));
        cursor = body.nextCursor;
      }
      expect(cursor).toBeNull();
      // The same holds with a filter: every third product.
      const filtered = (await list(owner, `/v1/products?sort=${sort}&filter=${q({ 'tags.name': 'third' })}`)).data.map(
        (row) => row.id,
      );
      expect(filtered).toHaveLength(10);
      expect(
        (await walk(owner, `/v1/products?sort=${sort}&limit=3&filter=${q({ 'tags.name': 'third' })}`)).map(
          (row) => row.id,
        ),
      ).toEqual(filtered);
    }
  });

  it('keeps a walk stable while rows are inserted between pages', async () => {
    const who = await tenant();
    await importProducts(
      who,
      Array.from({ length: 8 }, (_, index) => ({ slug: `s${index}`, title: `m${index}` })),
    );
    const before = (await list(who, '/v1/products?sort=title&limit=250')).data.map((row) => row.slug);
    const first = await list(who, '/v1/products?sort=title&limit=3');
    await importProducts(who, [
      { slug: 'early', title: 'a' },
      { slug: 'late', title: 'z' },
    ]);
    let cursor = first.nextCursor;
    const seen = first.data.map((row) => row.slug);
    while (cursor) {
      const body = await list(who, `/v1/products?sort=title&limit=3&cursor=${q(cursor)}`);
      seen.push(...body.data.map((row) => row.slug));
      cursor = body.nextCursor;
    }
    // Every original row exactly once and in order; the row inserted before the cursor is not shown, the later one is.
    expect(seen).toEqual([...before, 'late']);
  });

  it('binds a cursor to its sort, filter and search', async () => {
    const filter = { title: { $in: ['lamp', 'desk'] }, 'tags.name': { $exists: false } };
    const first = await list(owner, `/v1/products?sort=title&limit=2&filter=${q(filter)}&search=p`);
    const cursor = q(first.nextCursor!);
    // The same query (keys in another order, any page size) accepts it.
    const reordered = { 'tags.name': { $exists: false }, title: { $in: ['lamp', 'desk'] } };
    expect(
      (await list(owner, `/v1/products?sort=title&limit=5&filter=${q(reordered)}&search=p&cursor=${cursor}`)).data
        .length,
    ).toBeGreaterThan(0);
    for (const query of [
      `sort=-title&filter=${q(filter)}&search=p`,
      `sort=createdAt&filter=${q(filter)}&search=p`,
      `filter=${q(filter)}&search=p`,
      `sort=title&search=p`,
      `sort=title&filter=${q({ title: { $in: ['lamp'] } })}&search=p`,
      `sort=title&filter=${q(filter)}`,
      `sort=title&filter=${q(filter)}&search=P0`,
    ]) {
      await refused(
        owner,
        `/v1/products?${query}&cursor=${cursor}`,
        'query.cursor',
        /different sort, filter or search/,
      );
    }
  });

  it('refuses tampered and garbage cursors', async () => {
    const first = await list(owner, '/v1/products?sort=createdAt&limit=2');
    const payload = decode(first.nextCursor!);
    expect(Object.keys(payload).sort()).toEqual(['b', 'i', 'v']);
    const variants = [
      encode({ ...payload, b: 'x' }),
      encode({ ...payload, i: 'not-a-uuid' }),
      encode({ ...payload, i: `${payload.i}' or '1'='1` }),
      encode({ ...payload, v: '2026-01-01T00:00:00Z' }),
      encode({ ...payload, v: "'; drop table products; --" }),
      encode({ ...payload, v: 5 }),
      encode({ ...payload, v: null }),
      encode({ b: payload.b, v: payload.v }),
      encode([payload]),
      encode(null),
      encode('cursor'),
      'abc',
      '!!!',
      'eyJ',
      Buffer.from('{"b":').toString('base64url'),
    ];
    for (const cursor of variants)
      await refused(owner, `/v1/products?sort=createdAt&limit=2&cursor=${q(cursor)}`, 'query.cursor', /cursor/);
    await refused(owner, `/v1/products?cursor=${'a'.repeat(2049)}`, 'query.cursor');
    await refused(owner, '/v1/products?cursor=', 'query.cursor');
    const integer = decode((await list(owner, '/v1/products?sort=wishlistsCount&limit=2')).nextCursor!);
    await refused(
      owner,
      `/v1/products?sort=wishlistsCount&limit=2&cursor=${q(encode({ ...integer, v: '1' }))}`,
      'query.cursor',
    );
    await refused(
      owner,
      `/v1/products?sort=wishlistsCount&limit=2&cursor=${q(encode({ ...integer, v: 1.5 }))}`,
      'query.cursor',
    );
  });

  it('treats a forged sort value as data, never as SQL', async () => {
    const whole = (await list(owner, '/v1/products?sort=title&limit=250')).data.map((row) => row.id);
    const payload = decode((await list(owner, '/v1/products?sort=title&limit=2')).nextCursor!);
    for (const value of ["'; drop table products; --", "desk' or '1'='1", 'e%', '\\']) {
      const forged = encode({ ...payload, v: value });
      const body = await list(owner, `/v1/products?sort=title&limit=250&cursor=${q(forged)}`);
      const ids = body.data.map((row) => row.id);
      // Whatever the forged position, the answer is the tail of the list after it.
      expect(whole.slice(whole.length - ids.length), value).toEqual(ids);
      const { rows: after } = await sql<{ n: number }>`
        select count(*)::int as n from products where organization_id = ${owner.organization.id}::uuid
        and (title, id) > (${value}::text, ${payload.i}::uuid)`.execute(db());
      expect(ids.length, value).toBe(after[0]!.n);
    }
    expect((await list(owner, '/v1/products?limit=250')).data).toHaveLength(30);
  });

  it('takes limit 1..250 only', async () => {
    for (const limit of ['0', '251', 'abc', '-1', '1.5', '', '10;', '1,2']) {
      await refused(owner, `/v1/products?limit=${q(limit)}`, 'query.limit');
    }
    expect((await list(owner, '/v1/products?limit=1')).data).toHaveLength(1);
    expect((await list(owner, '/v1/products?limit=250')).data).toHaveLength(30);
    expect((await list(owner, '/v1/products')).data).toHaveLength(30);
    const defaultPage = await tenant();
    await importProducts(
      defaultPage,
      Array.from({ length: 51 }, (_, index) => ({ slug: `d${index}` })),
    );
    const body = await list(defaultPage, '/v1/products');
    expect(body.data).toHaveLength(50);
    expect(body.nextCursor).not.toBeNull();
  });

  it('refuses unknown sorts, includes and query parameters', async () => {
    for (const sort of [
      'slug',
      'id',
      '--title',
      'title,createdAt',
      'title desc',
      '+title',
      'title; drop table products; --',
    ]) {
      await refused(owner, `/v1/products?sort=${q(sort)}`, 'query.sort');
    }
    // One error that names every allowed value, not one per value.
    const sortError = await t.request({ url: '/v1/products?sort=slug', key: owner.key });
    expect(sortError.json().error.details).toHaveLength(1);
    expect(sortError.json().error.message).toMatch(
      /^Invalid request: query.sort must be one of "title", "-title", "createdAt", "-createdAt", .*\.$/,
    );
    expect(sortError.json().error.message).not.toMatch(/more problem/);
    await refused(owner, '/v1/products?include=nope', 'query.include', /Unknown include "nope"/);
    await refused(owner, '/v1/products?include=tags,variants,orders', 'query.include', /"orders"/);
    await refused(owner, `/v1/products?include=${q("tags'); drop table products; --")}`, 'query.include');
    await refused(owner, '/v1/products?offset=10', 'query.offset');
    await refused(owner, '/v1/probe-variants?include=tags', 'query.include');
    expect((await list(owner, '/v1/products?include=')).data).toHaveLength(30);
  });
});

describe('hostile input never reaches SQL', () => {
  const INJECTION = "'; drop table products; --";

  it('finds exactly the rows whose text, metadata keys and values contain quotes, %, _ and backslashes', async () => {
    const owner = await tenant();
    const products = await importProducts(owner, [
      {
        slug: 'inject',
        title: INJECTION,
        metadata: { [INJECTION]: INJECTION, 'k%': '100%' },
        tags: [INJECTION],
        variants: [{ slug: INJECTION, title: '%', metadata: { '\\': '_' } }],
      },
      { slug: 'percent', title: '100% cotton', metadata: { 'k%': '100 percent' }, tags: ['%'] },
      { slug: 'hundred', title: '100 cotton', tags: ['_'] },
      { slug: 'under_score', title: 'a_b', variants: [{ slug: 'v', title: '_', metadata: { '\\': 'x' } }] },
      { slug: 'axb', title: 'axb' },
      { slug: 'back', title: 'back\\slash \\%' },
    ]);
    expect(products).toHaveLength(6);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ title: INJECTION }, ['inject']],
      [{ title: { $contains: "'; drop" } }, ['inject']],
      [{ title: { $in: [INJECTION, 'axb'] } }, ['axb', 'inject']],
      [{ [`metadata.${INJECTION}`]: INJECTION }, ['inject']],
      [{ [`metadata.${INJECTION}`]: { $exists: true } }, ['inject']],
      [{ 'metadata.k%': { $contains: '%' } }, ['inject']],
      [{ 'metadata.k%': { $exists: true } }, ['inject', 'percent']],
      [{ 'metadata.k_': { $exists: true } }, []],
      [{ 'tags.name': INJECTION }, ['inject']],
      [{ 'tags.name': '%' }, ['percent']],
      [{ 'tags.name': { $contains: '_' } }, ['hundred']],
      [{ 'variants.slug': INJECTION }, ['inject']],
      [{ 'variants.title': { $contains: '%' } }, ['inject']],
      [{ 'variants.title': { $startsWith: '_' } }, ['under_score']],
      [{ 'variants.metadata.\\': '_' }, ['inject']],
      [{ 'variants.metadata.\\': { $exists: true } }, ['inject', 'under_score']],
      [{ title: { $contains: '%' } }, ['back', 'percent']],
      [{ title: { $contains: '_' } }, ['under_score']],
      [{ title: { $startsWith: '100%' } }, ['percent']],
      [{ title: { $contains: '\\' } }, ['back']],
      [{ title: { $contains: '\\%' } }, ['back']],
      [{ title: { $contains: 'a_b' } }, ['under_score']],
      [{ title: { $contains: 'A%B' } }, []],
      [{ slug: { $startsWith: 'under_' } }, ['under_score']],
    ];
    for (const [filter, expected] of cases) {
      const response = await t.request({ url: `/v1/products?filter=${q(filter)}`, key: owner.key });
      expect(response.statusCode, `${JSON.stringify(filter)}: ${response.body}`).toBe(200);
      expect(
        response
          .json()
          .data.map((row: any) => row.slug)
          .sort(),
        JSON.stringify(filter),
      ).toEqual(expected);
    }
    const searches: [string, string[]][] = [
      [INJECTION, ['inject']],
      ['%', ['back', 'percent']],
      ['_', ['under_score']],
      ['\\', ['back']],
      ['\\%', ['back']],
      ["'", ['inject']],
      ['--', ['inject']],
      ['%%', []],
    ];
    for (const [search, expected] of searches) {
      const body = await list(owner, `/v1/products?search=${q(search)}`);
      expect(body.data.map((row) => row.slug).sort(), search).toEqual(expected);
    }
    for (const field of [
      `title"; ${INJECTION}`,
      'title) or (1=1',
      'p.title',
      'title::text',
      '__proto__',
      'constructor',
      'variants.slug; --',
    ]) {
      const response = await t.request({ url: `/v1/products?filter=${q({ [field]: 'x' })}`, key: owner.key });
      expect(response.statusCode, field).toBe(400);
    }
    for (const operator of ['$eq; drop table products', "$gt'", '$in)']) {
      const response = await t.request({
        url: `/v1/products?filter=${q({ title: { [operator]: 'x' } })}`,
        key: owner.key,
      });
      expect(response.statusCode, operator).toBe(400);
    }
    // PostgreSQL text cannot hold U+0000: such operands are refused instead of failing the query.
    for (const [url, path] of [
      [`/v1/products?filter=${q({ title: 'a\u0000b' })}`, 'query.filter.title'],
      [`/v1/products?filter=${q({ title: { $in: ['a', '\u0000'] } })}`, 'query.filter.title.$in[1]'],
      [`/v1/products?filter=${q({ 'tags.name': { $contains: '\u0000' } })}`, 'query.filter.tags.name.$contains'],
      [`/v1/products?filter=${q({ 'metadata.a\u0000': 'x' })}`, 'query.filter.metadata.a\u0000'],
      ['/v1/products?search=a%00', 'query.search'],
      ['/v1/product-tags?search=%00', 'query.search'],
      [`/v1/products?filter=${q('{"title":"\u0000')}`, 'query.filter'],
    ] as const) {
      await refused(owner, url, path);
    }
    const payload = decode((await list(owner, '/v1/products?sort=title&limit=2')).nextCursor!);
    await refused(
      owner,
      `/v1/products?sort=title&limit=2&cursor=${q(encode({ ...payload, v: 'a\u0000' }))}`,
      'query.cursor',
    );
    // Bulk updates select through the same engine.
    const bulk = await t.request({
      method: 'PATCH',
      url: `/v1/products/bulk-update?filter=${q({ title: { $contains: '%' } })}&search=${q('\\')}`,
      key: owner.key,
      body: { addTags: ['picked'] },
    });
    expect(bulk.json()).toEqual({ count: 1 });
    expect(
      (await list(owner, `/v1/products?filter=${q({ 'tags.name': 'picked' })}`)).data.map((row) => row.slug),
    ).toEqual(['back']);
    // The table is still there, whole.
    expect((await list(owner, '/v1/products')).data).toHaveLength(6);
  });
});

describe('plans that stay index ranges', () => {
  it('walks a nullable sort with ties and nulls in both directions, with any page size, each row once', async () => {
    const owner = await tenant();
    const ranks = ['b', null, 'a', 'a', null, 'c', 'b', null, 'a', null, null, 'c', 'b', 'a', null];
    await importProducts(
      owner,
      [0, 1, 2].map((product) => ({
        slug: `n${product}`,
        title: `n${product}`,
        variants: ranks
          .slice(product * 5, product * 5 + 5)
          .map((rank, index) => ({ slug: `r${product}-${index}`, metadata: rank ? { rank } : {} })),
      })),
    );
    const { rows } = await sql<{
      id: string;
      slug: string;
      rank: string | null;
    }>`select id, slug, metadata ->> 'rank' as rank
      from product_variants where organization_id = ${owner.organization.id}::uuid`.execute(db());
    expect(rows).toHaveLength(ranks.length);
    const byRank = (descending: boolean) => (a: (typeof rows)[number], b: (typeof rows)[number]) => {
      if ((a.rank === null) !== (b.rank === null)) return a.rank === null ? 1 : -1;
      const sign = descending ? -1 : 1;
      if (a.rank !== b.rank) return (a.rank! < b.rank! ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    };
    for (const descending of [false, true]) {
      const expected = [...rows].sort(byRank(descending)).map((row) => row.slug);
      for (const limit of [1, 2, 3, 4, 7, 9, 15, 16]) {
        const walked = await walk(owner, `/v1/probe-variants?sort=${descending ? '-' : ''}rank&limit=${limit}`);
        expect(
          walked.map((row) => row.slug),
          `${descending ? '-' : ''}rank limit ${limit}`,
        ).toEqual(expected);
      }
    }
  });

  it('tests a to-many condition row by row when it matches many pages of rows, with the same pages either way', async () => {
    const owner = await tenant();
    await importProducts(
      owner,
      Array.from({ length: 30 }, (_, index) => ({
        slug: `t${String(index).padStart(2, '0')}`,
        title: ['lamp', 'desk', 'chair'][index % 3],
        tags: [...(index < 25 ? ['common'] : []), ...(index % 15 === 0 ? ['rare'] : [])],
      })),
    );
    const organizationId = owner.organization.id;
    const related = (filter: unknown) =>
      compileSelection(productList, organizationId, { filter: JSON.stringify(filter) }).related;
    // limit 1: more than PER_ROW_PAGES (20) matching tag links walk the sort index; 2 keep the semi-join.
    expect(await chooseRowByRow(db(), organizationId, related({ 'tags.name': 'common' }), 1)).toEqual(new Set([0]));
    expect(await chooseRowByRow(db(), organizationId, related({ 'tags.name': 'common' }), 2)).toEqual(new Set());
    expect(
      await chooseRowByRow(
        db(),
        organizationId,
        related({ 'tags.name': 'rare', $and: [{ 'tags.name': { $ne: 'x' } }] }),
        1,
      ),
    ).toEqual(new Set([1]));
    // Under $or or $not a to-many condition is no semi-join candidate; a lone null means "no related row".
    expect(
      related({
        $or: [{ 'tags.name': 'common' }, { title: 'lamp' }],
        $not: { 'tags.name': 'rare' },
        'tags.name': null,
      }),
    ).toEqual([]);
    const { where } = compileSelection(
      productList,
      organizationId,
      { filter: JSON.stringify({ 'tags.name': 'common' }) },
      [],
      new Set([0]),
    );
    expect(sql`select 1 where ${where}`.compile(db()).sql).toMatch(/offset 0\)/);
    // Another organization's links do not count.
    const other = await tenant();
    expect(await chooseRowByRow(db(), other.organization.id, related({ 'tags.name': 'common' }), 1)).toEqual(new Set());

    for (const sort of ['title', '-title', '-createdAt']) {
      for (const filter of [
        { 'tags.name': 'common' },
        { 'tags.name': 'rare' },
        { 'tags.name': 'common', title: { $ne: 'desk' } },
      ]) {
        const whole = (await list(owner, `/v1/products?sort=${sort}&limit=250&filter=${q(filter)}`)).data.map(
          (row) => row.slug,
        );
        const walked = (await walk(owner, `/v1/products?sort=${sort}&limit=1&filter=${q(filter)}`)).map(
          (row) => row.slug,
        );
        expect(walked, `${sort} ${JSON.stringify(filter)}`).toEqual(whole);
      }
    }
  });
});
