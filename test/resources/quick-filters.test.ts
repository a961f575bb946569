import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  b = await t.tenant();
  // Customers of A: gold or silver, in two countries, with and without the vip tag.
  await importCustomers(a, [
    { email: 'ann@gold.example', firstName: 'Ann', country: 'DE', metadata: { tier: 'gold' }, tags: ['vip'] },
    { email: 'bob@gold.example', firstName: 'Bob', country: 'FR', metadata: { tier: 'gold' } },
    { email: 'cat@gold.example', firstName: 'Cat', country: 'DE', metadata: { tier: 'gold' }, tags: ['vip'] },
    { email: 'dan@silver.example', firstName: 'Dan', country: 'DE', metadata: { tier: 'silver' }, tags: ['vip'] },
    { email: 'eve@gold.example', firstName: 'Eve', country: 'DE', metadata: { tier: 'gold' } },
  ]);
});
afterAll(() => t.close());

async function importCustomers(tenant: Tenant, rows: unknown[]) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/customers/import',
    key: tenant.key,
    body: { data: rows },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Only this resource's events: the tests count them before and after a write. */
const QUICK_FILTER_EVENTS = { namePrefix: 'quickFilter.' };

interface QuickFilterRecord {
  id: string;
  resource: string;
  name: string;
  filter: Record<string, unknown>;
  search: string | null;
  sort: string | null;
  createdAt: string;
  updatedAt: string;
}

async function create(tenant: Tenant, body: Record<string, unknown>): Promise<QuickFilterRecord> {
  const response = await t.request({ method: 'POST', url: '/v1/quick-filters', key: tenant.key, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const patch = (tenant: Tenant, id: string, body: unknown) =>
  t.request({ method: 'PATCH', url: `/v1/quick-filters/${id}`, key: tenant.key, body });

const emails = async (tenant: Tenant, query: string) => {
  const response = await t.request({ url: `/v1/customers?${query}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data as { email: string }[]).map((customer) => customer.email);
};

const q = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

describe('POST /v1/quick-filters', () => {
  it('saves a view with its defaults and sends quickFilter.created in the same transaction', async () => {
    const before = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length;
    const created = await create(a, { resource: 'customers', name: 'Gold' });
    expect(created).toMatchObject({ resource: 'customers', name: 'Gold', filter: {}, search: null, sort: null });
    expect(created.createdAt).toBe(created.updatedAt);
    const events = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['quickFilter.created']);
    expect(events[0]!.payload).toEqual(created);
  });

  it('takes the fields inside data as well', async () => {
    const created = await create(a, {
      data: { resource: 'orders', name: 'Big', filter: { totalCents: { $gt: 1000 } }, sort: '-totalCents' },
    });
    expect(created).toMatchObject({ resource: 'orders', filter: { totalCents: { $gt: 1000 } }, sort: '-totalCents' });
  });

  it("checks the filter, search and sort against the resource's list, naming the field, and writes nothing", async () => {
    const before = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length;
    const refused = async (body: Record<string, unknown>, path: string) => {
      const response = await t.request({ method: 'POST', url: '/v1/quick-filters', key: a.key, body });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    };
    await refused({ resource: 'customers', name: 'x', filter: { totalCents: 5 } }, 'body.filter.totalCents');
    await refused({ resource: 'orders', name: 'x', filter: { totalCents: 'many' } }, 'body.filter.totalCents');
    await refused({ resource: 'customers', name: 'x', filter: { $or: [] } }, 'body.filter.$or');
    await refused({ resource: 'customers', name: 'x', sort: '-totalCents' }, 'body.sort');
    await refused({ resource: 'customers', name: 'x', search: '   ' }, 'body.search');
    await refused({ resource: 'customers' }, 'body.name');
    await refused({ name: 'x' }, 'body.resource');
    await refused({ resource: 'sites', name: 'x' }, 'body.resource');
    expect((await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length).toBe(before);
  });

  it('saves a view of wishlists and applies it to GET /wishlists, ANDed with search', async () => {
    const saved = await t.request({
      method: 'POST',
      url: '/v1/quick-filters',
      key: a.key,
      body: { resource: 'wishlists', name: 'Named summer', filter: { name: { $startsWith: 'Summer' } } },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const listed = await t.request({ url: `/v1/wishlists?quickFilter=${saved.json().id}`, key: a.key });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data).toEqual([]);
    const wrongList = await t.request({ url: `/v1/orders?quickFilter=${saved.json().id}`, key: a.key });
    expect(wrongList.statusCode).toBe(400);
  });

  it('needs quickFilters:write', async () => {
    const reader = await t.key(a.organization.id, ['quickFilters:read']);
    const response = await t.request({
      method: 'POST',
      url: '/v1/quick-filters',
      key: reader,
      body: { resource: 'customers', name: 'x' },
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('GET /v1/quick-filters', () => {
  it("lists the organization's quick filters through the list engine: filter, search, sort and cursor", async () => {
    const tenant = await t.tenant();
    for (const name of ['Alpha', 'Beta', 'Gamma']) await create(tenant, { resource: 'products', name });
    await create(tenant, { resource: 'orders', name: 'Delta' });
    const page = async (query: string) => {
      const response = await t.request({ url: `/v1/quick-filters?${query}`, key: tenant.key });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { data: QuickFilterRecord[]; nextCursor: string | null };
    };
    expect((await page(`filter=${q({ resource: 'products' })}&sort=name`)).data.map((f) => f.name)).toEqual([
      'Alpha',
      'Beta',
      'Gamma',
    ]);
    expect((await page('search=ELT')).data.map((f) => f.name)).toEqual(['Delta']);
    const first = await page('sort=name&limit=2');
    expect(first.data.map((f) => f.name)).toEqual(['Alpha', 'Beta']);
    const second = await page(`sort=name&limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((f) => f.name)).toEqual(['Delta', 'Gamma']);
  });
});

describe('GET /v1/quick-filters/{id}', () => {
  it("answers one, and another organization's as 404 like a missing one", async () => {
    const created = await create(a, { resource: 'customers', name: 'Mine' });
    const mine = await t.request({ url: `/v1/quick-filters/${created.id}`, key: a.key });
    expect(mine.json()).toEqual(created);
    const theirs = await t.request({ url: `/v1/quick-filters/${created.id}`, key: b.key });
    const missing = await t.request({ url: `/v1/quick-filters/${uuidv7()}`, key: b.key });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error).toEqual(missing.json().error);
  });
});

describe('PATCH /v1/quick-filters/{id}', () => {
  it('changes the fields sent, checked against its list, and sends quickFilter.updated', async () => {
    const created = await create(a, { resource: 'customers', name: 'Patch me', search: 'gold' });
    const before = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length;
    const response = await patch(a, created.id, { name: 'Patched', filter: { country: 'DE' }, search: null });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ name: 'Patched', filter: { country: 'DE' }, search: null, sort: null });
    expect(response.json().updatedAt > created.updatedAt).toBe(true);
    const events = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['quickFilter.updated']);
    expect(events[0]!.payload).toEqual(response.json());
  });

  it('writes nothing and sends nothing when nothing changes (filter compared by content)', async () => {
    const created = await create(a, {
      resource: 'customers',
      name: 'Same',
      filter: { country: 'DE', 'metadata.tier': 'gold' },
    });
    const before = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length;
    for (const body of [{}, { name: 'Same', filter: { 'metadata.tier': 'gold', country: 'DE' }, search: null }]) {
      const response = await patch(a, created.id, body);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual(created);
    }
    expect((await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length).toBe(before);
  });

  it('refuses a filter, sort or search its list does not take, and the resource, changing nothing', async () => {
    const created = await create(a, { resource: 'customers', name: 'Strict' });
    expect((await patch(a, created.id, { filter: { totalCents: 1 } })).statusCode).toBe(400);
    expect((await patch(a, created.id, { sort: 'title' })).statusCode).toBe(400);
    expect((await patch(a, created.id, { resource: 'orders' })).statusCode).toBe(400);
    const after = await t.request({ url: `/v1/quick-filters/${created.id}`, key: a.key });
    expect(after.json()).toEqual(created);
  });

  it("answers another organization's as 404", async () => {
    const created = await create(a, { resource: 'customers', name: 'Not yours' });
    expect((await patch(b, created.id, { name: 'Taken' })).statusCode).toBe(404);
  });
});

describe('DELETE /v1/quick-filters/{id}', () => {
  it('deletes one even while in use, sends quickFilter.deleted, and requests naming it then answer 404', async () => {
    const created = await create(a, { resource: 'customers', name: 'Doomed', filter: { country: 'FR' } });
    expect(await emails(a, `quickFilter=${created.id}`)).toEqual(['bob@gold.example']);
    const before = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).length;
    const response = await t.request({ method: 'DELETE', url: `/v1/quick-filters/${created.id}`, key: a.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(created);
    const events = (await eventsOf(t, a.organization.id, QUICK_FILTER_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['quickFilter.deleted']);
    const list = await t.request({ url: `/v1/customers?quickFilter=${created.id}`, key: a.key });
    expect(list.statusCode).toBe(404);
    expect(list.json().error.code).toBe('NOT_FOUND');
    const again = await t.request({ method: 'DELETE', url: `/v1/quick-filters/${created.id}`, key: a.key });
    expect(again.statusCode).toBe(404);
  });
});

describe('quickFilter on a list', () => {
  it('ANDs the quick filter with filter and search, and uses its sort when none is given', async () => {
    const gold = await create(a, {
      resource: 'customers',
      name: 'Gold by email desc',
      filter: { 'metadata.tier': 'gold' },
      sort: '-email',
    });
    expect(await emails(a, `quickFilter=${gold.id}`)).toEqual([
      'eve@gold.example',
      'cat@gold.example',
      'bob@gold.example',
      'ann@gold.example',
    ]);
    expect(await emails(a, `quickFilter=${gold.id}&filter=${q({ country: 'DE' })}&sort=email`)).toEqual([
      'ann@gold.example',
      'cat@gold.example',
      'eve@gold.example',
    ]);
    expect(await emails(a, `quickFilter=${gold.id}&filter=${q({ 'tags.name': 'vip' })}&search=cat`)).toEqual([
      'cat@gold.example',
    ]);
    // Its own search is ANDed with the request's.
    const searching = await create(a, { resource: 'customers', name: 'Searches gold', search: 'gold' });
    expect(await emails(a, `quickFilter=${searching.id}&search=an&sort=email`)).toEqual(['ann@gold.example']);
  });

  it("answers a quick filter of another resource with 400 and another organization's with 404", async () => {
    const orders = await create(a, { resource: 'orders', name: 'Orders' });
    const wrong = await t.request({ url: `/v1/customers?quickFilter=${orders.id}`, key: a.key });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details).toEqual([
      { path: 'query.quickFilter', message: 'is a quick filter of orders, not customers' },
    ]);
    const mine = await create(a, { resource: 'customers', name: 'A only' });
    const theirs = await t.request({ url: `/v1/customers?quickFilter=${mine.id}`, key: b.key });
    const missing = await t.request({ url: `/v1/customers?quickFilter=${uuidv7()}`, key: b.key });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error).toEqual(missing.json().error);
    expect((await t.request({ url: '/v1/customers?quickFilter=nope', key: a.key })).statusCode).toBe(400);
    // The request's own bad input is 400 before a missing quick filter is 404.
    const bad = await t.request({ url: `/v1/customers?quickFilter=${uuidv7()}&filter=${q({ nope: 1 })}`, key: a.key });
    expect(bad.statusCode).toBe(400);
  });

  it('works on every list that takes it', async () => {
    const lists: [string, string][] = [
      ['products', '/v1/products'],
      ['orders', '/v1/orders'],
      ['reviews', '/v1/reviews'],
      ['loyalty-rewards', '/v1/loyalty-rewards'],
      ['loyalty-memberships', '/v1/loyalty-memberships'],
      ['loyalty-activity', '/v1/loyalty-activity'],
    ];
    for (const [resource, url] of lists) {
      const saved = await create(a, {
        resource,
        name: resource,
        filter: { createdAt: { $lt: '2000-01-01T00:00:00Z' } },
      });
      const response = await t.request({ url: `${url}?quickFilter=${saved.id}`, key: a.key });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      expect(response.json().data).toEqual([]);
    }
  });

  it('binds the cursor to the quick filter: after it changes, or without it, the cursor is 400', async () => {
    const saved = await create(a, { resource: 'customers', name: 'Paged', filter: { 'metadata.tier': 'gold' } });
    const first = await t.request({ url: `/v1/customers?quickFilter=${saved.id}&limit=2&sort=email`, key: a.key });
    const cursor = first.json().nextCursor as string;
    expect(cursor).toBeTruthy();
    const next = await emails(a, `quickFilter=${saved.id}&limit=2&sort=email&cursor=${cursor}`);
    expect(next).toEqual(['cat@gold.example', 'eve@gold.example']);

    const other = await create(a, { resource: 'customers', name: 'Other', filter: { 'metadata.tier': 'gold' } });
    for (const query of [`sort=email&limit=2`, `quickFilter=${other.id}&sort=email&limit=2`]) {
      const response = await t.request({ url: `/v1/customers?${query}&cursor=${cursor}`, key: a.key });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message).toContain('quick filter');
    }

    // A PATCH that changes nothing keeps updatedAt, so the cursor still works.
    expect((await patch(a, saved.id, { name: 'Paged' })).statusCode).toBe(200);
    expect(await emails(a, `quickFilter=${saved.id}&limit=2&sort=email&cursor=${cursor}`)).toEqual(next);

    expect((await patch(a, saved.id, { name: 'Paged again' })).statusCode).toBe(200);
    const stale = await t.request({
      url: `/v1/customers?quickFilter=${saved.id}&limit=2&sort=email&cursor=${cursor}`,
      key: a.key,
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().error.message).toContain('quick filter changed');
  });

  it('keeps cursors of requests without a quick filter as they were', async () => {
    const first = await t.request({ url: '/v1/customers?limit=2&sort=email', key: a.key });
    const cursor = first.json().nextCursor as string;
    expect(JSON.parse(Buffer.from(cursor, 'base64url').toString())).not.toHaveProperty('q');
    expect((await t.request({ url: `/v1/customers?limit=2&sort=email&cursor=${cursor}`, key: a.key })).statusCode).toBe(
      200,
    );
  });
});

describe('quickFilter on a bulk update', () => {
  it('changes only the records the quick filter, filter and search all select', async () => {
    const tenant = await t.tenant();
    await importCustomers(tenant, [
      { email: 'one@x.example', country: 'DE', metadata: { tier: 'gold' } },
      { email: 'two@x.example', country: 'FR', metadata: { tier: 'gold' } },
      { email: 'three@y.example', country: 'DE', metadata: { tier: 'gold' } },
      { email: 'four@x.example', country: 'DE', metadata: { tier: 'silver' } },
    ]);
    const gold = await create(tenant, { resource: 'customers', name: 'Gold', filter: { 'metadata.tier': 'gold' } });
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/customers/bulk-update?quickFilter=${gold.id}&filter=${q({ country: 'DE' })}&search=x.example`,
      key: tenant.key,
      body: { addTags: ['picked'] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ count: 1 });
    expect(await emails(tenant, `filter=${q({ 'tags.name': 'picked' })}`)).toEqual(['one@x.example']);

    const orders = await create(tenant, { resource: 'orders', name: 'Orders' });
    const wrong = await t.request({
      method: 'PATCH',
      url: `/v1/customers/bulk-update?quickFilter=${orders.id}`,
      key: tenant.key,
      body: { addTags: ['wrong'] },
    });
    expect(wrong.statusCode).toBe(400);
    const theirs = await t.request({
      method: 'PATCH',
      url: `/v1/customers/bulk-update?quickFilter=${gold.id}`,
      key: a.key,
      body: { addTags: ['wrong'] },
    });
    expect(theirs.statusCode).toBe(404);
    expect(await emails(tenant, `filter=${q({ 'tags.name': 'wrong' })}`)).toEqual([]);
  });
});

describe('quickFilter in the analytics query', () => {
  const count = async (tenant: Tenant, body: Record<string, unknown>) => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/analytics/query',
      key: tenant.key,
      body: { resource: 'customers', measures: ['count'], ...body },
    });
    return response;
  };

  it('ANDs the quick filter (its filter and search) with the body filter', async () => {
    const gold = await create(a, { resource: 'customers', name: 'Gold', filter: { 'metadata.tier': 'gold' } });
    const all = await count(a, { quickFilter: gold.id });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().data).toEqual([{ count: 4 }]);
    const de = await count(a, { quickFilter: gold.id, filter: JSON.stringify({ country: 'DE' }) });
    expect(de.json().data).toEqual([{ count: 3 }]);
    const searching = await create(a, {
      resource: 'customers',
      name: 'Gold search',
      filter: { 'metadata.tier': 'gold' },
      search: 'ann',
    });
    expect((await count(a, { quickFilter: searching.id })).json().data).toEqual([{ count: 1 }]);
  });

  it('takes the quick filters of the list a source reads, and refuses another resource with 400, another organization with 404', async () => {
    const members = await create(a, { resource: 'loyalty-memberships', name: 'Members' });
    const ok = await t.request({
      method: 'POST',
      url: '/v1/analytics/query',
      key: a.key,
      body: { resource: 'loyalty-members', measures: ['count'], quickFilter: members.id },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const wrong = await count(a, { quickFilter: members.id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details).toEqual([
      { path: 'body.quickFilter', message: 'is a quick filter of loyalty-memberships, not customers' },
    ]);
    const mine = await create(a, { resource: 'customers', name: 'A' });
    expect((await count(b, { quickFilter: mine.id })).statusCode).toBe(404);
  });
});
