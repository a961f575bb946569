import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsDuring } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WISHLIST_KEYS = ['createdAt', 'customerId', 'id', 'metadata', 'name', 'remoteId', 'updatedAt'];

interface Fixture {
  tenant: Tenant;
  org: string;
  key: string;
  ada: { id: string; email: string };
  bob: { id: string; email: string };
  products: Record<'shirt' | 'mug' | 'hat', { id: string; slug: string; variants: { id: string; slug: string }[] }>;
}

async function insertCustomer(organizationId: string, email: string) {
  const id = uuidv7();
  await db().insertInto('customers').values({ organization_id: organizationId, id, email, metadata: '{}' }).execute();
  return { id, email };
}

const variant = (slug: string) => ({ slug, title: slug, priceCents: 1000, currencyCode: 'USD' });

async function fixture(): Promise<Fixture> {
  const tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  const org = tenant.organization.id;
  const ada = await insertCustomer(org, 'ada@example.com');
  const bob = await insertCustomer(org, 'Bob@Example.com');
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: tenant.key,
    body: {
      data: [
        { slug: 'shirt', title: 'Linen Shirt', variants: [variant('shirt-m'), variant('shirt-l')] },
        { slug: 'mug', title: 'Mug', variants: [variant('mug-one')] },
        { slug: 'hat', title: 'Sun Hat', variants: [variant('hat-one')] },
      ],
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const products = response.json().data;
  const [shirt, mug, hat] = await Promise.all(
    products.map(async (product: any) => {
      const full = await get(tenant.key, `/v1/products/${product.id}?include=variants`);
      return { id: full.id, slug: full.slug, variants: full.variants.map((v: any) => ({ id: v.id, slug: v.slug })) };
    }),
  );
  return { tenant, org, key: tenant.key, ada, bob, products: { shirt, mug, hat } };
}

async function get(key: string, url: string) {
  const response = await t.request({ url, key });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
}
const importWishlists = (key: string, body: unknown) =>
  t.request({ method: 'POST', url: '/v1/wishlists/import', key, body });
async function imported(key: string, body: unknown) {
  const response = await importWishlists(key, body);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: any[]; skipped: any[]; created: number; updated: number; unchanged: number };
}
const addItem = (key: string, id: string, body: unknown) =>
  t.request({ method: 'POST', url: `/v1/wishlists/${id}/items`, key, body });
const wishlistsCount = async (key: string, productId: string) =>
  (await get(key, `/v1/products/${productId}?include=wishlistsCount`)).wishlistsCount as number;
async function newList(f: Fixture, name: string, customer = f.ada.email, items: unknown[] = []) {
  return (await imported(f.key, { data: [{ customer, name, items }] })).data[0];
}

describe('POST /v1/wishlists/import', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('creates wishlists with their items, by customer id or email and product id or slug', async () => {
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          {
            customer: 'ADA@example.com',
            name: 'Summer',
            remoteId: 'r-1',
            metadata: { source: 'shop' },
            items: [
              { product: 'shirt', variant: 'shirt-m', note: 'for July', addedAt: '2026-01-02T03:04:05Z' },
              { product: f.products.mug.id },
            ],
          },
          { customer: f.bob.id, name: 'Gifts', items: [] },
        ],
      }),
    );
    expect(result).toMatchObject({ skipped: [], created: 2, updated: 0, unchanged: 0 });
    const [summer, gifts] = result.data;
    expect(summer).toMatchObject({
      id: expect.stringMatching(UUID),
      customerId: f.ada.id,
      name: 'Summer',
      remoteId: 'r-1',
      metadata: { source: 'shop' },
      itemsCount: 2,
      items: [
        {
          productId: f.products.shirt.id,
          productVariantId: f.products.shirt.variants[0]!.id,
          note: 'for July',
          addedAt: '2026-01-02T03:04:05.000Z',
        },
        { productId: f.products.mug.id, productVariantId: null, note: null },
      ],
    });
    expect(gifts).toMatchObject({ customerId: f.bob.id, remoteId: null, items: [] });
    expect(events.map((event) => event.name)).toEqual(['wishlist.created', 'wishlist.created']);
    expect(events[0]!.payload.items).toHaveLength(2);
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(1);
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(1);
  });

  it('answers and sends a created list with its items exactly as a read of it shows them', async () => {
    const g = await fixture();
    const { result, events } = await eventsDuring(t, g.org, () =>
      imported(g.key, {
        data: [
          {
            customer: g.bob.email,
            name: 'Read back',
            items: [
              { product: 'hat', note: 'blue' },
              { product: 'shirt', variant: 'shirt-l' },
              { product: g.products.mug.id },
              { product: 'shirt', variant: 'shirt-m', note: 'or this one' },
            ],
          },
          {
            customer: g.ada.id,
            name: 'Dated',
            items: [
              { product: 'mug', addedAt: '2026-03-01T00:00:00.000500Z' },
              { product: 'hat', addedAt: '2026-03-01T00:00:00.000200Z' },
              { product: 'shirt', variant: 'shirt-m' },
            ],
          },
        ],
      }),
    );
    expect(result.created).toBe(2);
    for (const [index, answered] of result.data.entries()) {
      const stored = await get(g.key, `/v1/wishlists/${answered.id}?include=items`);
      expect({ ...stored, itemsCount: stored.items.length }).toEqual(answered);
      expect(events[index]!.payload).toEqual(answered);
    }
    const [first, dated] = result.data;
    expect(first.items.map((item: any) => item.addedAt)).toEqual(Array(4).fill(first.createdAt));
    expect(dated.items.map((item: any) => item.productId)).toEqual([
      g.products.hat.id,
      g.products.mug.id,
      g.products.shirt.id,
    ]);
    expect(await wishlistsCount(g.key, g.products.shirt.id)).toBe(2);
  });

  it('matches on remoteId, else customer and name; replaces items exactly; unchanged rows write nothing', async () => {
    const before = (await get(f.key, '/v1/wishlists?filter=' + encodeURIComponent('{"remoteId":"r-1"}'))).data[0];
    const items = await get(f.key, `/v1/wishlists/${before.id}?include=items`);
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          {
            customer: f.ada.id,
            name: 'Summer 2026',
            remoteId: 'r-1',
            metadata: { source: 'shop' },
            items: [{ product: 'shirt', variant: 'shirt-m', note: 'for July' }, { product: 'hat' }],
          },
          { customer: 'bob@example.com', name: 'Gifts', items: [] },
        ],
      }),
    );
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const [summer] = result.data;
    expect(summer.id).toBe(before.id);
    expect(summer.name).toBe('Summer 2026');
    // The kept item keeps its id and addedAt; the mug went, the hat came.
    expect(summer.items[0]).toEqual(items.items[0]);
    expect(summer.items.map((item: any) => item.productId)).toEqual([f.products.shirt.id, f.products.hat.id]);
    expect(events.map((event) => event.name)).toEqual(['wishlist.updated']);
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(0);
    expect(await wishlistsCount(f.key, f.products.hat.id)).toBe(1);

    // The same rows again: nothing changes, nothing is sent.
    const again = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          {
            customer: f.ada.id,
            name: 'Summer 2026',
            remoteId: 'r-1',
            items: [{ product: 'shirt', variant: 'shirt-m', note: 'for July' }, { product: 'hat' }],
          },
        ],
      }),
    );
    expect(again.result).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    expect(again.events).toEqual([]);
    expect(again.result.data[0].updatedAt).toBe(summer.updatedAt);
  });

  it('skips rows with a missing customer, product or variant, naming the item; strict fails with 422', async () => {
    const rows = [
      { customer: 'nobody@example.com', name: 'X', items: [] },
      { customer: f.ada.id, name: 'Y', items: [{ product: 'mug' }, { product: 'nothing' }] },
      { customer: f.ada.id, name: 'Z', items: [{ product: 'shirt', variant: 'shirt-xxl' }] },
      { customer: f.ada.id, name: 'Fine', items: [{ product: 'mug' }] },
    ];
    const result = await imported(f.key, { data: rows });
    expect(result.skipped).toEqual([
      { index: 0, message: 'Customer "nobody@example.com" does not exist in this organization.' },
      { index: 1, itemIndex: 1, message: 'Product "nothing" does not exist in this organization.' },
      { index: 2, itemIndex: 0, message: 'Variant "shirt-xxl" does not exist on product "shirt".' },
    ]);
    expect(result).toMatchObject({ created: 1, updated: 0, unchanged: 0 });
    const { result: strict, events } = await eventsDuring(t, f.org, () =>
      importWishlists(f.key, { data: [rows[3], rows[1]], strict: true }),
    );
    expect(strict.statusCode, strict.body).toBe(422);
    expect(strict.json().error.details[0].path).toBe('body.data[1].items[1]');
    expect(events).toEqual([]);
  });

  it('refuses repeated remoteIds, repeated items and more than 1,000 rows', async () => {
    const repeated = await importWishlists(f.key, {
      data: [
        { customer: f.ada.id, name: 'A', remoteId: 'same', items: [] },
        { customer: f.ada.id, name: 'B', remoteId: 'same', items: [] },
      ],
    });
    expect(repeated.statusCode).toBe(400);
    const items = await importWishlists(f.key, {
      data: [{ customer: f.ada.id, name: 'A', items: [{ product: 'mug' }, { product: f.products.mug.id }] }],
    });
    expect(items.statusCode).toBe(400);
    expect(items.json().error.details[0].path).toBe('body.data[0].items[1]');
    const big = await importWishlists(f.key, {
      data: Array.from({ length: 1001 }, (_, index) => ({ customer: f.ada.id, name: `L${index}`, items: [] })),
    });
    expect(big.statusCode).toBe(413);
    const bad = await importWishlists(f.key, { data: [{ customer: f.ada.id, name: '   ', items: [] }] });
    expect(bad.statusCode).toBe(400);
  });
});

describe('POST /v1/wishlists/import: one list, two rows', () => {
  it('gives a list named by a remoteId to that row only: a later row without one, naming its old name, creates another', async () => {
    const f = await fixture();
    const list = (
      await imported(f.key, {
        data: [{ customer: f.ada.email, name: 'Old', remoteId: 'r-x', items: [{ product: 'mug' }] }],
      })
    ).data[0];
    for (const order of [0, 1]) {
      const rows = [
        { customer: f.ada.email, name: `Renamed ${order}`, remoteId: 'r-x', items: [{ product: 'mug' }] },
        { customer: f.ada.email, name: order ? `Renamed 0` : 'Old', items: [{ product: 'mug' }] },
      ];
      const result = await imported(f.key, { data: order ? rows.reverse() : rows });
      const byRemote = result.data.find((each) => each.remoteId === 'r-x');
      expect(byRemote).toMatchObject({ id: list.id, name: `Renamed ${order}` });
      expect(result.data.filter((each) => each.id === list.id)).toHaveLength(1);
      expect(result).toMatchObject({ created: 1, updated: 1 });
    }
    // Three lists hold the mug: the renamed one and the two new ones, each counted once.
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(3);
  });
});

describe('GET /v1/wishlists', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
    await imported(f.key, {
      data: [
        {
          customer: f.ada.id,
          name: 'Alpha',
          remoteId: 'a',
          metadata: { season: 'summer' },
          items: [{ product: 'shirt', variant: 'shirt-l' }],
        },
        { customer: f.bob.id, name: 'Beta', items: [{ product: 'mug' }] },
        { customer: f.ada.id, name: 'Gamma', items: [] },
      ],
    });
  });
  const names = async (query: string) =>
    (await get(f.key, `/v1/wishlists?${query}`)).data.map((wishlist: any) => wishlist.name);
  const filter = (document: unknown) => `filter=${encodeURIComponent(JSON.stringify(document))}`;

  it('lists newest first, with the record shape, and sorts by name and updatedAt', async () => {
    const page = await get(f.key, '/v1/wishlists');
    expect(page.data.map((w: any) => w.name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(Object.keys(page.data[0]).sort()).toEqual(WISHLIST_KEYS);
    expect(await names('sort=name')).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(await names('sort=-name')).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(await names('sort=updatedAt')).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(await names('sort=name&limit=1')).toEqual(['Alpha']);
  });

  it('filters by every documented field and searches name and customer email', async () => {
    expect(await names(filter({ customerId: f.ada.id }))).toEqual(['Gamma', 'Alpha']);
    expect(await names(filter({ 'customer.email': { $eq: 'Bob@Example.com' } }))).toEqual(['Beta']);
    expect(await names(filter({ name: 'Beta' }))).toEqual(['Beta']);
    expect(await names(filter({ remoteId: 'a' }))).toEqual(['Alpha']);
    expect(await names(filter({ 'items.productId': f.products.mug.id }))).toEqual(['Beta']);
    expect(await names(filter({ 'items.productVariantId': f.products.shirt.variants[1]!.id }))).toEqual(['Alpha']);
    expect(await names(filter({ 'metadata.season': 'summer' }))).toEqual(['Alpha']);
    expect(await names(filter({ createdAt: { $gte: '2000-01-01T00:00:00Z' } }))).toHaveLength(3);
    expect(await names(filter({ updatedAt: { $lt: '2000-01-01T00:00:00Z' } }))).toEqual([]);
    expect(await names('search=amm')).toEqual(['Gamma']);
    expect(await names('search=bob@')).toEqual(['Beta']);
  });

  it('includes items, itemsCount and customer', async () => {
    const page = await get(f.key, `/v1/wishlists?sort=name&include=items,itemsCount,customer`);
    const [alpha, , gamma] = page.data;
    expect(alpha.itemsCount).toBe(1);
    expect(alpha.items[0]).toMatchObject({
      productId: f.products.shirt.id,
      productVariantId: f.products.shirt.variants[1]!.id,
    });
    expect(alpha.customer).toMatchObject({ id: f.ada.id, email: 'ada@example.com' });
    expect(gamma).toMatchObject({ items: [], itemsCount: 0 });
  });

  it('answers 400 for an unknown filter field, sort or include', async () => {
    for (const query of [filter({ nope: 1 }), 'sort=rating', 'include=reviews']) {
      const response = await t.request({ url: `/v1/wishlists?${query}`, key: f.key });
      expect(response.statusCode, query).toBe(400);
    }
  });
});

describe('GET, PATCH and DELETE /v1/wishlists/{id}', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('gets one with includes; 404 for a missing one and for another organization’s', async () => {
    const list = await newList(f, 'Mine', f.ada.email, [{ product: 'mug' }]);
    const one = await get(f.key, `/v1/wishlists/${list.id}?include=items,itemsCount,customer`);
    expect(one).toMatchObject({ id: list.id, itemsCount: 1, customer: { id: f.ada.id } });
    const other = await t.tenant();
    for (const [method, url, body] of [
      ['GET', `/v1/wishlists/${list.id}`],
      ['PATCH', `/v1/wishlists/${list.id}`, { name: 'Theirs' }],
      ['DELETE', `/v1/wishlists/${list.id}`],
      ['POST', `/v1/wishlists/${list.id}/items`, { product: 'mug' }],
      ['DELETE', `/v1/wishlists/${list.id}/items/${one.items[0].id}`],
    ] as const) {
      const response = await t.request({ method, url, key: other.key, ...(body ? { body } : {}) });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    const missing = await t.request({ url: `/v1/wishlists/${uuidv7()}`, key: f.key });
    expect(missing.statusCode).toBe(404);
    expect(await get(f.key, `/v1/wishlists/${list.id}`)).toMatchObject({ name: 'Mine' });
  });

  it('renames and replaces metadata with wishlist.updated; a PATCH that changes nothing writes nothing', async () => {
    const list = await newList(f, 'Old');
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({
        method: 'PATCH',
        url: `/v1/wishlists/${list.id}`,
        key: f.key,
        body: { name: 'New', metadata: { a: '1' } },
      }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ name: 'New', metadata: { a: '1' } });
    expect(events.map((event) => event.name)).toEqual(['wishlist.updated']);
    expect(events[0]!.payload).toMatchObject({ name: 'New', items: [], itemsCount: 0 });
    const same = await eventsDuring(t, f.org, () =>
      t.request({
        method: 'PATCH',
        url: `/v1/wishlists/${list.id}`,
        key: f.key,
        body: { name: 'New', metadata: { a: '1' } },
      }),
    );
    expect(same.result.json().updatedAt).toBe(result.json().updatedAt);
    expect(same.events).toEqual([]);
    for (const body of [{}, { name: '' }, { customerId: f.bob.id }, { metadata: { a: 1 } }]) {
      const bad = await t.request({ method: 'PATCH', url: `/v1/wishlists/${list.id}`, key: f.key, body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().error.code).toBeDefined();
    }
  });

  it('deletes with wishlist.deleted carrying its items, and the products count it no more', async () => {
    const list = await newList(f, 'Doomed', f.ada.email, [{ product: 'hat' }]);
    expect(await wishlistsCount(f.key, f.products.hat.id)).toBe(1);
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/wishlists/${list.id}`, key: f.key }),
    );
    expect(result.statusCode).toBe(200);
    expect(events.map((event) => event.name)).toEqual(['wishlist.deleted']);
    expect(events[0]!.payload.items).toHaveLength(1);
    expect(await wishlistsCount(f.key, f.products.hat.id)).toBe(0);
    expect((await t.request({ url: `/v1/wishlists/${list.id}`, key: f.key })).statusCode).toBe(404);
  });
});

describe('wishlist items', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('refuses a new item on a list holding 500 (409, nothing changed), and still takes a note on a held one', async () => {
    const f = await fixture();
    const many = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: f.key,
      body: { data: Array.from({ length: 500 }, (_, i) => ({ slug: `full-${i}`, title: `Full ${i}` })) },
    });
    expect(many.statusCode, many.body).toBe(200);
    const full = await newList(
      f,
      'Full',
      f.ada.email,
      Array.from({ length: 500 }, (_, i) => ({ product: `full-${i}` })),
    );
    expect(full.itemsCount).toBe(500);
    const { result, events } = await eventsDuring(t, f.org, () => addItem(f.key, full.id, { product: 'mug' }));
    expect(result.statusCode).toBe(409);
    expect(result.json().error.message).toMatch(/500 items/);
    expect(events).toEqual([]);
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(0);
    const noted = await addItem(f.key, full.id, { product: 'full-0', note: 'still fine' });
    expect(noted.statusCode, noted.body).toBe(200);
  });

  it('adds by slug or id (201), counts a product once per list, edits the note (200), removes', async () => {
    const list = await newList(f, 'Items');
    const { result: first, events } = await eventsDuring(t, f.org, () =>
      addItem(f.key, list.id, { product: 'shirt', variant: 'shirt-m', note: 'M please' }),
    );
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().items).toEqual([
      {
        id: expect.stringMatching(UUID),
        productId: f.products.shirt.id,
        productVariantId: f.products.shirt.variants[0]!.id,
        note: 'M please',
        addedAt: expect.any(String),
      },
    ]);
    expect(events.map((event) => event.name)).toEqual(['wishlist.updated']);
    expect(first.json().updatedAt > list.updatedAt).toBe(true);
    // The same product again through another variant: a second item, still one wishlist for the product.
    const second = await addItem(f.key, list.id, {
      product: f.products.shirt.id,
      variant: f.products.shirt.variants[1]!.id,
    });
    expect(second.statusCode).toBe(201);
    expect(second.json().itemsCount).toBe(2);
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(1);
    // The same product and variant: no new item; the same note changes nothing, a new one edits it.
    const same = await eventsDuring(t, f.org, () => addItem(f.key, list.id, { product: 'shirt', variant: 'shirt-m' }));
    expect(same.result.statusCode).toBe(200);
    expect(same.events).toEqual([]);
    const edited = await eventsDuring(t, f.org, () =>
      addItem(f.key, list.id, { product: 'shirt', variant: 'shirt-m', note: 'L after all' }),
    );
    expect(edited.result.statusCode).toBe(200);
    expect(edited.result.json().items[0]).toMatchObject({ id: first.json().items[0].id, note: 'L after all' });
    expect(edited.events.map((event) => event.name)).toEqual(['wishlist.updated']);

    const [m, l] = edited.result.json().items;
    const removed = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/wishlists/${list.id}/items/${m.id}`, key: f.key }),
    );
    expect(removed.result.statusCode).toBe(200);
    expect(removed.result.json().items).toEqual([l]);
    expect(removed.events.map((event) => event.name)).toEqual(['wishlist.updated']);
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(1);
    await t.request({ method: 'DELETE', url: `/v1/wishlists/${list.id}/items/${l.id}`, key: f.key });
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(0);
    const gone = await t.request({ method: 'DELETE', url: `/v1/wishlists/${list.id}/items/${l.id}`, key: f.key });
    expect(gone.statusCode).toBe(404);
  });

  it('answers 422 for a missing product or variant and 400 for a bad body, changing nothing', async () => {
    const list = await newList(f, 'Refusals');
    const missing = await addItem(f.key, list.id, { product: 'nothing' });
    expect(missing.statusCode).toBe(422);
    const variant = await addItem(f.key, list.id, { product: 'mug', variant: 'shirt-m' });
    expect(variant.statusCode).toBe(422);
    for (const body of [
      {},
      { product: '' },
      { product: 'mug', extra: 1 },
      { product: 'mug', note: 'x'.repeat(1001) },
    ]) {
      const bad = await addItem(f.key, list.id, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await get(f.key, `/v1/wishlists/${list.id}?include=itemsCount`)).itemsCount).toBe(0);
  });

  it('keeps wishlistsCount exact under concurrent adds, and sort=wishlistsCount follows it', async () => {
    const lists = await Promise.all(Array.from({ length: 6 }, (_, index) => newList(f, `Concurrent ${index}`)));
    // Every list gets the mug at once, and each list also gets it twice more through concurrent requests.
    const responses = await Promise.all(
      lists.flatMap((list) => [
        addItem(f.key, list.id, { product: 'mug' }),
        addItem(f.key, list.id, { product: 'mug', variant: 'mug-one' }),
        addItem(f.key, list.id, { product: f.products.mug.id }),
      ]),
    );
    for (const response of responses) expect([200, 201], response.body).toContain(response.statusCode);
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(6);
    await Promise.all(lists.slice(0, 2).map((list) => addItem(f.key, list.id, { product: 'hat' })));
    const sorted = await get(f.key, '/v1/products?sort=-wishlistsCount&include=wishlistsCount');
    expect(sorted.data.map((p: any) => [p.slug, p.wishlistsCount])).toEqual([
      ['mug', 6],
      ['hat', 2],
      ['shirt', 0],
    ]);
    // Concurrent removals come back down exactly.
    await Promise.all(
      lists.map((list) => t.request({ method: 'DELETE', url: `/v1/wishlists/${list.id}`, key: f.key })),
    );
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(0);
    expect(await wishlistsCount(f.key, f.products.hat.id)).toBe(0);
    // A count back at 0 keeps no row (migration 0031), so the three products tie at 0 and sort by id alone.
    expect(
      await db().selectFrom('product_wishlist_counts').selectAll().where('organization_id', '=', f.org).execute(),
    ).toEqual([]);
    const ids = Object.values(f.products)
      .map((product) => product.id)
      .sort();
    for (const [sort, order] of [
      ['-wishlistsCount', [...ids].reverse()],
      ['wishlistsCount', ids],
    ] as const) {
      expect((await get(f.key, `/v1/products?sort=${sort}`)).data.map((p: any) => p.id)).toEqual(order);
    }
  });
});

describe('deleting products and customers', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('deleting a product removes its items, with wishlist.updated for each list holding it', async () => {
    const a = await newList(f, 'A', f.ada.email, [{ product: 'hat' }, { product: 'mug' }]);
    const b = await newList(f, 'B', f.bob.email, [{ product: 'hat', variant: 'hat-one' }, { product: 'hat' }]);
    await newList(f, 'C', f.bob.email, [{ product: 'mug' }]);
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/products/${f.products.hat.id}`, key: f.key }),
    );
    expect(result.statusCode, result.body).toBe(200);
    const updated = events.filter((event) => event.name === 'wishlist.updated');
    expect(updated.map((event) => event.payload.id).sort()).toEqual([a.id, b.id].sort());
    expect(events.at(-1)!.name).toBe('product.deleted');
    expect((await get(f.key, `/v1/wishlists/${a.id}?include=items`)).items.map((i: any) => i.productId)).toEqual([
      f.products.mug.id,
    ]);
    expect((await get(f.key, `/v1/wishlists/${b.id}?include=items`)).items).toEqual([]);
    expect(await wishlistsCount(f.key, f.products.mug.id)).toBe(2);
  });

  it('takes a product or item id in upper case like any other (found by the fuzzer: the delete failed with 409)', async () => {
    const list = await newList(f, 'Upper', f.ada.email, [{ product: 'mug' }]);
    const other = await newList(f, 'Upper too', f.bob.email, [{ product: 'mug' }]);
    const withItems = await get(f.key, `/v1/wishlists/${list.id}?include=items`);
    const removed = await t.request({
      method: 'DELETE',
      url: `/v1/wishlists/${list.id}/items/${withItems.items[0].id.toUpperCase()}`,
      key: f.key,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const deleted = await t.request({
      method: 'DELETE',
      url: `/v1/products/${f.products.mug.id.toUpperCase()}`,
      key: f.key,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await get(f.key, `/v1/wishlists/${other.id}?include=items`)).items).toEqual([]);
  });

  it('deleting a customer deletes their wishlists with wishlist.deleted, and the counts follow', async () => {
    const customer = await insertCustomer(f.org, 'leaving@example.com');
    const [x, y] = (
      await imported(f.key, {
        data: [
          { customer: customer.id, name: 'X', items: [{ product: 'shirt' }] },
          { customer: customer.id, name: 'Y', items: [{ product: 'shirt', variant: 'shirt-l' }] },
        ],
      })
    ).data;
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(2);
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/customers/${customer.id}`, key: f.key }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(
      events
        .filter((event) => event.name === 'wishlist.deleted')
        .map((event) => event.payload.id)
        .sort(),
    ).toEqual([x.id, y.id].sort());
    expect(await wishlistsCount(f.key, f.products.shirt.id)).toBe(0);
    expect((await t.request({ url: `/v1/wishlists/${x.id}`, key: f.key })).statusCode).toBe(404);
  });
});

describe('permissions', () => {
  it('reads need wishlists:read and writes wishlists:write', async () => {
    const tenant = await t.tenant({ permissions: ['wishlists:read'] });
    expect((await t.request({ url: '/v1/wishlists', key: tenant.key })).statusCode).toBe(200);
    const write = await importWishlists(tenant.key, { data: [] });
    expect(write.statusCode).toBe(403);
    const none = await t.tenant({ permissions: ['products:read'] });
    expect((await t.request({ url: '/v1/wishlists', key: none.key })).statusCode).toBe(403);
  });
});
