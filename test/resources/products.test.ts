import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf, eventsDuring } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const orgOf = (tenant: Tenant) => tenant.organization.id;
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const PRODUCT_KEYS = [
  'createdAt',
  'description',
  'id',
  'imageUrl',
  'metadata',
  'notes',
  'slug',
  'title',
  'updatedAt',
  'url',
];
const VARIANT_KEYS = ['available', 'currencyCode', 'id', 'imageUrl', 'metadata', 'priceCents', 'slug', 'title'];
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A tenant with room for many requests (the rate limit has its own tests). */
const tenant = () => t.tenant({ apiRequestsPerMinute: 1_000_000 });

async function importProducts(who: Tenant, rows: unknown[], options: Record<string, unknown> = {}) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: who.key,
    body: { data: rows, ...options },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: any[]; skipped: any[] };
}

async function get(who: Tenant, url: string) {
  const response = await t.request({ url, key: who.key });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
}

/** Every row of a list, walking nextCursor. */
async function walk(who: Tenant, url: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const body = await get(
      who,
      `${url}${cursor ? `${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...body.data);
    cursor = body.nextCursor;
  } while (cursor);
  return rows;
}

async function insertSite(organizationId: string, domain: string): Promise<string> {
  const id = uuidv7();
  await db()
    .insertInto('sites')
    .values({ organization_id: organizationId, id, name: domain, domain, platform: 'shopify', currency_code: 'USD' })
    .execute();
  return id;
}

async function insertReview(organizationId: string, productId: string, published: boolean): Promise<string> {
  const id = uuidv7();
  await db()
    .insertInto('reviews')
    .values({ organization_id: organizationId, id, product_id: productId, rating: 5, published })
    .execute();
  return id;
}

const siteLinks = async (organizationId: string, productId: string) =>
  (
    await db()
      .selectFrom('product_sites')
      .select('site_id')
      .where('organization_id', '=', organizationId)
      .where('product_id', '=', productId)
      .orderBy('site_id')
      .execute()
  ).map((row) => row.site_id);

const at = (day: number, minute = 0) => new Date(Date.UTC(2026, 0, day, 0, minute)).toISOString();

describe('GET /v1/products', () => {
  let owner: Tenant;
  let stranger: Tenant;
  const bySlug: Record<string, any> = {};

  beforeAll(async () => {
    owner = await tenant();
    stranger = await tenant();
    const { data } = await importProducts(owner, [
      {
        slug: 'red-shirt',
        title: 'Red Shirt',
        description: 'Cotton',
        imageUrl: 'https://img.example/red.png',
        url: 'https://shop.example/red',
        metadata: { color: 'red', size: 'M' },
        tags: ['summer', 'sale'],
        variants: [
          {
            slug: 'red-s',
            title: 'Small',
            priceCents: 1999,
            currencyCode: 'EUR',
            available: false,
            imageUrl: 'https://img.example/rs.png',
            metadata: { stock: '5' },
          },
          { slug: 'red-m', title: 'Medium' },
        ],
        createdAt: at(1),
      },
      {
        slug: 'blue-shirt',
        title: 'Blue Shirt',
        metadata: { color: 'blue' },
        tags: ['winter'],
        variants: [{ slug: 'blue-s', title: 'Small', metadata: { stock: '0' } }],
        createdAt: at(2),
      },
      { slug: 'green_hat', title: '100% Wool Hat', createdAt: at(3) },
      { slug: 'mug', title: 'Mug', tags: ['sale'], createdAt: at(4) },
    ]);
    for (const product of data) bySlug[product.slug] = product;
    // The other organization has look-alikes that must never show up.
    await importProducts(stranger, [
      {
        slug: 'red-shirt',
        title: 'Red Shirt',
        metadata: { color: 'red' },
        tags: ['summer', 'sale'],
        variants: [{ slug: 'red-s', title: 'Small' }],
        createdAt: at(1),
      },
      { slug: 'stranger-mug', title: 'Mug', tags: ['sale'], createdAt: at(5) },
    ]);
  });

  const slugs = (rows: any[]) => rows.map((row) => row.slug);

  it("lists the organization's products, newest first, with exactly the product fields", async () => {
    const body = await get(owner, '/v1/products');
    expect(body.nextCursor).toBeNull();
    expect(slugs(body.data)).toEqual(['mug', 'green_hat', 'blue-shirt', 'red-shirt']);
    for (const product of body.data) expect(Object.keys(product).sort()).toEqual(PRODUCT_KEYS);
    expect(body.data[3]).toEqual({
      id: bySlug['red-shirt'].id,
      slug: 'red-shirt',
      title: 'Red Shirt',
      description: 'Cotton',
      imageUrl: 'https://img.example/red.png',
      url: 'https://shop.example/red',
      metadata: { color: 'red', size: 'M' },
      notes: '',
      createdAt: at(1),
      updatedAt: at(1),
    });
    expect(body.data[0]).toMatchObject({ description: '', imageUrl: '', url: '', metadata: {}, notes: '' });
  });

  it('sorts by every allowed sort in both directions, ties broken by id in the sort direction', async () => {
    const who = await tenant();
    const { data } = await importProducts(who, [
      { slug: 's1', title: 'banana', createdAt: at(2) },
      { slug: 's2', title: 'apple', createdAt: at(1) },
      { slug: 's3', title: 'banana', createdAt: at(2) },
      { slug: 's4', title: 'cherry', createdAt: at(3) },
      { slug: 's5', title: 'apple', createdAt: at(2) },
    ]);
    const counts: Record<string, number> = { s1: 3, s2: 0, s3: 7, s4: 3, s5: 1 };
    // A product without a counter row counts 0 (migration 0031).
    for (const product of data) {
      if (counts[product.slug])
        await db()
          .insertInto('product_wishlist_counts')
          .values({ organization_id: orgOf(who), product_id: product.id, wishlists_count: counts[product.slug]! })
          .execute();
    }
    const idOf = Object.fromEntries(data.map((product: any) => [product.slug, product.id]));
    const byKey = (key: (slug: string) => string | number, descending: boolean) =>
      Object.keys(idOf).sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const primary = x < y ? -1 : x > y ? 1 : idOf[a] < idOf[b] ? -1 : 1;
        return descending ? -primary : primary;
      });
    const rowsOf = Object.fromEntries(data.map((product: any) => [product.slug, product]));
    const expected: Record<string, string[]> = {
      title: byKey((s) => rowsOf[s].title, false),
      '-title': byKey((s) => rowsOf[s].title, true),
      createdAt: byKey((s) => rowsOf[s].createdAt, false),
      '-createdAt': byKey((s) => rowsOf[s].createdAt, true),
      wishlistsCount: byKey((s) => counts[s]!, false),
      '-wishlistsCount': byKey((s) => counts[s]!, true),
    };
    expect(expected.title!.slice(0, 2).sort()).toEqual(['s2', 's5']);
    for (const [sort, order] of Object.entries(expected)) {
      expect(slugs(await walk(who, `/v1/products?sort=${sort}&limit=2`)), sort).toEqual(order);
      expect(slugs((await get(who, `/v1/products?sort=${sort}`)).data), sort).toEqual(order);
    }
    expect(slugs((await get(who, '/v1/products')).data)).toEqual(expected['-createdAt']);
  });

  it('adds each include with its exact shape, and only the ones requested', async () => {
    const red = bySlug['red-shirt'];
    await insertReview(orgOf(owner), red.id, true);
    await insertReview(orgOf(owner), red.id, true);
    await insertReview(orgOf(owner), red.id, false);
    await db()
      .insertInto('product_wishlist_counts')
      .values({ organization_id: orgOf(owner), product_id: red.id, wishlists_count: 4 })
      .execute();

    const body = await get(
      owner,
      '/v1/products?sort=createdAt&include=importJob,reviewsCount,wishlistsCount,variantsCount,tags,variants',
    );
    const [first, second, third, fourth] = body.data;
    expect(Object.keys(first).sort()).toEqual(
      [...PRODUCT_KEYS, 'importJob', 'reviewsCount', 'tags', 'variants', 'variantsCount', 'wishlistsCount'].sort(),
    );
    expect(first.importJob).toEqual({
      id: expect.any(String),
      type: 'products',
      action: 'created',
      row: 0,
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect(second.importJob).toEqual({ ...first.importJob, row: 1 });
    expect(first.reviewsCount).toBe(2);
    expect(first.wishlistsCount).toBe(4);
    expect(first.variantsCount).toBe(2);
    expect(first.tags).toEqual(['sale', 'summer']);
    expect(first.variants).toEqual([
      {
        id: expect.any(String),
        slug: 'red-s',
        title: 'Small',
        imageUrl: 'https://img.example/rs.png',
        priceCents: 1999,
        currencyCode: 'EUR',
        available: false,
        metadata: { stock: '5' },
      },
      {
        id: expect.any(String),
        slug: 'red-m',
        title: 'Medium',
        imageUrl: '',
        priceCents: 0,
        currencyCode: 'USD',
        available: true,
        metadata: {},
      },
    ]);
    for (const variant of first.variants) expect(Object.keys(variant).sort()).toEqual(VARIANT_KEYS);
    expect(third).toMatchObject({
      slug: 'green_hat',
      reviewsCount: 0,
      wishlistsCount: 0,
      variantsCount: 0,
      tags: [],
      variants: [],
    });
    expect(fourth).toMatchObject({ slug: 'mug', tags: ['sale'] });

    for (const include of ['importJob', 'reviewsCount', 'wishlistsCount', 'variantsCount', 'tags', 'variants']) {
      const one = (await get(owner, `/v1/products?sort=createdAt&include=${include}`)).data[0];
      expect(Object.keys(one).sort(), include).toEqual([...PRODUCT_KEYS, include].sort());
      expect(one[include], include).toEqual(first[include]);
    }
    // Spaces and repeats in the list are tolerated.
    const spaced = (await get(owner, `/v1/products?sort=createdAt&include=${encodeURIComponent(' tags , tags')}`))
      .data[0];
    expect(spaced.tags).toEqual(['sale', 'summer']);
  });

  it('filters on every filterable field', async () => {
    const red = bySlug['red-shirt'];
    const redVariants = (await get(owner, `/v1/products/${red.id}?include=variants`)).variants;
    const cases: [unknown, string[]][] = [
      [{ id: red.id }, ['red-shirt']],
      [{ id: { $nin: [red.id, bySlug.mug.id] } }, ['green_hat', 'blue-shirt']],
      [{ slug: 'green_hat' }, ['green_hat']],
      [{ slug: { $startsWith: 'GREEN_' } }, ['green_hat']],
      [{ title: { $contains: '% wool' } }, ['green_hat']],
      [{ title: { $in: ['Mug', 'Blue Shirt'] } }, ['mug', 'blue-shirt']],
      [{ 'metadata.color': 'red' }, ['red-shirt']],
      [{ 'metadata.color': { $ne: 'red' } }, ['mug', 'green_hat', 'blue-shirt']],
      [{ 'metadata.color': { $exists: false } }, ['mug', 'green_hat']],
      [{ 'metadata.size': { $exists: true } }, ['red-shirt']],
      [{ createdAt: { $gte: at(2), $lt: at(4) } }, ['green_hat', 'blue-shirt']],
      [{ createdAt: '2026-01-03T01:00:00+01:00' }, ['green_hat']],
      [{ 'tags.name': 'sale' }, ['mug', 'red-shirt']],
      [{ 'tags.name': { $in: ['winter', 'summer'] } }, ['blue-shirt', 'red-shirt']],
      [{ 'tags.name': null }, ['green_hat']],
      [{ 'tags.name': { $exists: true } }, ['mug', 'blue-shirt', 'red-shirt']],
      [{ 'variants.id': redVariants[1].id }, ['red-shirt']],
      [{ 'variants.title': 'Small' }, ['blue-shirt', 'red-shirt']],
      [{ 'variants.title': { $startsWith: 'med' } }, ['red-shirt']],
      [{ 'variants.slug': { $in: ['blue-s', 'nope'] } }, ['blue-shirt']],
      [{ 'variants.metadata.stock': { $gt: '1' } }, ['red-shirt']],
      [{ 'variants.metadata.stock': '0' }, ['blue-shirt']],
      [{ 'variants.slug': { $exists: false } }, ['mug', 'green_hat']],
      [{ $or: [{ 'tags.name': 'winter' }, { slug: 'mug' }], $not: { title: { $contains: 'shirt' } } }, ['mug']],
    ];
    for (const [filter, expected] of cases) {
      const response = await t.request({ url: `/v1/products?filter=${q(filter)}`, key: owner.key });
      expect(response.statusCode, `${JSON.stringify(filter)}: ${response.body}`).toBe(200);
      expect(slugs(response.json().data), JSON.stringify(filter)).toEqual(expected);
    }
  });

  it('refuses fields that are not filterable, a bare metadata path and mistyped values', async () => {
    for (const [filter, path] of [
      [{ description: 'Cotton' }, 'query.filter.description'],
      [{ notes: '' }, 'query.filter.notes'],
      [{ wishlistsCount: 1 }, 'query.filter.wishlistsCount'],
      [{ metadata: { color: 'red' } }, 'query.filter.metadata'],
      [{ 'variants.metadata': 'x' }, 'query.filter.variants.metadata'],
      [{ 'variants.priceCents': 1 }, 'query.filter.variants.priceCents'],
      [{ id: 'abc' }, 'query.filter.id'],
      [{ 'variants.id': { $in: ['abc'] } }, 'query.filter.variants.id.$in[0]'],
      [{ createdAt: { $gt: '2026-01-01T00:00:00' } }, 'query.filter.createdAt.$gt'],
      [{ title: { $gt: 5 } }, 'query.filter.title.$gt'],
      [{ 'tags.name': { $contains: '' } }, 'query.filter.tags.name.$contains'],
    ] as const) {
      const response = await t.request({ url: `/v1/products?filter=${q(filter)}`, key: owner.key });
      expect(response.statusCode, JSON.stringify(filter)).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect(response.json().error.details[0].path, JSON.stringify(filter)).toBe(path);
    }
  });

  it('searches title and slug, case-insensitively, with % and _ taken literally, ANDed with the filter', async () => {
    const search = async (text: string, filter?: unknown) =>
      slugs(
        (await get(owner, `/v1/products?search=${encodeURIComponent(text)}${filter ? `&filter=${q(filter)}` : ''}`))
          .data,
      );
    expect(await search('SHIRT')).toEqual(['blue-shirt', 'red-shirt']);
    expect(await search('red-')).toEqual(['red-shirt']);
    expect(await search('n_h')).toEqual(['green_hat']);
    expect(await search('%')).toEqual(['green_hat']);
    expect(await search('e_s')).toEqual([]);
    expect(await search('shirt', { 'tags.name': 'winter' })).toEqual(['blue-shirt']);
    expect(await search('  mug  ')).toEqual(['mug']);
  });

  it("never shows another organization's products, nor matches through their tags or variants", async () => {
    const all = await walk(owner, '/v1/products?limit=1');
    expect(all).toHaveLength(4);
    const theirs = await get(stranger, '/v1/products?include=tags');
    expect(slugs(theirs.data)).toEqual(['stranger-mug', 'red-shirt']);
    expect(theirs.data.every((product: any) => !Object.values(bySlug).some((mine) => mine.id === product.id))).toBe(
      true,
    );
    const strangerRed = theirs.data[1];
    expect(slugs((await get(owner, `/v1/products?filter=${q({ id: strangerRed.id })}`)).data)).toEqual([]);
    expect(slugs((await get(stranger, `/v1/products?filter=${q({ 'tags.name': 'sale' })}`)).data)).toEqual([
      'stranger-mug',
      'red-shirt',
    ]);
  });

  it('pages with cursors bound to the query and refuses bad list parameters', async () => {
    const first = await get(owner, '/v1/products?limit=3&sort=title');
    expect(first.data).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await get(owner, `/v1/products?limit=3&sort=title&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(next.data).toHaveLength(1);
    expect(next.nextCursor).toBeNull();
    for (const query of [
      `sort=-title&cursor=${encodeURIComponent(first.nextCursor)}`,
      `sort=title&search=shirt&cursor=${encodeURIComponent(first.nextCursor)}`,
      'sort=slug',
      'sort=notes',
      'include=reviews',
      'include=tags,nope',
      'limit=0',
      'limit=251',
      'limit=ten',
      'page=2',
      'filter=%7B',
      `search=${'x'.repeat(201)}`,
      'search=',
    ]) {
      const response = await t.request({ url: `/v1/products?${query}`, key: owner.key });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await get(owner, '/v1/products?limit=250')).data).toHaveLength(4);
  });
});

describe('GET /v1/products/{id}', () => {
  it('returns one product with the includes asked for; other organizations and missing ids are 404', async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const [product] = (
      await importProducts(owner, [{ slug: 'lamp', title: 'Lamp', tags: ['b', 'a'], variants: [{ slug: 'v1' }] }])
    ).data;
    const plain = await get(owner, `/v1/products/${product.id}`);
    expect(plain).toEqual(product);
    const full = await get(
      owner,
      `/v1/products/${product.id}?include=tags,variants,variantsCount,reviewsCount,wishlistsCount,importJob`,
    );
    expect(full).toMatchObject({
      ...product,
      tags: ['a', 'b'],
      variantsCount: 1,
      reviewsCount: 0,
      wishlistsCount: 0,
      importJob: { type: 'products', action: 'created', row: 0 },
    });
    expect(full.variants).toEqual([
      {
        id: expect.any(String),
        slug: 'v1',
        title: '',
        imageUrl: '',
        priceCents: 0,
        currencyCode: 'USD',
        available: true,
        metadata: {},
      },
    ]);

    for (const [url, key] of [
      [`/v1/products/${product.id}`, stranger.key],
      [`/v1/products/${uuidv7()}`, owner.key],
    ] as const) {
      const response = await t.request({ url, key });
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toEqual({ code: 'NOT_FOUND', message: 'The product was not found.' });
    }
    expect((await t.request({ url: '/v1/products/lamp', key: owner.key })).statusCode).toBe(400);
    const unknown = await t.request({ url: `/v1/products/${product.id}?include=orders`, key: owner.key });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details[0].path).toBe('query.include');
    expect((await t.request({ url: `/v1/products/${product.id}?sort=title`, key: owner.key })).statusCode).toBe(400);
  });
});

describe('PATCH /v1/products/{id}', () => {
  it('replaces metadata wholesale, sets notes and the full tag set (trimmed, deduplicated), with product.updated', async () => {
    const owner = await tenant();
    const [product] = (
      await importProducts(owner, [{ slug: 'desk', title: 'Desk', metadata: { a: '1', b: '2' }, tags: ['old'] }])
    ).data;

    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      t.request({
        method: 'PATCH',
        url: `/v1/products/${product.id}`,
        key: owner.key,
        body: { metadata: { c: '3' }, notes: 'Fragile', tags: [' oak ', 'office', 'oak', 'office '] },
      }),
    );
    expect(response.statusCode).toBe(200);
    const updated = response.json();
    expect(Object.keys(updated).sort()).toEqual(PRODUCT_KEYS);
    expect(updated).toMatchObject({
      id: product.id,
      slug: 'desk',
      title: 'Desk',
      metadata: { c: '3' },
      notes: 'Fragile',
      createdAt: product.createdAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(product.updatedAt));
    expect(events.filter((event) => event.name === 'product.updated').map((event) => event.payload)).toEqual([updated]);
    expect(
      events
        .filter((event) => event.name === 'productTag.created')
        .map((event) => event.payload.name)
        .sort(),
    ).toEqual(['oak', 'office']);
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual(['oak', 'office']);

    // Omitted fields are left alone; an empty metadata object and an empty tag list clear them.
    const notesOnly = await t.request({
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: owner.key,
      body: { notes: '' },
    });
    expect(notesOnly.json()).toMatchObject({ metadata: { c: '3' }, notes: '' });
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual(['oak', 'office']);
    const cleared = await t.request({
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: owner.key,
      body: { metadata: {}, tags: [] },
    });
    expect(cleared.json().metadata).toEqual({});
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual([]);
    // The tag records themselves stay (they are deleted through /product-tags).
    expect((await get(owner, '/v1/product-tags?sort=name')).data.map((tag: any) => tag.name)).toEqual([
      'oak',
      'office',
      'old',
    ]);
  });

  it('refuses store fields and invalid values, changing nothing and recording no event', async () => {
    const owner = await tenant();
    const [product] = (await importProducts(owner, [{ slug: 'chair', title: 'Chair', metadata: { keep: 'me' } }])).data;
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v']));
    const cases: [unknown, string][] = [
      [{ title: 'New' }, 'body.title'],
      [{ slug: 'new' }, 'body.slug'],
      [{ description: 'x' }, 'body.description'],
      [{ imageUrl: 'x' }, 'body.imageUrl'],
      [{ url: 'x' }, 'body.url'],
      [{ createdAt: at(1) }, 'body.createdAt'],
      [{ id: uuidv7() }, 'body.id'],
      [{ variants: [] }, 'body.variants'],
      [{ metadata: { n: 1 } }, 'body.metadata.n'],
      [{ metadata: 'x' }, 'body.metadata'],
      [{ metadata: tooMany }, 'body.metadata'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'body.metadata'],
      [{ metadata: { '': 'v' } }, 'body.metadata'],
      [{ metadata: { k: 'v'.repeat(501) } }, 'body.metadata.k'],
      [{ notes: 'n'.repeat(10_001) }, 'body.notes'],
      [{ notes: null }, 'body.notes'],
      [{ tags: ['ok', '   '] }, 'body.tags[1]'],
      [{ tags: ['t'.repeat(101)] }, 'body.tags[0]'],
      [{ tags: Array.from({ length: 251 }, (_, index) => `t${index}`) }, 'body.tags'],
      [{ tags: 'vip' }, 'body.tags'],
    ];
    const { events } = await eventsDuring(t, orgOf(owner), async () => {
      for (const [body, path] of cases) {
        const response = await t.request({ method: 'PATCH', url: `/v1/products/${product.id}`, key: owner.key, body });
        expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(response.json().error.code).toBe('VALIDATION_ERROR');
        expect(
          response.json().error.details.map((detail: any) => detail.path),
          JSON.stringify(body).slice(0, 80),
        ).toContain(path);
      }
    });
    expect(events).toEqual([]);
    expect(await get(owner, `/v1/products/${product.id}?include=tags`)).toEqual({ ...product, tags: [] });
    // The limits themselves are accepted.
    const fifty = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`k${index}`.padEnd(40, 'x'), 'v'.repeat(500)]),
    );
    const edge = await t.request({
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: owner.key,
      body: {
        metadata: fifty,
        notes: 'n'.repeat(10_000),
        tags: Array.from({ length: 250 }, (_, index) => `${index}`.padEnd(100, 't')),
      },
    });
    expect(edge.statusCode).toBe(200);
    expect(Object.keys(edge.json().metadata)).toHaveLength(50);
  });

  it("answers 404 for another organization's product and leaves it alone", async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const [product] = (await importProducts(owner, [{ slug: 'sofa', metadata: { a: 'b' } }])).data;
    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      t.request({
        method: 'PATCH',
        url: `/v1/products/${product.id}`,
        key: stranger.key,
        body: { metadata: {}, tags: ['x'] },
      }),
    );
    expect(response.statusCode).toBe(404);
    expect(events).toEqual([]);
    expect(await eventsOf(t, orgOf(stranger))).toEqual([]);
    expect(await get(owner, `/v1/products/${product.id}?include=tags`)).toEqual({ ...product, tags: [] });
    expect((await get(stranger, '/v1/product-tags')).data).toEqual([]);
    const readOnly = await t.key(orgOf(owner), ['products:read']);
    const forbidden = await t.request({
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: readOnly,
      body: { notes: 'x' },
    });
    expect(forbidden.statusCode).toBe(403);
  });
});

describe('DELETE /v1/products/{id}', () => {
  async function seed(who: Tenant) {
    const siteId = await insertSite(orgOf(who), `shop-${uuidv7()}.example`);
    const { data } = await importProducts(who, [
      { slug: 'doomed', title: 'Doomed', tags: ['x', 'y'], variants: [{ slug: 'a' }, { slug: 'b' }], sites: [siteId] },
      { slug: 'bystander', title: 'Bystander', tags: ['x'], variants: [{ slug: 'a' }], sites: [siteId] },
    ]);
    const [doomed, bystander] = data;
    const reviews = {
      published: await insertReview(orgOf(who), doomed.id, true),
      hidden: await insertReview(orgOf(who), doomed.id, false),
      other: await insertReview(orgOf(who), bystander.id, true),
    };
    return { siteId, doomed, bystander, reviews };
  }

  const review = (organizationId: string, id: string) =>
    db()
      .selectFrom('reviews')
      .select(['product_id', 'published'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();

  it('deletes variants, tag links and site links, unlinks and unpublishes reviews, and records product.deleted', async () => {
    const owner = await tenant();
    const { siteId, doomed, bystander, reviews } = await seed(owner);
    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      t.request({ method: 'DELETE', url: `/v1/products/${doomed.id}`, key: owner.key }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(doomed);
    // Each unlinked review sends review.updated (unlinked, unpublished) before product.deleted.
    expect(events.map((event) => [event.name, event.payload.id ?? null])).toEqual([
      ['review.updated', expect.any(String)],
      ['review.updated', expect.any(String)],
      ['product.deleted', doomed.id],
    ]);
    expect(
      events
        .slice(0, 2)
        .map((event) => event.payload.id)
        .sort(),
    ).toEqual([reviews.published, reviews.hidden].sort());
    expect(events.slice(0, 2).map((event) => [event.payload.productId, event.payload.published])).toEqual([
      [null, false],
      [null, false],
    ]);
    expect(events[2]).toEqual({ name: 'product.deleted', payload: doomed });

    expect((await t.request({ url: `/v1/products/${doomed.id}`, key: owner.key })).statusCode).toBe(404);
    const org = orgOf(owner);
    expect(
      await db()
        .selectFrom('product_variants')
        .select('id')
        .where('organization_id', '=', org)
        .where('product_id', '=', doomed.id)
        .execute(),
    ).toEqual([]);
    expect(
      await db()
        .selectFrom('product_tags')
        .select('tag_id')
        .where('organization_id', '=', org)
        .where('product_id', '=', doomed.id)
        .execute(),
    ).toEqual([]);
    expect(await siteLinks(org, doomed.id)).toEqual([]);
    expect(await review(org, reviews.published)).toEqual({ product_id: null, published: false });
    expect(await review(org, reviews.hidden)).toEqual({ product_id: null, published: false });
    // Everything of the other product stays.
    expect(await review(org, reviews.other)).toEqual({ product_id: bystander.id, published: true });
    expect(await siteLinks(org, bystander.id)).toEqual([siteId]);
    expect(await get(owner, `/v1/products/${bystander.id}?include=tags,variantsCount,reviewsCount`)).toMatchObject({
      tags: ['x'],
      variantsCount: 1,
      reviewsCount: 1,
    });
    expect(
      (await get(owner, '/v1/product-tags?sort=name&include=count')).data.map((tag: any) => [tag.name, tag.count]),
    ).toEqual([
      ['x', 1],
      ['y', 0],
    ]);

    const again = await t.request({ method: 'DELETE', url: `/v1/products/${doomed.id}`, key: owner.key });
    expect(again.statusCode).toBe(404);
  });

  it('deletes the reviews when the organization has cascadeDeleteReviews on', async () => {
    const owner = await tenant();
    await db()
      .updateTable('organizations')
      .set({ cascade_delete_reviews: true })
      .where('id', '=', orgOf(owner))
      .execute();
    const { doomed, bystander, reviews } = await seed(owner);
    const response = await t.request({ method: 'DELETE', url: `/v1/products/${doomed.id}`, key: owner.key });
    expect(response.statusCode).toBe(200);
    expect(await review(orgOf(owner), reviews.published)).toBeUndefined();
    expect(await review(orgOf(owner), reviews.hidden)).toBeUndefined();
    expect(await review(orgOf(owner), reviews.other)).toEqual({ product_id: bystander.id, published: true });
  });

  it("answers 404 for another organization's product and deletes nothing", async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const { doomed, reviews } = await seed(owner);
    const response = await t.request({ method: 'DELETE', url: `/v1/products/${doomed.id}`, key: stranger.key });
    expect(response.statusCode).toBe(404);
    expect(await get(owner, `/v1/products/${doomed.id}?include=variantsCount,tags`)).toMatchObject({
      variantsCount: 2,
      tags: ['x', 'y'],
    });
    expect(await review(orgOf(owner), reviews.published)).toEqual({ product_id: doomed.id, published: true });
    expect(await eventsOf(t, orgOf(stranger))).toEqual([]);
    expect((await t.request({ method: 'DELETE', url: '/v1/products/doomed', key: owner.key })).statusCode).toBe(400);
  });
});

describe('PATCH /v1/products/{productId}/variants/{variantId}', () => {
  it('replaces only the metadata, with productVariant.updated; other fields, other products and organizations are refused', async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const { data } = await importProducts(owner, [
      { slug: 'tee', variants: [{ slug: 's', title: 'Small', priceCents: 100, metadata: { a: '1', b: '2' } }] },
      { slug: 'cap', variants: [{ slug: 'one' }] },
    ]);
    const tee = await get(owner, `/v1/products/${data[0].id}?include=variants`);
    const cap = await get(owner, `/v1/products/${data[1].id}?include=variants`);
    const variant = tee.variants[0];
    const url = `/v1/products/${tee.id}/variants/${variant.id}`;

    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      t.request({ method: 'PATCH', url, key: owner.key, body: { metadata: { c: '3' } } }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ...variant, metadata: { c: '3' } });
    expect(Object.keys(response.json()).sort()).toEqual(VARIANT_KEYS);
    expect(events).toEqual([{ name: 'productVariant.updated', payload: response.json() }]);
    expect((await get(owner, `/v1/products/${tee.id}?include=variants`)).variants).toEqual([
      { ...variant, metadata: { c: '3' } },
    ]);

    const omitted = await t.request({ method: 'PATCH', url, key: owner.key, body: {} });
    expect(omitted.statusCode).toBe(200);
    expect(omitted.json().metadata).toEqual({ c: '3' });

    const before = (await eventsOf(t, orgOf(owner))).length;
    for (const [body, path] of [
      [{ title: 'Large' }, 'body.title'],
      [{ priceCents: 1 }, 'body.priceCents'],
      [{ slug: 'l' }, 'body.slug'],
      [{ available: false }, 'body.available'],
      [{ metadata: { a: 2 } }, 'body.metadata.a'],
      [{ metadata: null }, 'body.metadata'],
    ] as const) {
      const refused = await t.request({ method: 'PATCH', url, key: owner.key, body });
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.details.map((detail: any) => detail.path)).toContain(path);
    }
    for (const [target, key] of [
      [`/v1/products/${cap.id}/variants/${variant.id}`, owner.key],
      [`/v1/products/${tee.id}/variants/${cap.variants[0].id}`, owner.key],
      [`/v1/products/${tee.id}/variants/${uuidv7()}`, owner.key],
      [`/v1/products/${uuidv7()}/variants/${variant.id}`, owner.key],
      [url, stranger.key],
    ] as const) {
      const missing = await t.request({ method: 'PATCH', url: target, key, body: { metadata: { hacked: 'yes' } } });
      expect(missing.statusCode, target).toBe(404);
      expect(missing.json().error.code).toBe('NOT_FOUND');
    }
    expect((await eventsOf(t, orgOf(owner))).length).toBe(before);
    expect((await get(owner, `/v1/products/${tee.id}?include=variants`)).variants[0].metadata).toEqual({ c: '3' });
    expect((await get(owner, `/v1/products/${cap.id}?include=variants`)).variants[0].metadata).toEqual({});
  });
});

describe('POST /v1/products/import', () => {
  it('creates and updates by slug; omitted fields keep their values; events and importJob follow each row', async () => {
    const owner = await tenant();
    const first = await eventsDuring(t, orgOf(owner), () =>
      importProducts(owner, [
        {
          slug: 'kettle',
          title: 'Kettle',
          description: 'Steel',
          imageUrl: 'https://i/k.png',
          url: 'https://s/k',
          metadata: { a: '1' },
          createdAt: '2025-06-01T12:00:00+02:00',
        },
        { slug: 'toaster', title: 'Toaster' },
      ]),
    );
    const [kettle, toaster] = first.result.data;
    expect(first.result.skipped).toEqual([]);
    expect(kettle).toMatchObject({
      slug: 'kettle',
      title: 'Kettle',
      description: 'Steel',
      imageUrl: 'https://i/k.png',
      url: 'https://s/k',
      metadata: { a: '1' },
      notes: '',
      createdAt: '2025-06-01T10:00:00.000Z',
    });
    expect(toaster).toMatchObject({
      slug: 'toaster',
      title: 'Toaster',
      description: '',
      imageUrl: '',
      url: '',
      metadata: {},
    });
    expect(Date.now() - Date.parse(toaster.createdAt)).toBeLessThan(60_000);
    expect(first.events).toEqual([
      { name: 'product.updated', payload: kettle },
      { name: 'product.updated', payload: toaster },
    ]);

    // Notes are not an import field; set them by PATCH and check the import keeps them.
    await t.request({ method: 'PATCH', url: `/v1/products/${kettle.id}`, key: owner.key, body: { notes: 'keep me' } });
    const second = await eventsDuring(t, orgOf(owner), () =>
      importProducts(owner, [
        { slug: 'lamp', title: 'Lamp' },
        { slug: 'kettle', title: 'Kettle 2' },
      ]),
    );
    const [lamp, kettle2] = second.result.data;
    expect(kettle2).toEqual({ ...kettle, title: 'Kettle 2', notes: 'keep me', updatedAt: kettle2.updatedAt });
    expect(kettle2.id).toBe(kettle.id);
    expect(second.events.map((event) => event.payload)).toEqual([lamp, kettle2]);

    const jobs = (await get(owner, '/v1/products?sort=title&include=importJob')).data;
    const jobOf = Object.fromEntries(jobs.map((product: any) => [product.slug, product.importJob]));
    expect(jobOf.kettle).toMatchObject({ type: 'products', action: 'updated', row: 1 });
    expect(jobOf.lamp).toMatchObject({ type: 'products', action: 'created', row: 0 });
    expect(jobOf.lamp.id).toBe(jobOf.kettle.id);
    expect(jobOf.toaster).toMatchObject({ type: 'products', action: 'created', row: 1 });
    expect(jobOf.toaster.id).not.toBe(jobOf.kettle.id);

    // Explicitly sent values replace stored ones, empty strings included.
    const [cleared] = (await importProducts(owner, [{ slug: 'kettle', description: '', metadata: {} }])).data;
    expect(cleared).toMatchObject({ title: 'Kettle 2', description: '', metadata: {}, imageUrl: 'https://i/k.png' });
  });

  it('replaces variants with exactly what the row sends, matched by slug so kept variants keep their ids', async () => {
    const owner = await tenant();
    const [created] = (
      await importProducts(owner, [
        {
          slug: 'boot',
          variants: [
            {
              slug: 'b-40',
              title: '40',
              priceCents: 9900,
              currencyCode: 'EUR',
              available: true,
              imageUrl: 'https://i/40',
              metadata: { w: 'wide' },
            },
            { slug: 'b-41', title: '41' },
            { slug: 'b-42', title: '42' },
          ],
        },
      ])
    ).data;
    const before = (await get(owner, `/v1/products/${created.id}?include=variants`)).variants;
    const id = Object.fromEntries(before.map((variant: any) => [variant.slug, variant.id]));

    await importProducts(owner, [
      {
        slug: 'boot',
        variants: [
          { slug: 'b-43', title: '43' },
          { slug: 'b-40', available: false },
          { slug: 'b-42', priceCents: 100 },
        ],
      },
    ]);
    const after = (await get(owner, `/v1/products/${created.id}?include=variants`)).variants;
    expect(after.map((variant: any) => variant.slug)).toEqual(['b-43', 'b-40', 'b-42']);
    expect(after[1]).toEqual({ ...before[0], available: false });
    expect(after[2]).toEqual({ ...before[2], priceCents: 100 });
    expect(after[1].id).toBe(id['b-40']);
    expect(after[2].id).toBe(id['b-42']);
    expect(Object.values(id)).not.toContain(after[0].id);
    const rows = await db()
      .selectFrom('product_variants')
      .select('id')
      .where('organization_id', '=', orgOf(owner))
      .execute();
    expect(rows.map((row) => row.id)).not.toContain(id['b-41']);

    // No variants key: left alone. An empty array: all removed.
    await importProducts(owner, [{ slug: 'boot', title: 'Boot' }]);
    expect((await get(owner, `/v1/products/${created.id}?include=variantsCount`)).variantsCount).toBe(3);
    await importProducts(owner, [{ slug: 'boot', variants: [] }]);
    expect((await get(owner, `/v1/products/${created.id}?include=variants`)).variants).toEqual([]);
  });

  it('replaces site links by site id or domain; a missing site skips the row, or fails a strict import with nothing written', async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const one = await insertSite(orgOf(owner), 'one.example');
    const two = await insertSite(orgOf(owner), 'Two.Example');
    const foreign = await insertSite(orgOf(stranger), 'foreign.example');

    const { data } = await importProducts(owner, [{ slug: 'vase', sites: [one, 'two.example', one.toUpperCase()] }]);
    expect(await siteLinks(orgOf(owner), data[0].id)).toEqual([one, two].sort());
    await importProducts(owner, [{ slug: 'vase', sites: ['TWO.EXAMPLE'] }]);
    expect(await siteLinks(orgOf(owner), data[0].id)).toEqual([two]);
    await importProducts(owner, [{ slug: 'vase', title: 'Vase' }]);
    expect(await siteLinks(orgOf(owner), data[0].id)).toEqual([two]);
    await importProducts(owner, [{ slug: 'vase', sites: [] }]);
    expect(await siteLinks(orgOf(owner), data[0].id)).toEqual([]);

    const eventsBefore = (await eventsOf(t, orgOf(owner))).length;
    const partial = await importProducts(owner, [
      { slug: 'ok', sites: [one] },
      { slug: 'missing', sites: [one, 'nowhere.example'], tags: ['fresh'] },
      { slug: 'foreign', sites: [foreign] },
    ]);
    expect(partial.data.map((product) => product.slug)).toEqual(['ok']);
    expect(partial.skipped).toEqual([
      { index: 1, message: expect.stringContaining('nowhere.example') },
      { index: 2, message: expect.stringContaining(foreign) },
    ]);
    expect((await eventsOf(t, orgOf(owner))).length).toBe(eventsBefore + 1);
    expect((await get(owner, `/v1/products?filter=${q({ slug: { $in: ['missing', 'foreign'] } })}`)).data).toEqual([]);
    expect((await get(owner, '/v1/product-tags')).data).toEqual([]);

    const strict = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: owner.key,
      body: {
        strict: true,
        data: [
          { slug: 'first', tags: ['t'], variants: [{ slug: 'v' }] },
          { slug: 'ok', title: 'changed' },
          { slug: 'bad', sites: ['nowhere.example'] },
        ],
      },
    });
    expect(strict.statusCode).toBe(422);
    expect(strict.json().error.code).toBe('UNPROCESSABLE');
    expect(strict.json().error.details).toEqual([
      { path: 'body.data[2]', message: expect.stringContaining('nowhere.example') },
    ]);
    expect((await eventsOf(t, orgOf(owner))).length).toBe(eventsBefore + 1);
    expect(
      (await get(owner, '/v1/products?sort=title')).data.map((product: any) => [product.slug, product.title]),
    ).toEqual([
      ['ok', ''],
      ['vase', 'Vase'],
    ]);
    expect((await get(owner, '/v1/product-tags')).data).toEqual([]);
  });

  it('merges product and variant metadata with mergeMetadata, and replaces it without', async () => {
    const owner = await tenant();
    const [product] = (
      await importProducts(owner, [
        { slug: 'pen', metadata: { a: '1', b: '2' }, variants: [{ slug: 'blue', metadata: { x: '1', y: '2' } }] },
      ])
    ).data;
    const merged = await importProducts(
      owner,
      [
        {
          slug: 'pen',
          metadata: { b: '3', c: '4' },
          variants: [
            { slug: 'blue', metadata: { y: '9' } },
            { slug: 'red', metadata: { z: '1' } },
          ],
        },
      ],
      { mergeMetadata: true },
    );
    expect(merged.data[0].metadata).toEqual({ a: '1', b: '3', c: '4' });
    let variants = (await get(owner, `/v1/products/${product.id}?include=variants`)).variants;
    expect(variants.map((variant: any) => variant.metadata)).toEqual([{ x: '1', y: '9' }, { z: '1' }]);

    const replaced = await importProducts(owner, [
      { slug: 'pen', metadata: { only: 'this' }, variants: [{ slug: 'blue', metadata: { y: '0' } }, { slug: 'red' }] },
    ]);
    expect(replaced.data[0].metadata).toEqual({ only: 'this' });
    variants = (await get(owner, `/v1/products/${product.id}?include=variants`)).variants;
    expect(variants.map((variant: any) => variant.metadata)).toEqual([{ y: '0' }, { z: '1' }]);
  });

  it('sets tags from the row (full set, trimmed) and leaves them alone when the row has none', async () => {
    const owner = await tenant();
    const [product] = (await importProducts(owner, [{ slug: 'bag', tags: [' a', 'b ', 'a'] }])).data;
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual(['a', 'b']);
    await importProducts(owner, [{ slug: 'bag', title: 'Bag' }]);
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual(['a', 'b']);
    await importProducts(owner, [{ slug: 'bag', tags: ['c'] }]);
    expect((await get(owner, `/v1/products/${product.id}?include=tags`)).tags).toEqual(['c']);
  });

  it('matches slugs within the organization only', async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const [theirs] = (await importProducts(stranger, [{ slug: 'same', title: 'Theirs', tags: ['t'] }])).data;
    const mine = await importProducts(owner, [{ slug: 'same', title: 'Mine', tags: ['m'] }]);
    expect(mine.data[0].id).not.toBe(theirs.id);
    expect(await get(stranger, `/v1/products/${theirs.id}?include=tags,importJob`)).toMatchObject({
      title: 'Theirs',
      tags: ['t'],
      importJob: { action: 'created' },
    });
    expect((await get(owner, `/v1/products/${mine.data[0].id}?include=importJob`)).importJob.action).toBe('created');
  });

  it('takes 1,000 rows, refuses 1,001 (413), duplicate slugs (400) and bad rows, writing nothing', async () => {
    const owner = await tenant();
    const rows = (count: number) => Array.from({ length: count }, (_, index) => ({ slug: `bulk-${index}` }));
    const tooMany = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: owner.key,
      body: { data: rows(1001) },
    });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooMany.json().error.message).toContain('1000');

    const cases: [unknown, string][] = [
      [{ data: [{ slug: 'a' }, { slug: 'b' }, { slug: 'a' }] }, 'body.data[2].slug'],
      [{ data: [{ slug: 'a', variants: [{ slug: 'v' }, { slug: 'v' }] }] }, 'body.data[0].variants[1].slug'],
      [{ data: [{ slug: '' }] }, 'body.data[0].slug'],
      [{ data: [{ title: 'no slug' }] }, 'body.data[0].slug'],
      [{ data: [{ slug: 'a', notes: 'x' }] }, 'body.data[0].notes'],
      [{ data: [{ slug: 'a', variants: [{ slug: 'v', priceCents: -1 }] }] }, 'body.data[0].variants[0].priceCents'],
      [{ data: [{ slug: 'a', variants: [{ slug: 'v', priceCents: 1.5 }] }] }, 'body.data[0].variants[0].priceCents'],
      [
        { data: [{ slug: 'a', variants: [{ slug: 'v', currencyCode: 'usd' }] }] },
        'body.data[0].variants[0].currencyCode',
      ],
      [{ data: [{ slug: 'a', variants: [{ title: 'no slug' }] }] }, 'body.data[0].variants[0].slug'],
      [{ data: [{ slug: 'a', createdAt: '2026-01-01T00:00:00' }] }, 'body.data[0].createdAt'],
      [{ data: [{ slug: 'a', tags: ['  '] }] }, 'body.data[0].tags[0]'],
      [{ data: [{ slug: 'a', metadata: { k: 1 } }] }, 'body.data[0].metadata.k'],
      [{ data: [{ slug: 'a' }], strict: 'yes' }, 'body.strict'],
      [{ data: [{ slug: 'a' }], upsert: true }, 'body.upsert'],
      [{ rows: [] }, 'body.data'],
    ];
    for (const [body, path] of cases) {
      const response = await t.request({ method: 'POST', url: '/v1/products/import', key: owner.key, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect(
        response.json().error.details.map((detail: any) => detail.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await get(owner, '/v1/products')).data).toEqual([]);
    expect(await eventsOf(t, orgOf(owner))).toEqual([]);

    const thousand = await importProducts(owner, rows(1000));
    expect(thousand.data).toHaveLength(1000);
    expect(thousand.data.map((product) => product.slug)).toEqual(rows(1000).map((row) => row.slug));
    expect((await walk(owner, '/v1/products?limit=250')).length).toBe(1000);
    expect((await eventsOf(t, orgOf(owner))).length).toBe(1000);
    const empty = await importProducts(owner, []);
    expect(empty).toEqual({ data: [], skipped: [], created: 0, updated: 0, unchanged: 0 });
  });
});

describe('PATCH /v1/products/bulk-update', () => {
  async function seed() {
    const owner = await tenant();
    const stranger = await tenant();
    const { data } = await importProducts(owner, [
      { slug: 'alpha-shirt', title: 'Alpha Shirt', metadata: { keep: '1', drop: 'x' }, tags: ['old', 'keep'] },
      { slug: 'beta-shirt', title: 'Beta Shirt', metadata: { drop: 'y' }, tags: ['old'] },
      { slug: 'gamma-hat', title: 'Gamma Hat', metadata: { keep: '2' } },
    ]);
    const theirs = (
      await importProducts(stranger, [
        { slug: 'alpha-shirt', title: 'Alpha Shirt', metadata: { drop: 'z' }, tags: ['old'] },
      ])
    ).data[0];
    return {
      owner,
      stranger,
      products: Object.fromEntries(data.map((product: any) => [product.slug, product])),
      theirs,
    };
  }

  const bulk = (who: Tenant, query: string, body: unknown) =>
    t.request({ method: 'PATCH', url: `/v1/products/bulk-update${query ? `?${query}` : ''}`, key: who.key, body });

  it('applies tag and metadata changes to the products the filter and search select, with one event each', async () => {
    const { owner, stranger, products, theirs } = await seed();
    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      bulk(owner, `filter=${q({ 'tags.name': 'old' })}&search=SHIRT`, {
        addTags: ['new', ' fresh ', 'keep'],
        removeTags: ['old', 'unknown'],
        addMetadata: { added: 'yes', keep: 'over' },
        removeMetadataKeys: ['drop', 'absent'],
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ count: 2 });

    const after = Object.fromEntries(
      (await get(owner, '/v1/products?include=tags')).data.map((product: any) => [product.slug, product]),
    );
    expect(after['alpha-shirt']).toMatchObject({
      metadata: { keep: 'over', added: 'yes' },
      tags: ['fresh', 'keep', 'new'],
    });
    expect(after['beta-shirt']).toMatchObject({
      metadata: { keep: 'over', added: 'yes' },
      tags: ['fresh', 'keep', 'new'],
    });
    expect(after['gamma-hat']).toMatchObject({ metadata: { keep: '2' }, tags: [] });
    expect(after['gamma-hat'].updatedAt).toBe(products['gamma-hat'].updatedAt);

    const created = events.filter((event) => event.name === 'productTag.created');
    expect(created.map((event) => event.payload.name).sort()).toEqual(['fresh', 'new']);
    const tagList = (await get(owner, '/v1/product-tags?sort=name')).data;
    for (const event of created) expect(tagList).toContainEqual(event.payload);
    const updated = events.filter((event) => event.name === 'product.updated');
    expect(updated.map((event) => event.payload.slug).sort()).toEqual(['alpha-shirt', 'beta-shirt']);
    for (const event of updated) {
      const { tags: _tags, ...record } = after[event.payload.slug];
      expect(event.payload).toEqual(record);
    }
    expect(events).toHaveLength(4);

    // The other organization's look-alike is untouched.
    expect(await get(stranger, `/v1/products/${theirs.id}?include=tags`)).toEqual({ ...theirs, tags: ['old'] });
    expect(await eventsOf(t, orgOf(stranger))).toHaveLength(2);
  });

  it('updates every product of the organization, and only of it, when no filter is given', async () => {
    const { owner, stranger, theirs } = await seed();
    const response = await bulk(owner, '', { addMetadata: { all: 'true' } });
    expect(response.json()).toEqual({ count: 3 });
    const rows = (await get(owner, '/v1/products')).data;
    expect(rows.every((product: any) => product.metadata.all === 'true')).toBe(true);
    expect((await get(stranger, `/v1/products/${theirs.id}`)).metadata).toEqual({ drop: 'z' });
    // A filter naming the other organization's product id selects nothing.
    const none = await eventsDuring(t, orgOf(owner), () =>
      bulk(owner, `filter=${q({ id: theirs.id })}`, { addTags: ['x'] }),
    );
    expect(none.result.json()).toEqual({ count: 0 });
    expect(none.events).toEqual([]);
    expect((await get(owner, '/v1/product-tags?sort=name')).data.map((tag: any) => tag.name)).toEqual(['keep', 'old']);
    expect((await get(stranger, `/v1/products/${theirs.id}?include=tags`)).tags).toEqual(['old']);
  });

  it('refuses more than 50 metadata keys on any selected product, changing nothing', async () => {
    const { owner } = await seed();
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, index) => [`k${index}`, 'v']));
    const { result: response, events } = await eventsDuring(t, orgOf(owner), () =>
      bulk(owner, '', { addMetadata: many, addTags: ['never'] }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.addMetadata');
    expect(events).toEqual([]);
    const rows = (await get(owner, '/v1/products?sort=title&include=tags')).data;
    expect(rows.map((product: any) => [product.metadata, product.tags])).toEqual([
      [{ keep: '1', drop: 'x' }, ['keep', 'old']],
      [{ drop: 'y' }, ['old']],
      [{ keep: '2' }, []],
    ]);
    expect((await get(owner, '/v1/product-tags')).data.map((tag: any) => tag.name)).not.toContain('never');
    // Removing keys in the same call makes room: 49 + keep - drop ≤ 50 on every product.
    const fits = await bulk(owner, '', { addMetadata: many, removeMetadataKeys: ['drop'] });
    expect(fits.statusCode).toBe(200);
    expect(fits.json()).toEqual({ count: 3 });
  });

  it('validates the body and the selection', async () => {
    const { owner } = await seed();
    const cases: [string, unknown, string][] = [
      ['', {}, 'body'],
      ['', { addTags: 'x' }, 'body.addTags'],
      ['', { addTags: ['  '] }, 'body.addTags[0]'],
      ['', { removeTags: ['t'.repeat(101)] }, 'body.removeTags[0]'],
      ['', { addMetadata: { k: 1 } }, 'body.addMetadata.k'],
      [
        '',
        { addMetadata: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v'])) },
        'body.addMetadata',
      ],
      ['', { removeMetadataKeys: [''] }, 'body.removeMetadataKeys[0]'],
      ['', { setTitle: 'x' }, 'body.setTitle'],
      [`filter=${q({ nope: 1 })}`, { addTags: ['x'] }, 'query.filter.nope'],
      ['filter=%5B%5D', { addTags: ['x'] }, 'query.filter'],
      ['filter=%7B', { addTags: ['x'] }, 'query.filter'],
      ['limit=5', { addTags: ['x'] }, 'query.limit'],
      ['sort=title', { addTags: ['x'] }, 'query.sort'],
    ];
    const { events } = await eventsDuring(t, orgOf(owner), async () => {
      for (const [query, body, path] of cases) {
        const response = await bulk(owner, query, body);
        expect(response.statusCode, `${query} ${JSON.stringify(body)}`).toBe(400);
        expect(
          response.json().error.details.map((detail: any) => detail.path),
          `${query} ${JSON.stringify(body)}`,
        ).toContain(path);
      }
    });
    expect(events).toEqual([]);
    const readOnly = await t.key(orgOf(owner), ['products:read']);
    expect(
      (await t.request({ method: 'PATCH', url: '/v1/products/bulk-update', key: readOnly, body: { addTags: ['x'] } }))
        .statusCode,
    ).toBe(403);
  });
});

describe('products and the rate limit', () => {
  it("declares each operation's permission and cost (imports 10, bulk updates 5, others 1)", async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const operation = (path: string, method: string) => document.paths[path][method];
    expect(operation('/products', 'get')).toMatchObject({ 'x-permission': 'products:read', 'x-cost': 1 });
    expect(operation('/products/{productId}', 'get')).toMatchObject({ 'x-permission': 'products:read', 'x-cost': 1 });
    expect(operation('/products/{productId}', 'patch')).toMatchObject({
      'x-permission': 'products:write',
      'x-cost': 1,
    });
    expect(operation('/products/{productId}', 'delete')).toMatchObject({
      'x-permission': 'products:write',
      'x-cost': 1,
    });
    expect(operation('/products/{productId}/variants/{variantId}', 'patch')).toMatchObject({
      'x-permission': 'products:write',
      'x-cost': 1,
    });
    expect(operation('/products/import', 'post')).toMatchObject({ 'x-permission': 'products:write', 'x-cost': 10 });
    expect(operation('/products/bulk-update', 'patch')).toMatchObject({
      'x-permission': 'products:write',
      'x-cost': 5,
    });
    for (const [path, family] of [
      ['/product-tags', 'products'],
      ['/order-tags', 'orders'],
      ['/customer-tags', 'customers'],
    ]) {
      expect(operation(path!, 'get')).toMatchObject({ 'x-permission': `${family}:read`, 'x-cost': 1 });
      expect(operation(`${path}/{id}`, 'get')).toMatchObject({ 'x-permission': `${family}:read`, 'x-cost': 1 });
      expect(operation(`${path}/{id}`, 'patch')).toMatchObject({ 'x-permission': `${family}:write`, 'x-cost': 1 });
      expect(operation(`${path}/{id}`, 'delete')).toMatchObject({ 'x-permission': `${family}:write`, 'x-cost': 1 });
    }
  });

  it('charges an import 10 tokens from the organization bucket', async () => {
    const who = await t.tenant({ apiRequestsPerMinute: 20 });
    const left = (response: { headers: Record<string, unknown> }) =>
      Number(/r=(\d+)/.exec(String(response.headers['ratelimit']))![1]);
    const first = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: who.key,
      body: { data: [{ slug: 'a' }] },
    });
    expect(first.statusCode).toBe(200);
    expect(left(first)).toBeLessThanOrEqual(10);
    const second = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: who.key,
      body: { data: [{ slug: 'b' }] },
    });
    expect(second.statusCode).toBe(200);
    const third = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: who.key,
      body: { data: [{ slug: 'c' }] },
    });
    expect(third.statusCode).toBe(429);
    const stored = await db()
      .selectFrom('products')
      .select('slug')
      .where('organization_id', '=', orgOf(who))
      .orderBy('slug')
      .execute();
    expect(stored.map((row) => row.slug)).toEqual(['a', 'b']);
  });
});
