import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Fixture {
  tenant: Tenant;
  org: string;
  key: string;
  site: { id: string; domain: string };
  site2: { id: string; domain: string };
  alice: { id: string; email: string };
  bob: { id: string; email: string };
  /** slug → { id, variants: slug → id } */
  products: Record<string, { id: string; variants: Record<string, string> }>;
}

const countOrders = async (organizationId: string) =>
  Number(
    (
      await db()
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function insertSite(organizationId: string, domain: string, currency: string) {
  const id = uuidv7();
  await db()
    .insertInto('sites')
    .values({ organization_id: organizationId, id, name: domain, domain, platform: 'shopify', currency_code: currency })
    .execute();
  return { id, domain };
}

async function insertCustomer(
  organizationId: string,
  email: string,
  fields: {
    first_name?: string;
    last_name?: string;
    metadata?: Record<string, string>;
    email_opt_out?: boolean;
    email_opt_out_source?: 'merchant' | null;
    created_at?: string;
  } = {},
) {
  const id = uuidv7();
  await db()
    .insertInto('customers')
    .values({
      organization_id: organizationId,
      id,
      email,
      first_name: fields.first_name ?? null,
      last_name: fields.last_name ?? null,
      metadata: JSON.stringify(fields.metadata ?? {}),
      email_opt_out: fields.email_opt_out ?? false,
      email_opt_out_at: fields.email_opt_out ? new Date('2025-07-01T00:00:00Z') : null,
      email_opt_out_source: fields.email_opt_out_source ?? null,
      ...(fields.created_at ? { created_at: fields.created_at, updated_at: fields.created_at } : {}),
    })
    .execute();
  return { id, email };
}

async function importProducts(key: string, data: unknown[]) {
  const response = await t.request({ method: 'POST', url: '/v1/products/import', key, body: { data } });
  expect(response.statusCode, response.body).toBe(200);
}

/** A tenant with two sites, two customers and four products: shirt (two variants), mug and hat (one each), poster (none). */
async function fixture(): Promise<Fixture> {
  const tenant = await t.tenant();
  const org = tenant.organization.id;
  const site = await insertSite(org, 'shop.example', 'EUR');
  const site2 = await insertSite(org, 'outlet.example', 'USD');
  const alice = await insertCustomer(org, 'alice@example.com', {
    first_name: 'Alice',
    last_name: 'Smith',
    metadata: { tier: 'gold' },
    created_at: '2025-01-01T00:00:00.000Z',
  });
  const bob = await insertCustomer(org, 'Bob@Example.com', {
    first_name: 'Bob',
    last_name: 'Jones',
    email_opt_out: true,
    email_opt_out_source: 'merchant',
    created_at: '2025-06-01T00:00:00.000Z',
  });
  await importProducts(tenant.key, [
    {
      slug: 'shirt',
      title: 'Shirt',
      variants: [
        { slug: 'small', title: 'Small', priceCents: 2000, currencyCode: 'EUR' },
        { slug: 'large', title: 'Large', priceCents: 2200, currencyCode: 'EUR' },
      ],
    },
    { slug: 'mug', title: 'Mug', variants: [{ slug: 'mug-default', title: 'Default', priceCents: 900 }] },
    { slug: 'hat', title: 'Hat', variants: [{ slug: 'hat-default', title: 'Default', priceCents: 1500 }] },
    { slug: 'poster', title: 'Poster' },
  ]);
  const rows = await db()
    .selectFrom('products as p')
    .leftJoin('product_variants as v', (join) =>
      join.onRef('v.organization_id', '=', 'p.organization_id').onRef('v.product_id', '=', 'p.id'),
    )
    .select(['p.id as productId', 'p.slug as productSlug', 'v.id as variantId', 'v.slug as variantSlug'])
    .where('p.organization_id', '=', org)
    .execute();
  const products: Fixture['products'] = {};
  for (const row of rows) {
    const product = (products[row.productSlug] ??= { id: row.productId, variants: {} });
    if (row.variantId && row.variantSlug) product.variants[row.variantSlug] = row.variantId;
  }
  return { tenant, org, key: tenant.key, site, site2, alice, bob, products };
}

const importOrders = (key: string, body: unknown) => t.request({ method: 'POST', url: '/v1/orders/import', key, body });

/** A minimal valid row. */
const row = (remoteId: string, fields: Record<string, unknown> = {}) => ({
  site: 'shop.example',
  customer: 'alice@example.com',
  remoteId,
  number: `#${remoteId}`,
  ...fields,
});

const baseOrder = (fields: Record<string, unknown>) => ({
  id: expect.stringMatching(UUID),
  remoteId: expect.any(String),
  number: expect.any(String),
  totalCents: 0,
  subtotalCents: 0,
  shippingCents: 0,
  taxCents: 0,
  currencyCode: 'EUR',
  shippedAt: null,
  deliveredAt: null,
  cancelledAt: null,
  metadata: {},
  notes: '',
  createdAt: expect.stringMatching(ISO),
  updatedAt: expect.stringMatching(ISO),
  ...fields,
});

describe('POST /v1/orders/import: create', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('creates orders with their items, defaults and provenance, one order.updated event each', async () => {
    const response = await importOrders(f.key, {
      data: [
        row('r-1', {
          totalCents: 6100,
          subtotalCents: 5000,
          shippingCents: 500,
          taxCents: 600,
          currencyCode: 'USD',
          shippedAt: '2026-01-02T10:00:00+02:00',
          metadata: { channel: 'web' },
          tags: [' vip ', 'vip', 'first'],
          discountCodes: ['SAVE10', 'WELCOME'],
          createdAt: '2026-01-01T00:00:00Z',
          items: [
            { product: 'shirt', variant: 'large', quantity: 2, unitPriceCents: 2200 },
            { product: 'mug', quantity: 1, unitPriceCents: 600 },
          ],
        }),
        row('r-2'),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.skipped).toEqual([]);
    expect(body.data).toEqual([
      baseOrder({
        siteId: f.site.id,
        customerId: f.alice.id,
        remoteId: 'r-1',
        number: '#r-1',
        totalCents: 6100,
        subtotalCents: 5000,
        shippingCents: 500,
        taxCents: 600,
        currencyCode: 'USD',
        shippedAt: '2026-01-02T08:00:00.000Z',
        metadata: { channel: 'web' },
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
      // Currency defaults to the site's; money to 0.
      baseOrder({ siteId: f.site.id, customerId: f.alice.id, remoteId: 'r-2', number: '#r-2' }),
    ]);
    // The API record is exactly service.md's fields: discountCodes and earnLoyalty are stored, not returned.
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        'id',
        'siteId',
        'customerId',
        'remoteId',
        'number',
        'totalCents',
        'subtotalCents',
        'shippingCents',
        'taxCents',
        'currencyCode',
        'shippedAt',
        'deliveredAt',
        'cancelledAt',
        'metadata',
        'notes',
        'createdAt',
        'updatedAt',
      ].sort(),
    );

    const stored = await db()
      .selectFrom('orders')
      .select(['remote_id', 'discount_codes', 'earn_loyalty'])
      .where('organization_id', '=', f.org)
      .orderBy('remote_id')
      .execute();
    expect(stored).toEqual([
      { remote_id: 'r-1', discount_codes: ['SAVE10', 'WELCOME'], earn_loyalty: true },
      { remote_id: 'r-2', discount_codes: [], earn_loyalty: true },
    ]);

    const [first] = body.data;
    const full = await t.request({
      url: `/v1/orders/${first.id}?include=items,tags,itemsCount,importJob,customer`,
      key: f.key,
    });
    expect(full.statusCode).toBe(200);
    const order = full.json();
    expect(order.tags).toEqual(['first', 'vip']);
    expect(order.itemsCount).toBe(2);
    expect(order.importJob).toEqual({
      id: expect.stringMatching(UUID),
      type: 'orders',
      action: 'created',
      row: 0,
      createdAt: expect.stringMatching(ISO),
    });
    expect(
      order.items.map(
        (item: { productId: string; productVariantId: string; quantity: number; unitPriceCents: number }) => [
          item.productId,
          item.productVariantId,
          item.quantity,
          item.unitPriceCents,
        ],
      ),
    ).toEqual([
      [f.products.shirt!.id, f.products.shirt!.variants.large, 2, 2200],
      [f.products.mug!.id, f.products.mug!.variants['mug-default'], 1, 600],
    ]);

    const events = await eventsOf(t, f.org, 'order.updated');
    expect(events.map((event) => event.payload)).toEqual(body.data);
  });

  it('resolves the site by id or domain and the customer by id or email, ignoring case', async () => {
    const response = await importOrders(f.key, {
      data: [
        row('ref-1', { site: f.site2.id, customer: 'ALICE@EXAMPLE.COM' }),
        row('ref-2', { site: 'OUTLET.example', customer: f.bob.id.toUpperCase() }),
        row('ref-3', { customer: 'bob@example.com' }),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(
      data.map((order: { siteId: string; customerId: string; currencyCode: string }) => [
        order.siteId,
        order.customerId,
        order.currencyCode,
      ]),
    ).toEqual([
      [f.site2.id, f.alice.id, 'USD'],
      [f.site2.id, f.bob.id, 'USD'],
      [f.site.id, f.bob.id, 'EUR'],
    ]);
  });

  it('resolves products by id or slug and variants by id, slug, or omitted for a one-variant product', async () => {
    const response = await importOrders(f.key, {
      data: [
        row('items-1', {
          items: [
            {
              product: f.products.shirt!.id,
              variant: f.products.shirt!.variants.small,
              quantity: 1,
              unitPriceCents: 2000,
            },
            { product: 'shirt', variant: 'large', quantity: 3, unitPriceCents: 2100 },
            { product: f.products.hat!.id, quantity: 1, unitPriceCents: 1500 },
            { product: 'mug', variant: f.products.mug!.variants['mug-default'], quantity: 4, unitPriceCents: 0 },
          ],
        }),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().skipped).toEqual([]);
    const items = await db()
      .selectFrom('order_items')
      .select(['product_id', 'product_variant_id', 'quantity', 'unit_price_cents', 'position'])
      .where('organization_id', '=', f.org)
      .where('order_id', '=', response.json().data[0].id)
      .orderBy('position')
      .execute();
    expect(items).toEqual([
      {
        product_id: f.products.shirt!.id,
        product_variant_id: f.products.shirt!.variants.small,
        quantity: 1,
        unit_price_cents: 2000,
        position: 0,
      },
      {
        product_id: f.products.shirt!.id,
        product_variant_id: f.products.shirt!.variants.large,
        quantity: 3,
        unit_price_cents: 2100,
        position: 1,
      },
      {
        product_id: f.products.hat!.id,
        product_variant_id: f.products.hat!.variants['hat-default'],
        quantity: 1,
        unit_price_cents: 1500,
        position: 2,
      },
      {
        product_id: f.products.mug!.id,
        product_variant_id: f.products.mug!.variants['mug-default'],
        quantity: 4,
        unit_price_cents: 0,
        position: 3,
      },
    ]);
  });

  it('stores earnLoyalty false on created orders and keeps the largest money values exact', async () => {
    const response = await importOrders(f.key, {
      earnLoyalty: false,
      data: [row('hist-1', { totalCents: Number.MAX_SAFE_INTEGER, taxCents: 0 })],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data[0].totalCents).toBe(9007199254740991);
    const stored = await db()
      .selectFrom('orders')
      .select(['earn_loyalty', 'total_cents'])
      .where('organization_id', '=', f.org)
      .where('remote_id', '=', 'hist-1')
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ earn_loyalty: false, total_cents: 9007199254740991 });
    // Re-importing (an update) with the default does not flip it: earnLoyalty applies to newly created orders.
    expect((await importOrders(f.key, { data: [row('hist-1')] })).statusCode).toBe(200);
    const again = await db()
      .selectFrom('orders')
      .select('earn_loyalty')
      .where('organization_id', '=', f.org)
      .where('remote_id', '=', 'hist-1')
      .executeTakeFirstOrThrow();
    expect(again.earn_loyalty).toBe(false);
  });

  it.each([
    ['an unknown row field', { data: [row('v', { notes: 'x' })] }, 'body.data[0].notes'],
    [
      'an unknown item field',
      { data: [row('v', { items: [{ product: 'mug', quantity: 1, unitPriceCents: 1, sku: 'x' }] })] },
      'body.data[0].items[0].sku',
    ],
    [
      'a missing number',
      { data: [{ site: 'shop.example', customer: 'alice@example.com', remoteId: 'v' }] },
      'body.data[0].number',
    ],
    ['a missing site', { data: [{ customer: 'alice@example.com', remoteId: 'v', number: '1' }] }, 'body.data[0].site'],
    ['an empty remoteId', { data: [row('')] }, 'body.data[0].remoteId'],
    ['a remoteId over 255 characters', { data: [row('x'.repeat(256))] }, 'body.data[0].remoteId'],
    ['negative money', { data: [row('v', { totalCents: -1 })] }, 'body.data[0].totalCents'],
    ['money above 2^53-1', { data: [row('v', { taxCents: 9007199254740992 })] }, 'body.data[0].taxCents'],
    ['fractional money', { data: [row('v', { shippingCents: 1.5 })] }, 'body.data[0].shippingCents'],
    ['money as a string', { data: [row('v', { subtotalCents: '100' })] }, 'body.data[0].subtotalCents'],
    ['a lower-case currency', { data: [row('v', { currencyCode: 'eur' })] }, 'body.data[0].currencyCode'],
    [
      'a timestamp without offset',
      { data: [row('v', { shippedAt: '2026-01-01T00:00:00' })] },
      'body.data[0].shippedAt',
    ],
    ['a createdAt that is not a date', { data: [row('v', { createdAt: 'yesterday' })] }, 'body.data[0].createdAt'],
    [
      'quantity 0',
      { data: [row('v', { items: [{ product: 'mug', quantity: 0, unitPriceCents: 1 }] })] },
      'body.data[0].items[0].quantity',
    ],
    [
      'an item without a price',
      { data: [row('v', { items: [{ product: 'mug', quantity: 1 }] })] },
      'body.data[0].items[0].unitPriceCents',
    ],
    [
      'more than 500 items',
      {
        data: [
          row('v', { items: Array.from({ length: 501 }, () => ({ product: 'mug', quantity: 1, unitPriceCents: 1 })) }),
        ],
      },
      'body.data[0].items',
    ],
    [
      'more than 50 discount codes',
      { data: [row('v', { discountCodes: Array.from({ length: 51 }, (_, i) => `C${i}`) })] },
      'body.data[0].discountCodes',
    ],
    ['metadata with a non-string value', { data: [row('v', { metadata: { a: 1 } })] }, 'body.data[0].metadata.a'],
    ['an unknown body field', { data: [], dryRun: true }, 'body.dryRun'],
    ['earnLoyalty not a boolean', { data: [], earnLoyalty: 'no' }, 'body.earnLoyalty'],
    ['no data', {}, 'body.data'],
  ])('refuses %s with 400 naming the field, writing nothing', async (_name, body, path) => {
    const before = await countOrders(f.org);
    const response = await importOrders(f.key, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await countOrders(f.org)).toBe(before);
  });

  it.each([
    ['remoteId', { data: [row('nul\u0000id')] }],
    ['a metadata value', { data: [row('nul-meta', { metadata: { a: 'x\u0000y' } })] }],
    ['a discount code', { data: [row('nul-code', { discountCodes: ['A\u0000'] })] }],
    ['a tag', { data: [row('nul-tag', { tags: ['t\u0000'] })] }],
  ])('refuses a NUL character in %s with 400, writing nothing', async (_name, body) => {
    const before = await countOrders(f.org);
    const response = await importOrders(f.key, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(await countOrders(f.org)).toBe(before);
  });

  it('refuses a tag that is empty once trimmed', async () => {
    const response = await importOrders(f.key, { data: [row('v', { tags: ['ok', '   '] })] });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.data[0].tags[1]');
  });

  it('refuses a remoteId repeated within one request with 400 naming both rows', async () => {
    const before = await countOrders(f.org);
    const response = await importOrders(f.key, { data: [row('dup-a'), row('dup-b'), row('dup-a')] });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('body.data[2].remoteId');
    expect(response.json().error.message).toContain('body.data[0].remoteId');
    expect(response.json().error.details).toEqual([
      { path: 'body.data[2].remoteId', message: 'repeats body.data[0].remoteId' },
    ]);
    expect(await countOrders(f.org)).toBe(before);
  });

  it('answers 413 for more than 1,000 rows, writing nothing', async () => {
    const before = await countOrders(f.org);
    const tooMany = await importOrders(f.key, { data: Array.from({ length: 1001 }, (_, i) => row(`big-${i}`)) });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooMany.json().error.message).toContain('1000');
    expect(await countOrders(f.org)).toBe(before);
  });

  it('needs orders:write', async () => {
    const key = await t.key(f.org, ['orders:read']);
    const response = await importOrders(key, { data: [row('perm')] });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toContain('orders:write');
  });
});

describe('POST /v1/orders/import: update by remoteId', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('updates the matched order: sent fields replace, omitted fields keep, items and tags replaced only when present', async () => {
    const created = await importOrders(f.key, {
      data: [
        row('u-1', {
          totalCents: 1000,
          subtotalCents: 900,
          currencyCode: 'USD',
          shippedAt: '2026-02-01T00:00:00Z',
          cancelledAt: '2026-02-03T00:00:00Z',
          metadata: { a: '1', b: '2' },
          tags: ['one', 'two'],
          discountCodes: ['OLD'],
          createdAt: '2026-01-15T00:00:00Z',
          items: [
            { product: 'shirt', variant: 'small', quantity: 1, unitPriceCents: 2000 },
            { product: 'mug', quantity: 1, unitPriceCents: 900 },
          ],
        }),
      ],
    });
    expect(created.statusCode, created.body).toBe(200);
    const original = created.json().data[0];
    const oldItemIds = (
      await db()
        .selectFrom('order_items')
        .select('id')
        .where('organization_id', '=', f.org)
        .where('order_id', '=', original.id)
        .execute()
    ).map((item) => item.id);
    expect(oldItemIds).toHaveLength(2);
    const eventsBefore = (await eventsOf(t, f.org, 'order.updated')).length;

    const updated = await importOrders(f.key, {
      data: [
        row('u-1', {
          site: f.site2.domain,
          customer: f.bob.email,
          number: '#u-1-renamed',
          totalCents: 3000,
          deliveredAt: '2026-02-05T12:00:00Z',
          cancelledAt: null,
          metadata: { c: '3' },
          discountCodes: ['NEW'],
          items: [{ product: 'hat', quantity: 5, unitPriceCents: 1400 }],
        }),
      ],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const order = updated.json().data[0];
    expect(order).toEqual({
      ...original,
      siteId: f.site2.id,
      customerId: f.bob.id,
      number: '#u-1-renamed',
      totalCents: 3000,
      deliveredAt: '2026-02-05T12:00:00.000Z',
      cancelledAt: null,
      metadata: { c: '3' },
      updatedAt: expect.stringMatching(ISO),
    });
    expect(order.subtotalCents).toBe(900);
    expect(order.currencyCode).toBe('USD');
    expect(order.shippedAt).toBe('2026-02-01T00:00:00.000Z');
    expect(order.createdAt).toBe('2026-01-15T00:00:00.000Z');
    expect(order.updatedAt > original.updatedAt).toBe(true);

    const full = (await t.request({ url: `/v1/orders/${order.id}?include=items,tags,importJob`, key: f.key })).json();
    expect(full.tags).toEqual(['one', 'two']);
    expect(full.importJob).toMatchObject({ type: 'orders', action: 'updated', row: 0 });
    expect(full.items).toHaveLength(1);
    expect(full.items[0]).toMatchObject({
      productId: f.products.hat!.id,
      productVariantId: f.products.hat!.variants['hat-default'],
      quantity: 5,
      unitPriceCents: 1400,
    });
    expect(oldItemIds).not.toContain(full.items[0].id);
    const stored = await db()
      .selectFrom('orders')
      .select('discount_codes')
      .where('organization_id', '=', f.org)
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(stored.discount_codes).toEqual(['NEW']);
    expect(await countOrders(f.org)).toBe(1);

    const events = await eventsOf(t, f.org, 'order.updated');
    expect(events).toHaveLength(eventsBefore + 1);
    expect(events.at(-1)!.payload).toEqual(order);

    // Without items and tags they are left alone; an empty array removes them all.
    await importOrders(f.key, { data: [row('u-1', { site: f.site2.id, customer: f.bob.id, number: '#u-1-renamed' })] });
    let again = (await t.request({ url: `/v1/orders/${order.id}?include=items,tags`, key: f.key })).json();
    expect(again.items).toHaveLength(1);
    expect(again.tags).toEqual(['one', 'two']);
    expect(again.metadata).toEqual({ c: '3' });
    await importOrders(f.key, {
      data: [row('u-1', { site: f.site2.id, customer: f.bob.id, number: '#u-1-renamed', items: [], tags: ['three'] })],
    });
    again = (await t.request({ url: `/v1/orders/${order.id}?include=items,tags`, key: f.key })).json();
    expect(again.items).toEqual([]);
    expect(again.tags).toEqual(['three']);
  });

  it('keeps the line items of a re-import that sends the same items, and replaces them when any differs', async () => {
    const items = [
      { product: 'shirt', variant: 'small', quantity: 1, unitPriceCents: 2000 },
      { product: 'mug', quantity: 2, unitPriceCents: 900 },
    ];
    const order = (await importOrders(f.key, { data: [row('same-items', { items })] })).json().data[0];
    const itemIds = async () =>
      (
        await db()
          .selectFrom('order_items')
          .select('id')
          .where('organization_id', '=', f.org)
          .where('order_id', '=', order.id)
          .orderBy('position')
          .execute()
      ).map((item) => item.id);
    const first = await itemIds();
    // Same items by other references (ids instead of slugs): nothing changes.
    await importOrders(f.key, {
      data: [
        row('same-items', {
          items: [
            {
              product: f.products.shirt!.id,
              variant: f.products.shirt!.variants.small,
              quantity: 1,
              unitPriceCents: 2000,
            },
            items[1],
          ],
        }),
      ],
    });
    expect(await itemIds()).toEqual(first);
    // A different price on one item replaces the whole list.
    await importOrders(f.key, {
      data: [row('same-items', { items: [items[0], { ...items[1], unitPriceCents: 950 }] })],
    });
    const replaced = await itemIds();
    expect(replaced).toHaveLength(2);
    expect(replaced.some((id) => first.includes(id))).toBe(false);
    // The same items in another order is a change too.
    await importOrders(f.key, {
      data: [row('same-items', { items: [{ ...items[1], unitPriceCents: 950 }, items[0]] })],
    });
    const reordered = (await t.request({ url: `/v1/orders/${order.id}?include=items`, key: f.key })).json().items;
    expect(reordered.map((item: { productId: string }) => item.productId)).toEqual([
      f.products.mug!.id,
      f.products.shirt!.id,
    ]);
  });

  it('merges metadata with mergeMetadata and replaces it without', async () => {
    await importOrders(f.key, { data: [row('m-1', { metadata: { a: '1', b: '2' } })] });
    const merged = await importOrders(f.key, {
      mergeMetadata: true,
      data: [row('m-1', { metadata: { b: 'B', c: '3' } })],
    });
    expect(merged.json().data[0].metadata).toEqual({ a: '1', b: 'B', c: '3' });
    const replaced = await importOrders(f.key, { data: [row('m-1', { metadata: { z: '9' } })] });
    expect(replaced.json().data[0].metadata).toEqual({ z: '9' });
  });

  it('refuses a merge that would exceed 50 metadata keys, changing nothing', async () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    await importOrders(f.key, { data: [row('m-50', { metadata: fifty })] });
    const response = await importOrders(f.key, {
      mergeMetadata: true,
      data: [row('m-50', { number: 'changed', metadata: { extra: 'x' } })],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.data[0].metadata');
    const stored = await db()
      .selectFrom('orders')
      .select(['number', 'metadata'])
      .where('organization_id', '=', f.org)
      .where('remote_id', '=', 'm-50')
      .executeTakeFirstOrThrow();
    expect(stored.number).toBe('#m-50');
    expect(Object.keys(stored.metadata)).toHaveLength(50);
  });

  it('imports 1,000 orders of three items each, then updates them all, in one request each', async () => {
    const data = Array.from({ length: 1000 }, (_, i) =>
      row(`bulk-${i}`, {
        totalCents: i,
        tags: [`t${i % 3}`],
        items: [
          { product: 'shirt', variant: 'small', quantity: 1, unitPriceCents: 2000 },
          { product: 'mug', quantity: 2, unitPriceCents: 900 },
          { product: 'hat', quantity: 3, unitPriceCents: 1500 },
        ],
      }),
    );
    const created = await importOrders(f.key, { data });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data.map((order: { remoteId: string }) => order.remoteId)).toEqual(
      data.map((r) => r.remoteId),
    );
    const itemCount = async () =>
      Number(
        (
          await db()
            .selectFrom('order_items')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('organization_id', '=', f.org)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await itemCount();
    const updated = await importOrders(f.key, { data: data.map((r, i) => ({ ...r, totalCents: i + 1 })) });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data.map((order: { id: string }) => order.id)).toEqual(
      created.json().data.map((order: { id: string }) => order.id),
    );
    expect(updated.json().data[999].totalCents).toBe(1000);
    expect(await itemCount()).toBe(before);
    const provenance = await db()
      .selectFrom('import_job_records')
      .select(['action'])
      .where('organization_id', '=', f.org)
      .where('record_id', '=', created.json().data[5].id)
      .execute();
    expect(provenance.map((entry) => entry.action).sort()).toEqual(['created', 'updated']);
  });
});

describe('POST /v1/orders/import: unresolved references', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('skips rows with a missing site or customer (one entry each) and orders with bad items (one entry per item)', async () => {
    const response = await importOrders(f.key, {
      data: [
        row('s-0'),
        row('s-1', { site: 'nowhere.example' }),
        row('s-2', { customer: 'nobody@example.com' }),
        row('s-3', { site: uuidv7(), customer: uuidv7() }),
        row('s-4', {
          items: [
            { product: 'shirt', variant: 'small', quantity: 1, unitPriceCents: 1 },
            { product: 'ghost', quantity: 1, unitPriceCents: 1 },
            { product: 'mug', quantity: 1, unitPriceCents: 1 },
          ],
        }),
        row('s-5', {
          items: [
            { product: 'shirt', variant: 'medium', quantity: 1, unitPriceCents: 1 },
            { product: 'mug', quantity: 1, unitPriceCents: 1 },
            { product: 'shirt', quantity: 1, unitPriceCents: 1 },
          ],
        }),
        row('s-6', { items: [{ product: 'poster', quantity: 1, unitPriceCents: 1 }] }),
        row('s-7', {
          items: [{ product: 'mug', variant: f.products.shirt!.variants.small, quantity: 1, unitPriceCents: 1 }],
        }),
        row('s-8', { items: [{ product: 'hat', quantity: 1, unitPriceCents: 1 }] }),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.data.map((order: { remoteId: string }) => order.remoteId)).toEqual(['s-0', 's-8']);
    expect(body.skipped).toEqual([
      { index: 1, message: 'Site "nowhere.example" does not exist in this organization.' },
      { index: 2, message: 'Customer "nobody@example.com" does not exist in this organization.' },
      { index: 3, message: expect.stringMatching(/^Site ".+" and customer ".+" do not exist in this organization\.$/) },
      { index: 4, itemIndex: 1, message: 'Product "ghost" does not exist in this organization.' },
      { index: 5, itemIndex: 0, message: 'Variant "medium" does not exist on product "shirt".' },
      { index: 5, itemIndex: 2, message: 'Product "shirt" has 2 variants; name one with variant (id or slug).' },
      { index: 6, itemIndex: 0, message: 'Product "poster" has no variants.' },
      { index: 7, itemIndex: 0, message: expect.stringContaining('does not exist on product "mug"') },
    ]);
    const stored = await db()
      .selectFrom('orders')
      .select('remote_id')
      .where('organization_id', '=', f.org)
      .orderBy('remote_id')
      .execute();
    expect(stored.map((order) => order.remote_id)).toEqual(['s-0', 's-8']);
    // Nothing of a skipped order was written, not even its good items.
    const items = await db()
      .selectFrom('order_items')
      .select('order_id')
      .where('organization_id', '=', f.org)
      .execute();
    expect(new Set(items.map((item) => item.order_id))).toEqual(new Set([body.data[1].id]));
    expect(await eventsOf(t, f.org, 'order.updated')).toHaveLength(2);
  });

  it('a skipped update leaves the stored order as it was', async () => {
    await importOrders(f.key, { data: [row('keep', { totalCents: 5 })] });
    const response = await importOrders(f.key, {
      data: [row('keep', { totalCents: 99, items: [{ product: 'ghost', quantity: 1, unitPriceCents: 1 }] })],
    });
    expect(response.json()).toEqual({
      data: [],
      skipped: [{ index: 0, itemIndex: 0, message: 'Product "ghost" does not exist in this organization.' }],
      created: 0,
      updated: 0,
      unchanged: 0,
    });
    const stored = await db()
      .selectFrom('orders')
      .select('total_cents')
      .where('organization_id', '=', f.org)
      .where('remote_id', '=', 'keep')
      .executeTakeFirstOrThrow();
    expect(stored.total_cents).toBe(5);
  });

  it('with strict, the first miss fails the whole import with 422 naming the row and item, and nothing is written', async () => {
    const ordersBefore = await countOrders(f.org);
    const eventsBefore = (await eventsOf(t, f.org)).length;
    const response = await importOrders(f.key, {
      strict: true,
      data: [
        row('strict-0', { tags: ['new-tag'] }),
        row('strict-1', {
          items: [
            { product: 'mug', quantity: 1, unitPriceCents: 1 },
            { product: 'hat', quantity: 1, unitPriceCents: 1 },
            { product: 'ghost', quantity: 1, unitPriceCents: 1 },
          ],
        }),
        row('strict-2', { site: 'nowhere.example' }),
      ],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toEqual({
      code: 'UNPROCESSABLE',
      message: expect.stringContaining('row 1'),
      details: [{ path: 'body.data[1].items[2]', message: 'Product "ghost" does not exist in this organization.' }],
    });
    expect(await countOrders(f.org)).toBe(ordersBefore);
    expect(await eventsOf(t, f.org)).toHaveLength(eventsBefore);
    expect(
      await db()
        .selectFrom('tags')
        .select('id')
        .where('organization_id', '=', f.org)
        .where('name', '=', 'new-tag')
        .execute(),
    ).toEqual([]);

    const siteMiss = await importOrders(f.key, {
      strict: true,
      data: [row('strict-3', { customer: 'nobody@example.com' })],
    });
    expect(siteMiss.statusCode).toBe(422);
    expect(siteMiss.json().error.details).toEqual([
      { path: 'body.data[0]', message: 'Customer "nobody@example.com" does not exist in this organization.' },
    ]);
    expect(await countOrders(f.org)).toBe(ordersBefore);

    const fine = await importOrders(f.key, { strict: true, data: [row('strict-ok')] });
    expect(fine.statusCode).toBe(200);
    expect(fine.json().skipped).toEqual([]);
  });

  it("treats another organization's site, customer and product ids as missing", async () => {
    const other = await fixture();
    const response = await importOrders(f.key, {
      data: [
        row('x-1', { site: other.site.id }),
        row('x-2', { customer: other.alice.id }),
        row('x-3', { items: [{ product: other.products.mug!.id, quantity: 1, unitPriceCents: 1 }] }),
        row('x-4', {
          items: [
            { product: 'mug', variant: other.products.mug!.variants['mug-default'], quantity: 1, unitPriceCents: 1 },
          ],
        }),
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual([]);
    expect(response.json().skipped).toEqual([
      { index: 0, message: `Site "${other.site.id}" does not exist in this organization.` },
      { index: 1, message: `Customer "${other.alice.id}" does not exist in this organization.` },
      { index: 2, itemIndex: 0, message: `Product "${other.products.mug!.id}" does not exist in this organization.` },
      {
        index: 3,
        itemIndex: 0,
        message: `Variant "${other.products.mug!.variants['mug-default']}" does not exist on product "mug".`,
      },
    ]);
  });

  it('matches remoteId per organization: the same remoteId in another organization is another order', async () => {
    const other = await fixture();
    const mine = (await importOrders(f.key, { data: [row('shared-remote', { totalCents: 1 })] })).json().data[0];
    const theirs = (await importOrders(other.key, { data: [row('shared-remote', { totalCents: 2 })] })).json().data[0];
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.siteId).toBe(other.site.id);
    const stillMine = (await t.request({ url: `/v1/orders/${mine.id}`, key: f.key })).json();
    expect(stillMine.totalCents).toBe(1);
  });
});

interface Seeded {
  id: string;
  number: string;
  remoteId: string;
  totalCents: number;
  createdAt: string;
  customerId: string;
}

describe('GET /v1/orders', () => {
  let f: Fixture;
  let other: Fixture;
  let orders: Seeded[];
  const list = async (query: string, key = f.key) => t.request({ url: `/v1/orders${query ? `?${query}` : ''}`, key });
  const idsOf = (body: { data: { id: string }[] }) => body.data.map((order) => order.id);
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  const filter = async (document: unknown) => {
    const response = await list(q({ filter: JSON.stringify(document), limit: '250' }));
    expect(response.statusCode, response.body).toBe(200);
    return new Set(idsOf(response.json()));
  };
  const idsWhere = (predicate: (order: Seeded, index: number) => boolean) =>
    new Set(orders.filter(predicate).map((order) => order.id));

  beforeAll(async () => {
    f = await fixture();
    other = await fixture();
    // 12 orders: totals with ties, two equal createdAt, a mix of customers, sites, dates, tags, metadata and items.
    const totals = [5000, 1000, 5000, 7500, 5000, 250, 9900, 1000, 5000, 120, 7500, 3000];
    const data = totals.map((total, i) =>
      row(`L-${String(i).padStart(2, '0')}`, {
        number: `#${1000 + ((i * 7) % 12)}`,
        totalCents: total,
        customer: i % 3 === 0 ? f.bob.email : f.alice.email,
        currencyCode: i % 4 === 0 ? 'USD' : 'EUR',
        createdAt: i === 7 ? '2026-03-06T00:00:00.000Z' : `2026-03-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`,
        ...(i % 2 === 0 ? { shippedAt: `2026-04-${String(i + 1).padStart(2, '0')}T00:00:00Z` } : {}),
        ...(i % 4 === 0 ? { deliveredAt: '2026-05-01T00:00:00Z' } : {}),
        ...(i === 11 ? { cancelledAt: '2026-05-02T00:00:00Z' } : {}),
        metadata: i % 2 ? { channel: 'pos' } : { channel: 'web' },
        ...(i < 4 ? { tags: i % 2 ? ['vip'] : ['wholesale', 'vip'] } : {}),
        items:
          i % 3 === 1
            ? [{ product: 'shirt', variant: 'large', quantity: 1, unitPriceCents: total }]
            : [{ product: 'mug', quantity: 1, unitPriceCents: total }],
      }),
    );
    const response = await importOrders(f.key, { data });
    expect(response.statusCode, response.body).toBe(200);
    orders = response.json().data;
    // Another organization's orders never show up.
    await importOrders(other.key, {
      data: [row('L-00', { number: '#1000', totalCents: 5000, tags: ['vip'] }), row('theirs')],
    });
  });

  it('lists newest first by default with base records only', async () => {
    const response = await list('');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.nextCursor).toBeNull();
    expect(body.data).toHaveLength(12);
    const expected = [...orders].sort((a, b) =>
      b.createdAt === a.createdAt ? (b.id < a.id ? -1 : 1) : b.createdAt < a.createdAt ? -1 : 1,
    );
    expect(idsOf(body)).toEqual(expected.map((order) => order.id));
    expect(body.data[0]).toEqual(orders.find((order) => order.id === expected[0]!.id));
  });

  it.each(['number', '-number', 'createdAt', '-createdAt', 'totalCents', '-totalCents'])(
    'pages through every order sorted by %s with no skips or repeats',
    async (sort) => {
      const descending = sort.startsWith('-');
      const key = (descending ? sort.slice(1) : sort) as 'number' | 'createdAt' | 'totalCents';
      const expected = [...orders].sort((a, b) => {
        const compare = a[key] === b[key] ? (a.id < b.id ? -1 : 1) : a[key] < b[key] ? -1 : 1;
        return descending ? -compare : compare;
      });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await list(q({ sort, limit: '5', ...(cursor ? { cursor } : {}) }));
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expect(body.data.length).toBeLessThanOrEqual(5);
        seen.push(...idsOf(body));
        cursor = body.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(expected.map((order) => order.id));
    },
  );

  it('refuses an unknown sort, include, query parameter, a bad limit and a cursor reused with another sort', async () => {
    for (const [query, path] of [
      ['sort=title', 'query.sort'],
      ['include=variants', 'query.include'],
      ['include=items,bogus', 'query.include'],
      ['page=2', 'query.page'],
      ['limit=251', 'query.limit'],
      ['limit=0', 'query.limit'],
    ] as const) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(400);
      expect(
        response.json().error.details.map((detail: { path: string }) => detail.path),
        query,
      ).toContain(path);
    }
    const first = (await list(q({ sort: 'totalCents', limit: '2' }))).json();
    const reused = await list(q({ sort: '-totalCents', limit: '2', cursor: first.nextCursor }));
    expect(reused.statusCode).toBe(400);
    expect(reused.json().error.details[0].path).toBe('query.cursor');
    const garbage = await list(q({ cursor: 'not-a-cursor' }));
    expect(garbage.statusCode).toBe(400);
  });

  it('includes importJob, itemsCount, customer, items and tags with exact shapes', async () => {
    const target = orders[1]!;
    const response = await list(
      q({ include: 'importJob,itemsCount,customer,items,tags', filter: JSON.stringify({ id: target.id }) }),
    );
    expect(response.statusCode, response.body).toBe(200);
    const [order] = response.json().data;
    expect(order).toEqual({
      ...target,
      importJob: {
        id: expect.stringMatching(UUID),
        type: 'orders',
        action: 'created',
        row: 1,
        createdAt: expect.stringMatching(ISO),
      },
      itemsCount: 1,
      customer: {
        id: f.alice.id,
        email: 'alice@example.com',
        phone: null,
        firstName: 'Alice',
        lastName: 'Smith',
        country: null,
        birthday: null,
        metadata: { tier: 'gold' },
        notes: null,
        emailOptOut: false,
        emailOptOutAt: null,
        emailOptOutSource: null,
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:00:00.000Z',
      },
      items: [
        {
          id: expect.stringMatching(UUID),
          productId: f.products.shirt!.id,
          productVariantId: f.products.shirt!.variants.large,
          quantity: 1,
          unitPriceCents: 1000,
          product: {
            id: f.products.shirt!.id,
            slug: 'shirt',
            title: 'Shirt',
            description: '',
            imageUrl: '',
            url: '',
            metadata: {},
            notes: '',
            createdAt: expect.stringMatching(ISO),
            updatedAt: expect.stringMatching(ISO),
          },
          variant: {
            id: f.products.shirt!.variants.large,
            slug: 'large',
            title: 'Large',
            imageUrl: '',
            priceCents: 2200,
            currencyCode: 'EUR',
            available: true,
            metadata: {},
          },
        },
      ],
      tags: ['vip'],
    });
    // Extras are per record: an order without tags gets [], and a page loads each extra once.
    const page = (await list(q({ include: 'tags,itemsCount', limit: '250' }))).json();
    const untagged = page.data.find((entry: { id: string }) => entry.id === orders[5]!.id);
    expect(untagged.tags).toEqual([]);
    expect(untagged.itemsCount).toBe(1);
    expect(page.data.find((entry: { id: string }) => entry.id === orders[0]!.id).tags).toEqual(['vip', 'wholesale']);
  });

  it('GET /v1/orders/{id} takes the same includes, and customer embeds the customer of each order', async () => {
    const response = await t.request({ url: `/v1/orders/${orders[0]!.id}?include=customer,itemsCount`, key: f.key });
    expect(response.statusCode).toBe(200);
    expect(response.json().customer).toMatchObject({
      id: f.bob.id,
      email: 'Bob@Example.com',
      emailOptOut: true,
      emailOptOutSource: 'merchant',
      emailOptOutAt: '2025-07-01T00:00:00.000Z',
    });
    expect(response.json()).not.toHaveProperty('items');
    expect((await t.request({ url: `/v1/orders/${orders[0]!.id}?include=variants`, key: f.key })).statusCode).toBe(400);
    expect((await t.request({ url: `/v1/orders/${orders[0]!.id}?expand=items`, key: f.key })).statusCode).toBe(400);
  });

  it('filters on every listed field', async () => {
    const o = orders;
    expect(await filter({ id: o[3]!.id })).toEqual(new Set([o[3]!.id]));
    expect(await filter({ id: { $in: [o[3]!.id, o[4]!.id, other.site.id] } })).toEqual(new Set([o[3]!.id, o[4]!.id]));
    expect(await filter({ number: o[2]!.number })).toEqual(idsWhere((order) => order.number === o[2]!.number));
    expect(await filter({ number: { $startsWith: '#100' } })).toEqual(
      idsWhere((order) => order.number.startsWith('#100')),
    );
    expect(await filter({ totalCents: { $gte: 5000 } })).toEqual(idsWhere((order) => order.totalCents >= 5000));
    expect(await filter({ totalCents: 1000 })).toEqual(idsWhere((order) => order.totalCents === 1000));
    expect(await filter({ currencyCode: 'USD' })).toEqual(idsWhere((_, i) => i % 4 === 0));
    expect(await filter({ shippedAt: { $exists: true } })).toEqual(idsWhere((_, i) => i % 2 === 0));
    expect(await filter({ shippedAt: { $gte: '2026-04-05T00:00:00Z' } })).toEqual(
      idsWhere((_, i) => i % 2 === 0 && i >= 4),
    );
    expect(await filter({ deliveredAt: { $lt: '2026-06-01T00:00:00+02:00' } })).toEqual(
      idsWhere((_, i) => i % 4 === 0),
    );
    expect(await filter({ cancelledAt: null })).toEqual(idsWhere((_, i) => i !== 11));
    expect(await filter({ cancelledAt: { $exists: true } })).toEqual(new Set([o[11]!.id]));
    expect(await filter({ 'metadata.channel': 'pos' })).toEqual(idsWhere((_, i) => i % 2 === 1));
    expect(await filter({ createdAt: { $gte: '2026-03-06T00:00:00Z', $lt: '2026-03-07T00:00:00Z' } })).toEqual(
      new Set([o[5]!.id, o[7]!.id]),
    );
    expect(await filter({ 'customer.id': f.bob.id })).toEqual(idsWhere((_, i) => i % 3 === 0));
    expect(await filter({ 'customer.email': { $contains: 'EXAMPLE.COM' } })).toEqual(idsWhere(() => true));
    expect(await filter({ 'customer.email': 'alice@example.com' })).toEqual(idsWhere((_, i) => i % 3 !== 0));
    expect(await filter({ 'customer.firstName': 'Bob' })).toEqual(idsWhere((_, i) => i % 3 === 0));
    expect(await filter({ 'customer.lastName': { $startsWith: 'smi' } })).toEqual(idsWhere((_, i) => i % 3 !== 0));
    expect(await filter({ 'customer.metadata.tier': 'gold' })).toEqual(idsWhere((_, i) => i % 3 !== 0));
    expect(await filter({ 'customer.emailOptOut': true })).toEqual(idsWhere((_, i) => i % 3 === 0));
    expect(await filter({ 'customer.emailOptOutSource': 'merchant' })).toEqual(idsWhere((_, i) => i % 3 === 0));
    expect(await filter({ 'customer.emailOptOutSource': null })).toEqual(idsWhere((_, i) => i % 3 !== 0));
    expect(await filter({ 'customer.createdAt': { $gt: '2025-03-01T00:00:00Z' } })).toEqual(
      idsWhere((_, i) => i % 3 === 0),
    );
    expect(await filter({ 'items.productId': f.products.shirt!.id })).toEqual(idsWhere((_, i) => i % 3 === 1));
    expect(await filter({ 'items.productVariantId': f.products.mug!.variants['mug-default'] })).toEqual(
      idsWhere((_, i) => i % 3 !== 1),
    );
    expect(await filter({ 'tags.name': 'wholesale' })).toEqual(new Set([o[0]!.id, o[2]!.id]));
    expect(await filter({ 'tags.name': 'vip' })).toEqual(new Set([o[0]!.id, o[1]!.id, o[2]!.id, o[3]!.id]));
    expect(await filter({ 'tags.name': null })).toEqual(idsWhere((_, i) => i >= 4));
    expect(
      await filter({
        $or: [{ 'tags.name': 'wholesale' }, { totalCents: { $lt: 300 } }],
        'customer.firstName': 'Alice',
      }),
    ).toEqual(idsWhere((order, i) => i % 3 !== 0 && (i === 2 || order.totalCents < 300)));
  });

  it('refuses malformed filters with 400 naming the path', async () => {
    for (const [document, path] of [
      ['{not json', 'query.filter'],
      [JSON.stringify({ title: 'x' }), 'query.filter.title'],
      [JSON.stringify({ remoteId: 'x' }), 'query.filter.remoteId'],
      [JSON.stringify({ totalCents: { $gte: '5000' } }), 'query.filter.totalCents.$gte'],
      [JSON.stringify({ 'customer.emailOptOutSource': 'robot' }), 'query.filter.customer.emailOptOutSource'],
      [JSON.stringify({ 'customer.emailOptOut': 'yes' }), 'query.filter.customer.emailOptOut'],
      [JSON.stringify({ 'items.productId': 'shirt' }), 'query.filter.items.productId'],
      [JSON.stringify({ shippedAt: { $gte: '2026-01-01' } }), 'query.filter.shippedAt.$gte'],
      [JSON.stringify({ metadata: 'x' }), 'query.filter.metadata'],
      [JSON.stringify([1]), 'query.filter'],
    ] as const) {
      const response = await list(q({ filter: document }));
      expect(response.statusCode, document).toBe(400);
      expect(response.json().error.details[0].path, document).toBe(path);
    }
  });

  it('searches number, remoteId and customer email, case-insensitively, ANDed with the filter', async () => {
    const search = async (text: string, extra: Record<string, string> = {}) => {
      const response = await list(q({ search: text, limit: '250', ...extra }));
      expect(response.statusCode, response.body).toBe(200);
      return new Set(idsOf(response.json()));
    };
    expect(await search(orders[4]!.number)).toEqual(idsWhere((order) => order.number === orders[4]!.number));
    expect(await search('l-07')).toEqual(new Set([orders[7]!.id]));
    expect(await search('bob@EXAMPLE')).toEqual(idsWhere((_, i) => i % 3 === 0));
    expect(await search('example.com', { filter: JSON.stringify({ totalCents: { $gt: 7000 } }) })).toEqual(
      idsWhere((order) => order.totalCents > 7000),
    );
    expect(await search('100%')).toEqual(new Set());
    expect(await search('nothing-matches')).toEqual(new Set());
  });

  it("never lists another organization's orders", async () => {
    const theirs = (await list(q({ limit: '250' }), other.key)).json();
    expect(theirs.data).toHaveLength(2);
    const mine = new Set(orders.map((order) => order.id));
    expect(theirs.data.every((order: { id: string }) => !mine.has(order.id))).toBe(true);
    expect(await filter({ 'tags.name': 'vip', number: '#1000' })).toEqual(
      idsWhere((order, i) => order.number === '#1000' && i < 4),
    );
    const searched = (await list(q({ search: 'theirs' }))).json();
    expect(searched.data).toEqual([]);
  });

  it('needs orders:read', async () => {
    const key = await t.key(f.org, ['products:read']);
    const response = await list('', key);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toContain('orders:read');
  });
});

describe('include=items after a product is deleted', () => {
  it('keeps the item with product: null and variant: null', async () => {
    const f = await fixture();
    await importProducts(f.key, [
      { slug: 'lamp', title: 'Lamp', variants: [{ slug: 'lamp-default', title: 'Default', priceCents: 100 }] },
    ]);
    const created = await importOrders(f.key, {
      data: [
        row('del-1', {
          items: [
            { product: 'lamp', quantity: 1, unitPriceCents: 100 },
            { product: 'mug', quantity: 2, unitPriceCents: 900 },
          ],
        }),
      ],
    });
    const order = created.json().data[0];
    const lamp = await db()
      .selectFrom('products')
      .select('id')
      .where('organization_id', '=', f.org)
      .where('slug', '=', 'lamp')
      .executeTakeFirstOrThrow();
    expect((await t.request({ method: 'DELETE', url: `/v1/products/${lamp.id}`, key: f.key })).statusCode).toBe(200);
    const full = (await t.request({ url: `/v1/orders/${order.id}?include=items`, key: f.key })).json();
    expect(full.items).toHaveLength(2);
    expect(full.items[0]).toMatchObject({
      productId: lamp.id,
      quantity: 1,
      unitPriceCents: 100,
      product: null,
      variant: null,
    });
    expect(full.items[1]).toMatchObject({
      productId: f.products.mug!.id,
      product: { slug: 'mug' },
      variant: { slug: 'mug-default' },
    });
    // The filter still finds the order by the deleted product's id: history keeps it.
    const listed = (
      await t.request({
        url: `/v1/orders?filter=${encodeURIComponent(JSON.stringify({ 'items.productId': lamp.id }))}`,
        key: f.key,
      })
    ).json();
    expect(listed.data.map((entry: { id: string }) => entry.id)).toEqual([order.id]);
  });
});

describe('PATCH /v1/orders/{id}', () => {
  let f: Fixture;
  let order: { id: string; updatedAt: string } & Record<string, unknown>;
  beforeAll(async () => {
    f = await fixture();
    order = (
      await importOrders(f.key, { data: [row('p-1', { totalCents: 100, metadata: { a: '1' }, tags: ['old'] })] })
    ).json().data[0];
  });
  const patch = (id: string, body: unknown, key = f.key) =>
    t.request({ method: 'PATCH', url: `/v1/orders/${id}`, key, body });

  it('replaces metadata wholesale, sets notes and the full tag set, with an order.updated event equal to the response', async () => {
    const response = await patch(order.id, {
      metadata: { b: '2' },
      notes: 'Call before delivery',
      tags: ['gift', ' gift ', 'rush'],
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      ...order,
      metadata: { b: '2' },
      notes: 'Call before delivery',
      updatedAt: expect.stringMatching(ISO),
    });
    expect(body.updatedAt > order.updatedAt).toBe(true);
    const events = await eventsOf(t, f.org, 'order.updated');
    expect(events.at(-1)!.payload).toEqual(body);
    const full = (await t.request({ url: `/v1/orders/${order.id}?include=tags`, key: f.key })).json();
    expect(full.tags).toEqual(['gift', 'rush']);
    expect(
      (await eventsOf(t, f.org, 'orderTag.created')).map((event) => (event.payload as { name: string }).name),
    ).toEqual(expect.arrayContaining(['gift', 'rush']));

    // Each field is omittable: notes alone leaves metadata and tags alone; an empty tag list removes them.
    const notesOnly = (await patch(order.id, { notes: '' })).json();
    expect(notesOnly.metadata).toEqual({ b: '2' });
    expect(notesOnly.notes).toBe('');
    expect((await t.request({ url: `/v1/orders/${order.id}?include=tags`, key: f.key })).json().tags).toEqual([
      'gift',
      'rush',
    ]);
    await patch(order.id, { tags: [] });
    expect((await t.request({ url: `/v1/orders/${order.id}?include=tags`, key: f.key })).json().tags).toEqual([]);
  });

  it.each([
    ['a store field (totalCents)', { totalCents: 5 }, 'body.totalCents'],
    ['a store field (number)', { number: '#2' }, 'body.number'],
    ['a store field (cancelledAt)', { cancelledAt: '2026-01-01T00:00:00Z' }, 'body.cancelledAt'],
    ['a store field (customerId)', { customerId: uuidv7() }, 'body.customerId'],
    ['a non-string metadata value', { metadata: { a: 1 } }, 'body.metadata.a'],
    [
      '51 metadata keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'body.metadata',
    ],
    ['notes over 10,000 characters', { notes: 'x'.repeat(10_001) }, 'body.notes'],
    ['a tag over 100 characters', { tags: ['x'.repeat(101)] }, 'body.tags[0]'],
    ['tags that are not an array', { tags: 'vip' }, 'body.tags'],
  ])('refuses %s with 400 and changes nothing (rule 2, D6)', async (_name, body, path) => {
    const before = await db()
      .selectFrom('orders')
      .selectAll()
      .where('organization_id', '=', f.org)
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    const response = await patch(order.id, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    const after = await db()
      .selectFrom('orders')
      .selectAll()
      .where('organization_id', '=', f.org)
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it("answers 404 for an unknown id or another organization's order and 400 for a malformed id", async () => {
    const other = await fixture();
    const theirs = (await importOrders(other.key, { data: [row('theirs', { metadata: { keep: 'me' } })] })).json()
      .data[0];
    expect((await patch(uuidv7(), { notes: 'x' })).statusCode).toBe(404);
    const response = await patch(theirs.id, { metadata: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toEqual({ code: 'NOT_FOUND', message: 'The order was not found.' });
    expect((await t.request({ url: `/v1/orders/${theirs.id}`, key: other.key })).json().metadata).toEqual({
      keep: 'me',
    });
    expect((await t.request({ url: `/v1/orders/${theirs.id}`, key: f.key })).statusCode).toBe(404);
    const malformed = await patch('not-a-uuid', { notes: 'x' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].path).toBe('path.id');
  });
});

describe('DELETE /v1/orders/{id}', () => {
  it('returns the deleted order, removes its items and tag links, and records order.deleted', async () => {
    const f = await fixture();
    const [order, kept] = (
      await importOrders(f.key, {
        data: [
          row('d-1', {
            tags: ['bye'],
            items: [
              { product: 'mug', quantity: 1, unitPriceCents: 1 },
              { product: 'hat', quantity: 1, unitPriceCents: 1 },
            ],
          }),
          row('d-2', { tags: ['bye'], items: [{ product: 'mug', quantity: 1, unitPriceCents: 1 }] }),
        ],
      })
    ).json().data;
    const response = await t.request({ method: 'DELETE', url: `/v1/orders/${order.id}`, key: f.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(order);
    const [event] = await eventsOf(t, f.org, 'order.deleted');
    expect(event!.payload).toEqual(order);
    expect(
      await db().selectFrom('order_items').select('order_id').where('organization_id', '=', f.org).execute(),
    ).toEqual([{ order_id: kept.id }]);
    expect(
      await db().selectFrom('order_tags').select('order_id').where('organization_id', '=', f.org).execute(),
    ).toEqual([{ order_id: kept.id }]);
    expect((await t.request({ url: `/v1/orders/${order.id}`, key: f.key })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/orders/${order.id}`, key: f.key })).statusCode).toBe(404);
    // The tag record itself stays (other orders use it); the remoteId can be imported again as a new order.
    const reimported = (await importOrders(f.key, { data: [row('d-1')] })).json().data[0];
    expect(reimported.id).not.toBe(order.id);
  });

  it("answers 404 for another organization's order and leaves it in place", async () => {
    const f = await fixture();
    const other = await fixture();
    const theirs = (await importOrders(other.key, { data: [row('theirs')] })).json().data[0];
    const response = await t.request({ method: 'DELETE', url: `/v1/orders/${theirs.id}`, key: f.key });
    expect(response.statusCode).toBe(404);
    expect(await countOrders(other.org)).toBe(1);
    expect(await eventsOf(t, other.org, 'order.deleted')).toEqual([]);
    expect(
      (
        await t.request({
          method: 'DELETE',
          url: `/v1/orders/${theirs.id}`,
          key: await t.key(other.org, ['orders:read']),
        })
      ).statusCode,
    ).toBe(403);
  });
});

describe('PATCH /v1/orders/bulk-update', () => {
  it('adds and removes tags and metadata on the selected orders only, with one event each', async () => {
    const f = await fixture();
    const other = await fixture();
    const mine = (
      await importOrders(f.key, {
        data: [
          row('b-1', { totalCents: 100, tags: ['old'], metadata: { drop: 'x', keep: 'y' } }),
          row('b-2', { totalCents: 900, tags: ['old'], metadata: { drop: 'x' } }),
          row('b-3', { totalCents: 950, customer: f.bob.email }),
        ],
      })
    ).json().data;
    const theirs = (await importOrders(other.key, { data: [row('b-1', { totalCents: 900, tags: ['old'] })] })).json()
      .data[0];
    const eventsBefore = (await eventsOf(t, f.org, 'order.updated')).length;

    const filter = encodeURIComponent(JSON.stringify({ totalCents: { $gte: 500 } }));
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/orders/bulk-update?filter=${filter}`,
      key: f.key,
      body: { addTags: ['bulk'], removeTags: ['old'], addMetadata: { batch: '7' }, removeMetadataKeys: ['drop'] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ count: 2 });

    const listed = (await t.request({ url: '/v1/orders?include=tags&sort=totalCents', key: f.key })).json().data;
    expect(
      listed.map((order: { tags: string[]; metadata: Record<string, string> }) => [order.tags, order.metadata]),
    ).toEqual([
      [['old'], { drop: 'x', keep: 'y' }],
      [['bulk'], { batch: '7' }],
      [['bulk'], { batch: '7' }],
    ]);
    const events = await eventsOf(t, f.org, 'order.updated');
    expect(events).toHaveLength(eventsBefore + 2);
    const updated = listed.slice(1).map(({ tags: _tags, ...base }: { tags: string[] }) => base);
    expect(
      events
        .slice(-2)
        .map((event) => event.payload)
        .sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1)),
    ).toEqual(updated.sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1)));
    expect(mine).toHaveLength(3);

    // The other organization's order matched the filter but was not touched.
    const theirsNow = (await t.request({ url: `/v1/orders/${theirs.id}?include=tags`, key: other.key })).json();
    expect(theirsNow.tags).toEqual(['old']);
    expect(theirsNow.metadata).toEqual({});

    // search selects too, and an unknown filter field is 400 with nothing changed.
    const searched = await t.request({
      method: 'PATCH',
      url: '/v1/orders/bulk-update?search=bob%40example',
      key: f.key,
      body: { addTags: ['bob'] },
    });
    expect(searched.json()).toEqual({ count: 1 });
    const bad = await t.request({
      method: 'PATCH',
      url: `/v1/orders/bulk-update?filter=${encodeURIComponent('{"title":"x"}')}`,
      key: f.key,
      body: { addTags: ['x'] },
    });
    expect(bad.statusCode).toBe(400);
    const empty = await t.request({ method: 'PATCH', url: '/v1/orders/bulk-update', key: f.key, body: {} });
    expect(empty.statusCode).toBe(400);
    const storeField = await t.request({
      method: 'PATCH',
      url: '/v1/orders/bulk-update',
      key: f.key,
      body: { totalCents: 1 },
    });
    expect(storeField.statusCode).toBe(400);
    expect(storeField.json().error.details[0].path).toBe('body.totalCents');
  });
});
