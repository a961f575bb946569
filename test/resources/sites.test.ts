import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionCatalog } from '../../src/compose.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface SiteRecord {
  id: string;
  name: string;
  domain: string;
  platform: string;
  currencyCode: string;
  createdAt: string;
  updatedAt: string;
}

async function createSite(tenant: Tenant, data: Record<string, unknown>): Promise<SiteRecord> {
  const response = await t.request({ method: 'POST', url: '/v1/sites', key: tenant.key, body: { data } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/** Follows nextCursor through every page; returns the ids in order and how many pages there were. */
async function allPages(tenant: Tenant, query: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/v1/sites?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await t.request({ url, key: tenant.key });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    ids.push(...body.data.map((site: SiteRecord) => site.id));
    cursor = body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(50);
  } while (cursor);
  return { ids, pages };
}

const list = async (tenant: Tenant, query: string) => {
  const response = await t.request({ url: `/v1/sites?${query}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: SiteRecord[]; nextCursor: string | null };
};
const filterQuery = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;
const idsOf = (body: { data: SiteRecord[] }) => body.data.map((site) => site.id);

async function insertOrder(organizationId: string, siteId: string): Promise<void> {
  const customerId = uuidv7();
  await db()
    .insertInto('customers')
    .values({ organization_id: organizationId, id: customerId, email: `${customerId}@example.com`, metadata: '{}' })
    .execute();
  await db()
    .insertInto('orders')
    .values({
      organization_id: organizationId,
      id: uuidv7(),
      site_id: siteId,
      customer_id: customerId,
      remote_id: uuidv7(),
      number: '#1',
      currency_code: 'USD',
      metadata: '{}',
    })
    .execute();
}

describe('POST /v1/sites', () => {
  it('creates a site from the data form with defaults, answers 201 and records site.created with the same record', async () => {
    const tenant = await t.tenant();
    const before = Date.now();
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { data: { name: 'Main shop', domain: 'Shop.Example.com' } },
    });
    expect(response.statusCode).toBe(201);
    const site = response.json();
    expect(site).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Main shop',
      domain: 'Shop.Example.com',
      platform: 'custom',
      currencyCode: 'USD',
      createdAt: expect.stringMatching(ISO),
      updatedAt: site.createdAt,
    });
    expect(Date.parse(site.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    const events = await eventsOf(t, tenant.organization.id);
    expect(events.map((event) => event.name)).toEqual(['site.created']);
    expect(events[0]!.payload).toEqual(site);
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json()).toEqual(site);
  });

  it('accepts the unwrapped form with platform and currency', async () => {
    const tenant = await t.tenant();
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: 'EU store', domain: 'eu.example.com', platform: 'shopify', currencyCode: 'EUR' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'EU store',
      domain: 'eu.example.com',
      platform: 'shopify',
      currencyCode: 'EUR',
    });
  });

  it('refuses data together with top-level fields', async () => {
    const tenant = await t.tenant();
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { data: { name: 'A', domain: 'a.example.com' }, name: 'B' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.name', message: 'must not be sent together with body.data' }],
    });
    expect(response.json().error.message).toMatch(/either inside body\.data or at the top level/);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });

  it('requires name and domain, naming the path of the form used', async () => {
    const tenant = await t.tenant();
    const wrapped = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { data: { platform: 'x' } },
    });
    expect(wrapped.statusCode).toBe(400);
    expect(wrapped.json().error.details).toEqual([
      { path: 'body.data.name', message: 'is required' },
      { path: 'body.data.domain', message: 'is required' },
    ]);
    const unwrapped = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: 'Only name' },
    });
    expect(unwrapped.statusCode).toBe(400);
    expect(unwrapped.json().error.details).toEqual([{ path: 'body.domain', message: 'is required' }]);
    const empty = await t.request({ method: 'POST', url: '/v1/sites', key: tenant.key, body: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.details.map((detail: { path: string }) => detail.path)).toEqual([
      'body.name',
      'body.domain',
    ]);
    const none = await t.request({ method: 'POST', url: '/v1/sites', key: tenant.key });
    expect(none.statusCode).toBe(400);
    expect((await list(tenant, '')).data).toEqual([]);
  });

  it.each([
    [{ name: 'A', domain: 'a.example.com', currencyCode: 'usd' }, 'body.data.currencyCode'],
    [{ name: 'A', domain: 'a.example.com', currencyCode: 'EURO' }, 'body.data.currencyCode'],
    [{ name: 'A', domain: 'not a host!' }, 'body.data.domain'],
    [{ name: 'A', domain: 'https://a.example.com/' }, 'body.data.domain'],
    [{ name: 'A', domain: 'a.example.com', color: 'red' }, 'body.data.color'],
    [{ name: 5, domain: 'a.example.com' }, 'body.data.name'],
    [{ name: '', domain: 'a.example.com' }, 'body.data.name'],
    [{ name: 'x'.repeat(256), domain: 'a.example.com' }, 'body.data.name'],
    [{ name: 'A', domain: `${'a'.repeat(64)}.example.com` }, 'body.data.domain'],
    [{ name: 'A', domain: 'a.example.com', platform: '' }, 'body.data.platform'],
    [{ name: 'A', domain: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }, 'body.data.domain'],
  ])('refuses bad input %j at %s', async (data, path) => {
    const tenant = await t.tenant();
    const response = await t.request({ method: 'POST', url: '/v1/sites', key: tenant.key, body: { data } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });

  it('refuses an unknown top-level field and a data value that is not an object', async () => {
    const tenant = await t.tenant();
    const unknown = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { data: { name: 'A', domain: 'a.example.com' }, extra: 1 },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toContainEqual({ path: 'body.extra', message: 'is not a known field' });
    const notObject = await t.request({ method: 'POST', url: '/v1/sites', key: tenant.key, body: { data: 'site' } });
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().error.details).toContainEqual({ path: 'body.data', message: 'must be an object' });
  });

  it('refuses a domain already used in the organization, case-insensitively, with 409 naming it', async () => {
    const tenant = await t.tenant();
    await createSite(tenant, { name: 'A', domain: 'shop.example.com' });
    const clash = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: 'B', domain: 'SHOP.example.COM' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('CONFLICT');
    expect(clash.json().error.message).toContain('"SHOP.example.COM"');
    expect((await list(tenant, '')).data).toHaveLength(1);
    expect((await eventsOf(t, tenant.organization.id, 'site.created')).length).toBe(1);

    // Another organization may use the same domain.
    const other = await t.tenant();
    await createSite(other, { name: 'A', domain: 'shop.example.com' });
  });
});

describe('GET /v1/sites/{id}', () => {
  it("answers another organization's site, an unknown id and a malformed id like missing records", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const site = await createSite(owner, { name: 'A', domain: 'a.example.com' });
    const foreign = await t.request({ url: `/v1/sites/${site.id}`, key: stranger.key });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toEqual({ code: 'NOT_FOUND', message: 'The site was not found.' });
    expect((await t.request({ url: `/v1/sites/${uuidv7()}`, key: owner.key })).statusCode).toBe(404);
    const malformed = await t.request({ url: '/v1/sites/not-a-uuid', key: owner.key });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details).toEqual([{ path: 'path.id', message: 'must be a UUID' }]);
    const query = await t.request({ url: `/v1/sites/${site.id}?include=orders`, key: owner.key });
    expect(query.statusCode).toBe(400);
    expect(query.json().error.details).toEqual([{ path: 'query.include', message: 'is not a known field' }]);
  });
});

describe('PATCH /v1/sites/{id}', () => {
  it('changes the given fields, keeps the others and records site.updated with the response', async () => {
    const tenant = await t.tenant();
    const site = await createSite(tenant, { name: 'A', domain: 'a.example.com', platform: 'shopify' });
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/sites/${site.id}`,
      key: tenant.key,
      body: { name: 'Renamed', currencyCode: 'GBP' },
    });
    expect(response.statusCode).toBe(200);
    const updated = response.json();
    expect(updated).toEqual({ ...site, name: 'Renamed', currencyCode: 'GBP', updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(site.updatedAt));
    const events = await eventsOf(t, tenant.organization.id, 'site.updated');
    expect(events.map((event) => event.payload)).toEqual([updated]);

    const wrapped = await t.request({
      method: 'PATCH',
      url: `/v1/sites/${site.id}`,
      key: tenant.key,
      body: { data: { domain: 'B.example.com', platform: 'woocommerce' } },
    });
    expect(wrapped.statusCode).toBe(200);
    expect(wrapped.json()).toMatchObject({
      name: 'Renamed',
      domain: 'B.example.com',
      platform: 'woocommerce',
      currencyCode: 'GBP',
    });
    // Its own domain in another case is no clash.
    const recased = await t.request({
      method: 'PATCH',
      url: `/v1/sites/${site.id}`,
      key: tenant.key,
      body: { domain: 'b.example.com' },
    });
    expect(recased.statusCode).toBe(200);
    expect(recased.json().domain).toBe('b.example.com');
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json()).toEqual(recased.json());
  });

  it('answers 409 on a domain clash and leaves both sites unchanged', async () => {
    const tenant = await t.tenant();
    const first = await createSite(tenant, { name: 'A', domain: 'a.example.com' });
    const second = await createSite(tenant, { name: 'B', domain: 'b.example.com' });
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/sites/${second.id}`,
      key: tenant.key,
      body: { domain: 'A.EXAMPLE.COM', name: 'changed' },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toContain('"A.EXAMPLE.COM"');
    expect((await t.request({ url: `/v1/sites/${second.id}`, key: tenant.key })).json()).toEqual(second);
    expect((await t.request({ url: `/v1/sites/${first.id}`, key: tenant.key })).json()).toEqual(first);
    expect(await eventsOf(t, tenant.organization.id, 'site.updated')).toEqual([]);
  });

  it('refuses unknown fields, bad values and both forms at once; 404 for other organizations', async () => {
    const tenant = await t.tenant();
    const stranger = await t.tenant();
    const site = await createSite(tenant, { name: 'A', domain: 'a.example.com' });
    const cases: [unknown, string][] = [
      [{ id: uuidv7() }, 'body.id'],
      [{ createdAt: '2026-01-01T00:00:00Z' }, 'body.createdAt'],
      [{ currencyCode: 'eur' }, 'body.currencyCode'],
      [{ domain: 'bad domain' }, 'body.domain'],
      [{ data: { name: 'x' }, domain: 'c.example.com' }, 'body.domain'],
      [{ name: null }, 'body.name'],
    ];
    for (const [body, path] of cases) {
      const response = await t.request({ method: 'PATCH', url: `/v1/sites/${site.id}`, key: tenant.key, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
    const foreign = await t.request({
      method: 'PATCH',
      url: `/v1/sites/${site.id}`,
      key: stranger.key,
      body: { name: 'hijack' },
    });
    expect(foreign.statusCode).toBe(404);
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json()).toEqual(site);
    expect(await eventsOf(t, stranger.organization.id)).toEqual([]);
    expect(await eventsOf(t, tenant.organization.id, 'site.updated')).toEqual([]);
  });
});

describe('DELETE /v1/sites/{id}', () => {
  it('returns the deleted site, removes its product links (not the products) and records site.deleted', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const site = await createSite(tenant, { name: 'A', domain: 'a.example.com' });
    const kept = await createSite(tenant, { name: 'B', domain: 'b.example.com' });
    const productId = uuidv7();
    await db()
      .insertInto('products')
      .values({ organization_id: organizationId, id: productId, slug: 'lamp', metadata: '{}' })
      .execute();
    await db()
      .insertInto('product_sites')
      .values([
        { organization_id: organizationId, product_id: productId, site_id: site.id },
        { organization_id: organizationId, product_id: productId, site_id: kept.id },
      ])
      .execute();

    const response = await t.request({ method: 'DELETE', url: `/v1/sites/${site.id}`, key: tenant.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(site);
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).statusCode).toBe(404);
    const links = await db()
      .selectFrom('product_sites')
      .select('site_id')
      .where('organization_id', '=', organizationId)
      .execute();
    expect(links).toEqual([{ site_id: kept.id }]);
    expect(
      await db().selectFrom('products').select('id').where('organization_id', '=', organizationId).execute(),
    ).toEqual([{ id: productId }]);
    const events = await eventsOf(t, organizationId, 'site.deleted');
    expect(events.map((event) => event.payload)).toEqual([site]);
    expect((await t.request({ method: 'DELETE', url: `/v1/sites/${site.id}`, key: tenant.key })).statusCode).toBe(404);
  });

  it('answers 409 saying how many orders use the site, and keeps it', async () => {
    const tenant = await t.tenant();
    const site = await createSite(tenant, { name: 'A', domain: 'a.example.com' });
    await insertOrder(tenant.organization.id, site.id);
    await insertOrder(tenant.organization.id, site.id);
    const response = await t.request({ method: 'DELETE', url: `/v1/sites/${site.id}`, key: tenant.key });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('CONFLICT');
    expect(response.json().error.message).toMatch(/used by 2 orders/);
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json()).toEqual(site);
    expect(await eventsOf(t, tenant.organization.id, 'site.deleted')).toEqual([]);

    const single = await createSite(tenant, { name: 'B', domain: 'b.example.com' });
    await insertOrder(tenant.organization.id, single.id);
    const one = await t.request({ method: 'DELETE', url: `/v1/sites/${single.id}`, key: tenant.key });
    expect(one.statusCode).toBe(409);
    expect(one.json().error.message).toMatch(/used by 1 order;/);
  });

  it("answers 404 for another organization's site and leaves it alone", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const site = await createSite(owner, { name: 'A', domain: 'a.example.com' });
    expect((await t.request({ method: 'DELETE', url: `/v1/sites/${site.id}`, key: stranger.key })).statusCode).toBe(
      404,
    );
    expect((await t.request({ url: `/v1/sites/${site.id}`, key: owner.key })).json()).toEqual(site);
    expect(await eventsOf(t, stranger.organization.id)).toEqual([]);
  });
});

describe('GET /v1/sites', () => {
  let tenant: Tenant;
  let stranger: Tenant;
  const sites: Record<string, SiteRecord> = {};
  const spec = [
    {
      name: 'Delta',
      domain: 'delta.example.com',
      platform: 'shopify',
      currencyCode: 'USD',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    {
      name: 'Alpha',
      domain: 'alpha.shop.io',
      platform: 'custom',
      currencyCode: 'EUR',
      createdAt: '2026-01-02T00:00:00.000Z',
    },
    {
      name: 'Echo 100%',
      domain: 'echo.example.com',
      platform: 'woocommerce',
      currencyCode: 'GBP',
      createdAt: '2026-01-03T00:00:00.000Z',
    },
    {
      name: 'Charlie_c',
      domain: 'charlie.example.org',
      platform: 'shopify',
      currencyCode: 'USD',
      createdAt: '2026-01-04T00:00:00.000Z',
    },
    {
      name: 'Bravo',
      domain: 'bravo.example.com',
      platform: 'custom',
      currencyCode: 'JPY',
      createdAt: '2026-01-05T00:00:00.000Z',
    },
  ];

  beforeAll(async () => {
    tenant = await t.tenant();
    stranger = await t.tenant();
    for (const { createdAt, ...data } of spec) {
      const site = await createSite(tenant, data);
      await sql`update sites set created_at = ${createdAt}::timestamptz, updated_at = ${createdAt}::timestamptz where id = ${site.id}::uuid`.execute(
        db(),
      );
      sites[data.name] = (await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json();
    }
    await createSite(stranger, { name: 'Alpha', domain: 'alpha.shop.io' });
  });

  const id = (name: string) => sites[name]!.id;

  it("lists newest first by default with exact records, only the organization's own", async () => {
    const body = await list(tenant, '');
    expect(body).toEqual({
      data: ['Bravo', 'Charlie_c', 'Echo 100%', 'Alpha', 'Delta'].map((name) => sites[name]),
      nextCursor: null,
    });
    expect(sites.Delta).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Delta',
      domain: 'delta.example.com',
      platform: 'shopify',
      currencyCode: 'USD',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(idsOf(await list(stranger, ''))).toHaveLength(1);
  });

  it.each([
    ['createdAt', ['Delta', 'Alpha', 'Echo 100%', 'Charlie_c', 'Bravo']],
    ['-createdAt', ['Bravo', 'Charlie_c', 'Echo 100%', 'Alpha', 'Delta']],
    ['name', ['Alpha', 'Bravo', 'Charlie_c', 'Delta', 'Echo 100%']],
    ['-name', ['Echo 100%', 'Delta', 'Charlie_c', 'Bravo', 'Alpha']],
  ])('sorts by %s and pages through every record once', async (sort, names) => {
    const paged = await allPages(tenant, `sort=${sort}&limit=2`);
    expect(paged.ids).toEqual(names.map(id));
    expect(paged.pages).toBe(3);
  });

  it.each([
    ['id $in', () => ({ id: { $in: [id('Alpha'), id('Charlie_c'), uuidv7()] } }), ['Charlie_c', 'Alpha']],
    ['id equality', () => ({ id: id('Delta') }), ['Delta']],
    ['name $startsWith (case-insensitive)', { name: { $startsWith: 'ch' } }, ['Charlie_c']],
    ['name $contains with a literal %', { name: { $contains: '0%' } }, ['Echo 100%']],
    ['domain $in', { domain: { $in: ['alpha.shop.io', 'bravo.example.com', 'nothing.example'] } }, ['Bravo', 'Alpha']],
    ['domain $contains', { domain: { $contains: '.example.' } }, ['Bravo', 'Charlie_c', 'Echo 100%', 'Delta']],
    ['platform', { platform: 'shopify' }, ['Charlie_c', 'Delta']],
    ['platform $nin', { platform: { $nin: ['shopify', 'custom'] } }, ['Echo 100%']],
    ['currencyCode $ne', { currencyCode: { $ne: 'USD' } }, ['Bravo', 'Echo 100%', 'Alpha']],
    [
      'createdAt $gte/$lt',
      { createdAt: { $gte: '2026-01-02T00:00:00Z', $lt: '2026-01-04T00:00:00Z' } },
      ['Echo 100%', 'Alpha'],
    ],
    ['createdAt with an offset', { createdAt: { $gt: '2026-01-04T03:00:00+02:00' } }, ['Bravo']],
    ['$or', { $or: [{ currencyCode: 'JPY' }, { name: 'Delta' }] }, ['Bravo', 'Delta']],
    ['$not', { $not: { platform: { $in: ['custom', 'shopify'] } } }, ['Echo 100%']],
    ['$exists', { name: { $exists: true }, domain: { $exists: false } }, []],
    ['$and', { $and: [{ platform: 'custom' }, { currencyCode: 'EUR' }] }, ['Alpha']],
  ] as [string, unknown, string[]][])('filters by %s', async (_label, filter, names) => {
    const document = typeof filter === 'function' ? (filter as () => unknown)() : filter;
    expect(idsOf(await list(tenant, filterQuery(document)))).toEqual(names.map(id));
  });

  it('searches name and domain case-insensitively, with %, _ and \\ matching themselves', async () => {
    expect(idsOf(await list(tenant, 'search=ALPHA'))).toEqual([id('Alpha')]);
    expect(idsOf(await list(tenant, 'search=example.org'))).toEqual([id('Charlie_c')]);
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('%')}`))).toEqual([id('Echo 100%')]);
    expect(idsOf(await list(tenant, 'search=_'))).toEqual([id('Charlie_c')]);
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('\\')}`))).toEqual([]);
    expect(idsOf(await list(tenant, `search=example&${filterQuery({ platform: 'shopify' })}`))).toEqual([
      id('Charlie_c'),
      id('Delta'),
    ]);
    // The stranger's identical site is never found by this organization.
    expect(idsOf(await list(tenant, 'search=shop.io'))).toEqual([id('Alpha')]);
  });

  it('pages a filtered, searched list and binds the cursor to them', async () => {
    const filter = filterQuery({ platform: { $in: ['shopify', 'custom'] } });
    const paged = await allPages(tenant, `sort=name&limit=1&${filter}&search=a`);
    expect(paged.ids).toEqual(['Alpha', 'Bravo', 'Charlie_c', 'Delta'].map(id));
    const first = await list(tenant, `sort=name&limit=1&${filter}`);
    expect(first.nextCursor).toEqual(expect.any(String));
    const reused = await t.request({
      url: `/v1/sites?sort=-name&limit=1&${filter}&cursor=${first.nextCursor}`,
      key: tenant.key,
    });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().error.details[0].path).toBe('query.cursor');
  });

  it.each([
    ['filter=%7Bnope', 'query.filter'],
    [filterQuery({ color: 'red' }), 'query.filter.color'],
    [filterQuery({ createdAt: { $gte: '2026-01-01' } }), 'query.filter.createdAt.$gte'],
    [filterQuery({ id: 'not-a-uuid' }), 'query.filter.id'],
    [filterQuery({ name: { $regex: 'a' } }), 'query.filter.name.$regex'],
    [filterQuery({ $or: [] }), 'query.filter.$or'],
    ['sort=domain', 'query.sort'],
    ['limit=0', 'query.limit'],
    ['limit=251', 'query.limit'],
    ['include=orders', 'query.include'],
    ['page=2', 'query.page'],
    ['cursor=garbage', 'query.cursor'],
  ])('refuses %s with a 400 naming %s', async (query, path) => {
    const response = await t.request({ url: `/v1/sites?${query}`, key: tenant.key });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('answers a filter date-time or a cursor position the database cannot hold with a 400, not a 500', async () => {
    // Found by the bad-input fuzzer: both pass the list engine's own checks, and PostgreSQL refused them.
    const first = await list(tenant, 'limit=1');
    const position = JSON.parse(Buffer.from(first.nextCursor!, 'base64url').toString());
    const tampered = Buffer.from(JSON.stringify({ ...position, v: '9999-99-99T99:99:99.999999Z' })).toString(
      'base64url',
    );
    for (const query of [filterQuery({ createdAt: { $gt: '0000-01-01T00:00:00Z' } }), `limit=1&cursor=${tampered}`]) {
      const response = await t.request({ url: `/v1/sites?${query}`, key: tenant.key });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('permissions and costs', () => {
  it('declares sites:read and sites:write and enforces them', async () => {
    expect(permissionCatalog).toEqual(expect.arrayContaining(['sites:read', 'sites:write']));
    const { organization } = await t.tenant();
    const reader = await t.key(organization.id, ['sites:read']);
    const writer = await t.key(organization.id, ['sites:write']);
    const other = await t.key(organization.id, ['products:read']);
    const create = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: reader,
      body: { name: 'A', domain: 'a.example.com' },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json().error.message).toContain('sites:write');
    const created = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: writer,
      body: { name: 'A', domain: 'a.example.com' },
    });
    expect(created.statusCode).toBe(201);
    expect((await t.request({ url: '/v1/sites', key: reader })).json().data).toHaveLength(1);
    expect((await t.request({ url: '/v1/sites', key: writer })).statusCode).toBe(403);
    expect((await t.request({ url: `/v1/sites/${created.json().id}`, key: other })).statusCode).toBe(403);
    expect((await t.request({ method: 'DELETE', url: `/v1/sites/${created.json().id}`, key: reader })).statusCode).toBe(
      403,
    );
  });

  it('documents every site operation with its permission and a cost of 1', async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const operations = [
      document.paths['/sites'].get,
      document.paths['/sites'].post,
      document.paths['/sites/{id}'].get,
      document.paths['/sites/{id}'].patch,
      document.paths['/sites/{id}'].delete,
    ];
    expect(operations.map((operation) => [operation['x-permission'], operation['x-cost']])).toEqual([
      ['sites:read', 1],
      ['sites:write', 1],
      ['sites:read', 1],
      ['sites:write', 1],
      ['sites:write', 1],
    ]);
  });
});
