/**
 * docs/api.md#writes-that-change-nothing: a PATCH or PUT, a bulk-update row or an import row whose values are the
 * stored ones writes nothing: the answer is the record as it is (200), updatedAt stays and no event is recorded. A
 * real change still writes and sends its event, so the rule is not "never write".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { nextMillisecond } from '../support/clock.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
/** A public address as a literal: the test machine may have no DNS, and a literal needs none. */
const PUBLIC = 'https://93.184.215.14';

/** Every event the organization has recorded, in order: what a no-op must leave exactly as it was. */
const eventLines = async (tenant: Tenant) =>
  (await eventsOf(t, tenant.organization.id)).map((event) => `${event.name} ${event.id}`);

async function send(tenant: Tenant, method: string, url: string, body?: unknown, status = 200) {
  const response = await t.request({ method: method as 'PATCH', url: `/v1${url}`, key: tenant.key, body });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status);
  return response.json();
}

/** Runs `write`, which must change nothing: its answer is `record` exactly, and no event is recorded. */
async function expectNoOp(tenant: Tenant, record: unknown, write: () => Promise<unknown>) {
  const events = await eventLines(tenant);
  // A write in the same millisecond would hide a moved updatedAt.
  await nextMillisecond();
  expect(await write()).toEqual(record);
  expect(await eventLines(tenant)).toEqual(events);
}

async function newEvents(tenant: Tenant, write: () => Promise<unknown>): Promise<string[]> {
  const before = await eventLines(tenant);
  await write();
  return (await eventLines(tenant)).slice(before.length).map((event) => event.split(' ')[0]!);
}

/** A store with a site, a customer, a product with two variants, and an order of it. */
async function store(tenant: Tenant) {
  const site = await send(tenant, 'POST', '/sites', { data: { name: 'Shop', domain: 'shop.example' } }, 201);
  const product = {
    slug: 'shirt',
    title: 'Shirt',
    metadata: { a: '1', b: '2' },
    tags: ['linen', 'summer'],
    sites: [site.id],
    variants: [
      { slug: 's', title: 'S', priceCents: 100, metadata: { size: 's' } },
      { slug: 'm', title: 'M', priceCents: 100 },
    ],
  };
  const customer = {
    email: 'ann@example.com',
    firstName: 'Ann',
    country: 'DE',
    metadata: { a: '1', b: '2' },
    tags: ['vip'],
    emailOptOut: true,
  };
  const order = {
    site: 'shop.example',
    customer: 'ann@example.com',
    remoteId: 'o-1',
    number: '1001',
    totalCents: 200,
    shippedAt: '2026-01-02T03:04:05Z',
    metadata: { a: '1', b: '2' },
    tags: ['gift'],
    items: [{ product: 'shirt', variant: 's', quantity: 2, unitPriceCents: 100 }],
  };
  const products = await send(tenant, 'POST', '/products/import', { data: [product] });
  const customers = await send(tenant, 'POST', '/customers/import', { data: [customer] });
  const orders = await send(tenant, 'POST', '/orders/import', { data: [order], earnLoyalty: false });
  return {
    site,
    rows: { product, customer, order },
    product: products.data[0],
    customer: customers.data[0],
    order: orders.data[0],
  };
}

describe('PATCH of store records', () => {
  it('products: an empty body, the same metadata in another key order and the same tags in another order write nothing', async () => {
    const tenant = await t.tenant();
    const { product } = await store(tenant);
    const stored = await send(tenant, 'GET', `/products/${product.id}?include=tags`);
    const { tags: _tags, ...record } = stored;
    await expectNoOp(tenant, record, () => send(tenant, 'PATCH', `/products/${product.id}`, {}));
    await expectNoOp(tenant, record, () =>
      send(tenant, 'PATCH', `/products/${product.id}`, {
        metadata: { b: '2', a: '1' },
        notes: record.notes,
        tags: ['summer', 'linen', 'summer '],
      }),
    );
    expect(await send(tenant, 'GET', `/products/${product.id}?include=tags`)).toEqual(stored);
    // A change of tags alone is a change: updatedAt moves and product.updated goes out.
    const names = await newEvents(tenant, () => send(tenant, 'PATCH', `/products/${product.id}`, { tags: ['linen'] }));
    expect(names).toEqual(['product.updated']);
    expect((await send(tenant, 'GET', `/products/${product.id}`)).updatedAt > record.updatedAt).toBe(true);
  });

  it('variants: the same metadata writes nothing; other metadata writes and sends productVariant.updated', async () => {
    const tenant = await t.tenant();
    const { product } = await store(tenant);
    const [variant] = (await send(tenant, 'GET', `/products/${product.id}?include=variants`)).variants;
    const url = `/products/${product.id}/variants/${variant.id}`;
    await expectNoOp(tenant, variant, () => send(tenant, 'PATCH', url, {}));
    await expectNoOp(tenant, variant, () => send(tenant, 'PATCH', url, { metadata: { size: 's' } }));
    expect(await newEvents(tenant, () => send(tenant, 'PATCH', url, { metadata: { size: 'S' } }))).toEqual([
      'productVariant.updated',
    ]);
  });

  it('orders: an empty body and the same values write nothing', async () => {
    const tenant = await t.tenant();
    const { order } = await store(tenant);
    await expectNoOp(tenant, order, () => send(tenant, 'PATCH', `/orders/${order.id}`, {}));
    await expectNoOp(tenant, order, () =>
      send(tenant, 'PATCH', `/orders/${order.id}`, { metadata: { b: '2', a: '1' }, notes: '', tags: ['gift'] }),
    );
    expect(await newEvents(tenant, () => send(tenant, 'PATCH', `/orders/${order.id}`, { notes: 'wrap it' }))).toEqual([
      'order.updated',
    ]);
  });

  it('customers: an empty body, the same values and opting out again write nothing', async () => {
    const tenant = await t.tenant();
    const { customer } = await store(tenant);
    await expectNoOp(tenant, customer, () => send(tenant, 'PATCH', `/customers/${customer.id}`, {}));
    await expectNoOp(tenant, customer, () =>
      send(tenant, 'PATCH', `/customers/${customer.id}`, {
        metadata: { b: '2', a: '1' },
        notes: null,
        tags: ['vip'],
        emailOptOut: true,
      }),
    );
    const names = await newEvents(tenant, () =>
      send(tenant, 'PATCH', `/customers/${customer.id}`, { emailOptOut: false }),
    );
    expect(names).toEqual(['customer.updated']);
  });
});

describe('PATCH /v1/<resource>/bulk-update', () => {
  it('writes and announces only the records it changes, and still counts every record selected', async () => {
    const tenant = await t.tenant();
    const { product } = await store(tenant);
    await send(tenant, 'POST', '/products/import', { data: [{ slug: 'plain', title: 'Plain' }] });
    const stored = await send(tenant, 'GET', `/products/${product.id}`);
    const events = await eventLines(tenant);
    // The shirt already has the tag and the metadata; the plain product gets them.
    const answer = await send(tenant, 'PATCH', '/products/bulk-update', {
      addTags: ['linen'],
      addMetadata: { a: '1' },
      removeTags: ['never-there'],
      removeMetadataKeys: ['never-there'],
    });
    expect(answer).toEqual({ count: 2 });
    const added = (await eventLines(tenant)).slice(events.length);
    expect(added.map((event) => event.split(' ')[0])).toEqual(['product.updated']);
    expect(await send(tenant, 'GET', `/products/${product.id}`)).toEqual(stored);
    // Again: nothing left to change anywhere.
    const again = await newEvents(tenant, () =>
      send(tenant, 'PATCH', '/products/bulk-update', { addTags: ['linen'], addMetadata: { a: '1' } }),
    );
    expect(again).toEqual([]);
  });

  it('orders and customers: a bulk update that changes nothing writes nothing', async () => {
    const tenant = await t.tenant();
    const { order, customer } = await store(tenant);
    for (const [resource, record, tag] of [
      ['orders', order, 'gift'],
      ['customers', customer, 'vip'],
    ] as const) {
      const events = await newEvents(tenant, () =>
        send(tenant, 'PATCH', `/${resource}/bulk-update`, {
          addTags: [tag],
          addMetadata: { b: '2' },
          removeMetadataKeys: ['c'],
        }),
      );
      expect(events, resource).toEqual([]);
      expect(await send(tenant, 'GET', `/${resource}/${record.id}`)).toEqual(record);
      // Removing a tag the record has is a change.
      expect(
        await newEvents(tenant, () => send(tenant, 'PATCH', `/${resource}/bulk-update`, { removeTags: [tag] })),
      ).toHaveLength(1);
    }
  });
});

describe('imports', () => {
  it('count a row that changes nothing as unchanged: no write, no event, no provenance, updatedAt kept', async () => {
    const tenant = await t.tenant();
    const { rows, product, customer, order } = await store(tenant);
    const variants = (await send(tenant, 'GET', `/products/${product.id}?include=variants`)).variants;
    const provenance = () =>
      db()
        .selectFrom('import_job_records')
        .select(['record_id', 'action'])
        .where('organization_id', '=', tenant.organization.id)
        .execute();
    const recorded = await provenance();
    const events = await eventLines(tenant);

    // The same rows again, metadata keys and tags in another order.
    const products = await send(tenant, 'POST', '/products/import', {
      data: [{ ...rows.product, metadata: { b: '2', a: '1' }, tags: ['summer', 'linen'] }],
    });
    expect(products).toEqual({ data: [product], skipped: [], created: 0, updated: 0, unchanged: 1 });
    const customers = await send(tenant, 'POST', '/customers/import', {
      data: [{ ...rows.customer, tags: ['vip', 'vip'] }],
    });
    expect(customers).toEqual({ data: [customer], skipped: [], created: 0, updated: 0, unchanged: 1 });
    const orders = await send(tenant, 'POST', '/orders/import', { data: [rows.order], earnLoyalty: false });
    expect(orders).toEqual({ data: [order], skipped: [], created: 0, updated: 0, unchanged: 1 });

    expect(await eventLines(tenant)).toEqual(events);
    expect(await provenance()).toEqual(recorded);
    expect((await send(tenant, 'GET', `/products/${product.id}?include=variants`)).variants).toEqual(variants);

    // The email matches case-insensitively but is stored as sent: another spelling is a change.
    const respelled = await send(tenant, 'POST', '/customers/import', {
      data: [{ ...rows.customer, email: 'ANN@example.com' }],
    });
    expect(respelled).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
  });

  it('count created, updated and unchanged rows of one request, and announce only the first two', async () => {
    const tenant = await t.tenant();
    const { rows } = await store(tenant);
    const answer = await send(tenant, 'POST', '/products/import', {
      data: [rows.product, { slug: 'new', title: 'New' }, { slug: 'shirt-2', title: 'Shirt 2' }],
    });
    expect(answer).toMatchObject({ created: 2, updated: 0, unchanged: 1 });
    const events = await newEvents(tenant, async () => {
      const again = await send(tenant, 'POST', '/products/import', {
        data: [
          // A variant's price alone changes the product: its updatedAt moves, product.updated goes out.
          { ...rows.product, variants: [{ ...rows.product.variants[0], priceCents: 90 }, rows.product.variants[1]] },
          { slug: 'new', title: 'New' },
          { slug: 'shirt-2', title: 'Shirt two' },
        ],
      });
      expect(again).toMatchObject({ created: 0, updated: 2, unchanged: 1 });
    });
    expect(events).toEqual(['product.updated', 'product.updated']);
  });

  it('reviews: an unchanged row counts as unchanged', async () => {
    const tenant = await t.tenant();
    const { product, customer } = await store(tenant);
    const row = { product: product.id, customer: customer.id, rating: 5, title: 'Nice', metadata: { a: '1' } };
    expect(await send(tenant, 'POST', '/reviews/import', { data: [row] })).toMatchObject({
      created: 1,
      updated: 0,
      unchanged: 0,
    });
    const events = await newEvents(tenant, async () =>
      expect(await send(tenant, 'POST', '/reviews/import', { data: [row] })).toMatchObject({
        created: 0,
        updated: 0,
        unchanged: 1,
      }),
    );
    expect(events).toEqual([]);
  });
});

describe('configuration records', () => {
  it('sites and tags: the same values write nothing', async () => {
    const tenant = await t.tenant();
    const { site } = await store(tenant);
    await expectNoOp(tenant, site, () =>
      send(tenant, 'PATCH', `/sites/${site.id}`, { data: { name: site.name, domain: site.domain } }),
    );
    const { data: tags } = await send(tenant, 'GET', '/product-tags');
    const linen = tags.find((tag: { name: string }) => tag.name === 'linen');
    await expectNoOp(tenant, linen, () => send(tenant, 'PATCH', `/product-tags/${linen.id}`, { name: ' linen ' }));
    expect(
      await newEvents(tenant, () => send(tenant, 'PATCH', `/sites/${site.id}`, { data: { name: 'Other' } })),
    ).toEqual(['site.updated']);
  });

  it('loyalty programs, tiers, rules and memberships: the same values write nothing', async () => {
    const tenant = await t.tenant();
    const { customer } = await store(tenant);
    const { data: programs } = await send(tenant, 'GET', '/loyalty-programs');
    const program = programs[0];
    await expectNoOp(tenant, program, () =>
      send(tenant, 'PATCH', `/loyalty-programs/${program.id}`, {
        data: { name: program.name, pointsExpiry: program.pointsExpiry, tierWindow: program.tierWindow, metadata: {} },
      }),
    );
    const tier = await send(tenant, 'POST', '/loyalty-tiers', { data: { name: 'Gold', thresholdPoints: 100 } }, 201);
    await expectNoOp(tenant, tier, () =>
      send(tenant, 'PATCH', `/loyalty-tiers/${tier.id}`, { data: { name: 'Gold', thresholdPoints: 100 } }),
    );
    const rule = await send(
      tenant,
      'POST',
      '/loyalty-rules',
      { data: { section: 'rules', name: 'Spend', config: { type: 'orderSpend', pointsPerUnit: 1 } } },
      201,
    );
    // The config with its defaults written out is the stored one.
    await expectNoOp(tenant, rule, () =>
      send(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, { data: { config: rule.config, isActive: true } }),
    );
    const member = await send(tenant, 'POST', '/loyalty-memberships', { data: { customerId: customer.id } }, 201);
    const pinned = await send(tenant, 'PATCH', `/loyalty-memberships/${member.id}`, {
      data: { loyaltyTierId: tier.id },
    });
    await expectNoOp(tenant, pinned, () =>
      send(tenant, 'PATCH', `/loyalty-memberships/${member.id}`, { data: { loyaltyTierId: tier.id } }),
    );
    await expectNoOp(tenant, pinned, () =>
      send(tenant, 'PATCH', `/loyalty-memberships/${member.id}`, { data: { tierAssignedManually: true } }),
    );
    expect(
      await newEvents(tenant, () => send(tenant, 'PATCH', `/loyalty-tiers/${tier.id}`, { data: { name: 'Gilt' } })),
    ).toEqual(['loyaltyTier.updated']);
  });

  it('webhooks: a PUT of the stored values, the same secret included, writes nothing unless a rotation overlaps', async () => {
    const tenant = await t.tenant();
    const secret = 'plain-secret-0123456789abcdef';
    const endpoint = await send(
      tenant,
      'POST',
      '/webhooks',
      { data: { url: `${PUBLIC}/hook`, events: ['site.created', 'site.updated'], hmacSecret: secret } },
      201,
    );
    const put = (data: unknown) => send(tenant, 'PUT', `/webhooks/${endpoint.id}`, { data });
    await expectNoOp(tenant, endpoint, () =>
      put({ url: endpoint.url, events: ['site.created', 'site.updated'], isActive: true, hmacSecret: secret }),
    );
    await expectNoOp(tenant, endpoint, () => put({ generateSecret: false, isActive: true }));
    // Another secret, or the same one while a rotation's previous secret still signs, is a change.
    expect(await newEvents(tenant, () => put({ hmacSecret: `${secret}x` }))).toEqual(['webhook.updated']);
    await send(tenant, 'POST', `/webhooks/${endpoint.id}/rotate-secret`);
    const rotated = await send(tenant, 'GET', `/webhooks/${endpoint.id}`);
    const current = (await db()
      .selectFrom('webhook_endpoints')
      .select('previous_secret_ciphertext')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow())!;
    expect(current.previous_secret_ciphertext).not.toBeNull();
    expect(await newEvents(tenant, () => put({ url: rotated.url }))).toEqual([]);
  });
});
