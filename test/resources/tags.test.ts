import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TagKind } from '../../src/db/schema.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const orgOf = (tenant: Tenant) => tenant.organization.id;

const KINDS = [
  { kind: 'product', path: '/v1/product-tags', permission: 'products', event: 'productTag' },
  { kind: 'order', path: '/v1/order-tags', permission: 'orders', event: 'orderTag' },
  { kind: 'customer', path: '/v1/customer-tags', permission: 'customers', event: 'customerTag' },
] as const satisfies readonly { kind: TagKind; path: string; permission: string; event: string }[];

const LINK = {
  product: ['product_tags', 'product_id'],
  order: ['order_tags', 'order_id'],
  customer: ['customer_tags', 'customer_id'],
} as const;

/** Creates `count` records of the kind directly in the database (orders need a site and a customer). */
async function createRecords(kind: TagKind, organizationId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = uuidv7();
    const suffix = `${index}-${id.slice(-8)}`;
    if (kind === 'product') {
      await db()
        .insertInto('products')
        .values({ organization_id: organizationId, id, slug: `p-${suffix}`, title: `Product ${suffix}` })
        .execute();
    } else if (kind === 'customer') {
      await db()
        .insertInto('customers')
        .values({ organization_id: organizationId, id, email: `c-${suffix}@example.com` })
        .execute();
    } else {
      const siteId = uuidv7();
      const customerId = uuidv7();
      await db()
        .insertInto('sites')
        .values({
          organization_id: organizationId,
          id: siteId,
          name: 'Shop',
          domain: `shop-${suffix}.example`,
          platform: 'shopify',
          currency_code: 'USD',
        })
        .execute();
      await db()
        .insertInto('customers')
        .values({ organization_id: organizationId, id: customerId, email: `o-${suffix}@example.com` })
        .execute();
      await db()
        .insertInto('orders')
        .values({
          organization_id: organizationId,
          id,
          site_id: siteId,
          customer_id: customerId,
          remote_id: `r-${suffix}`,
          number: `#${suffix}`,
          currency_code: 'USD',
        })
        .execute();
    }
    ids.push(id);
  }
  return ids;
}

/** Inserts a tag record directly (a chosen createdAt keeps the order deterministic). */
async function insertTag(kind: TagKind, organizationId: string, name: string, createdAt: string): Promise<string> {
  const id = uuidv7();
  await db()
    .insertInto('tags')
    .values({ organization_id: organizationId, id, kind, name, created_at: createdAt, updated_at: createdAt })
    .execute();
  return id;
}

async function link(kind: TagKind, organizationId: string, recordId: string, tagId: string): Promise<void> {
  const [table, column] = LINK[kind];
  await sql`insert into ${sql.table(table)} (organization_id, ${sql.ref(column)}, tag_id) values (${organizationId}::uuid, ${recordId}::uuid, ${tagId}::uuid)`.execute(
    db(),
  );
}

async function linkedTagNames(kind: TagKind, organizationId: string, recordId: string): Promise<string[]> {
  const [table, column] = LINK[kind];
  const { rows } = await sql<{ name: string }>`
    select t.name from ${sql.table(table)} l join tags t on t.organization_id = l.organization_id and t.id = l.tag_id
    where l.organization_id = ${organizationId}::uuid and l.${sql.ref(column)} = ${recordId}::uuid order by t.name`.execute(
    db(),
  );
  return rows.map((row) => row.name);
}

const iso = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

/** Tags a..e of one kind (created a minute apart), with records carrying some of them. */
async function seedKind(kind: TagKind, tenant: Tenant) {
  const organizationId = orgOf(tenant);
  const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
  const tags: Record<string, string> = {};
  for (const [index, name] of names.entries()) tags[name] = await insertTag(kind, organizationId, name, iso(index));
  const records = await createRecords(kind, organizationId, 3);
  // alpha on 3 records, bravo on 2, charlie on 1, delta and echo on none.
  for (const record of records) await link(kind, organizationId, record, tags.alpha!);
  await link(kind, organizationId, records[0]!, tags.bravo!);
  await link(kind, organizationId, records[1]!, tags.bravo!);
  await link(kind, organizationId, records[2]!, tags.charlie!);
  return { tags, records, names };
}

async function walk(tenant: Tenant, url: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const response = await t.request({
      url: `${url}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`,
      key: tenant.key,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    rows.push(...body.data);
    cursor = body.nextCursor;
  } while (cursor);
  return rows;
}

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

describe.each(KINDS)('$path', ({ kind, path, permission, event }) => {
  let tenant: Tenant;
  let other: Tenant;
  let seeded: Awaited<ReturnType<typeof seedKind>>;
  let otherTag: string;

  beforeAll(async () => {
    tenant = await t.tenant();
    other = await t.tenant();
    seeded = await seedKind(kind, tenant);
    // The other organization has a tag of the same name, and this one has a same-named tag of another kind.
    otherTag = await insertTag(kind, orgOf(other), 'alpha', iso(30));
    await insertTag(kind === 'product' ? 'order' : 'product', orgOf(tenant), 'zulu-other-kind', iso(40));
  });

  it('lists the tags of this kind and organization only, newest first by default', async () => {
    const response = await t.request({ url: path, key: tenant.key });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.nextCursor).toBeNull();
    expect(body.data.map((tag: any) => tag.name)).toEqual(['bravo', 'charlie', 'echo', 'alpha', 'delta']);
    expect(body.data[0]).toEqual({ id: seeded.tags.bravo, name: 'bravo', createdAt: iso(4), updatedAt: iso(4) });
    expect(Object.keys(body.data[0]).sort()).toEqual(['createdAt', 'id', 'name', 'updatedAt']);
  });

  it.each([
    ['name', ['alpha', 'bravo', 'charlie', 'delta', 'echo']],
    ['-name', ['echo', 'delta', 'charlie', 'bravo', 'alpha']],
    ['createdAt', ['delta', 'alpha', 'echo', 'charlie', 'bravo']],
    ['-createdAt', ['bravo', 'charlie', 'echo', 'alpha', 'delta']],
  ])('sorts by %s, paging one tag at a time', async (sort, expected) => {
    const rows = await walk(tenant, `${path}?sort=${sort}&limit=1`);
    expect(rows.map((tag) => tag.name)).toEqual(expected);
  });

  it('refuses unknown sorts, includes and query parameters', async () => {
    for (const query of ['sort=count', 'include=records', 'include=count,tags', 'kind=order', 'limit=0', 'limit=251']) {
      const response = await t.request({ url: `${path}?${query}`, key: tenant.key });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('counts the records carrying each tag with include=count', async () => {
    const rows = await walk(tenant, `${path}?sort=name&include=count&limit=2`);
    expect(rows.map((tag) => [tag.name, tag.count])).toEqual([
      ['alpha', 3],
      ['bravo', 2],
      ['charlie', 1],
      ['delta', 0],
      ['echo', 0],
    ]);
    const one = await t.request({ url: `${path}/${seeded.tags.bravo}?include=count`, key: tenant.key });
    expect(one.json()).toEqual({
      id: seeded.tags.bravo,
      name: 'bravo',
      createdAt: iso(4),
      updatedAt: iso(4),
      count: 2,
    });
  });

  it('filters by id, name and createdAt and searches by name', async () => {
    const cases: [unknown, string[]][] = [
      [{ id: seeded.tags.echo }, ['echo']],
      [{ id: { $in: [seeded.tags.alpha, seeded.tags.delta, otherTag] } }, ['alpha', 'delta']],
      [{ name: 'charlie' }, ['charlie']],
      [{ name: { $startsWith: 'ECH' } }, ['echo']],
      [{ name: { $contains: 'a' } }, ['alpha', 'bravo', 'charlie', 'delta']],
      [{ createdAt: { $gte: iso(2) } }, ['bravo', 'charlie', 'echo']],
      [{ $or: [{ name: 'alpha' }, { createdAt: { $lt: iso(1) } }] }, ['alpha', 'delta']],
    ];
    for (const [filter, expected] of cases) {
      const response = await t.request({ url: `${path}?sort=name&filter=${q(filter)}`, key: tenant.key });
      expect(response.statusCode, JSON.stringify(filter)).toBe(200);
      expect(
        response.json().data.map((tag: any) => tag.name),
        JSON.stringify(filter),
      ).toEqual(expected);
    }
    const search = await t.request({ url: `${path}?sort=name&search=HARL`, key: tenant.key });
    expect(search.json().data.map((tag: any) => tag.name)).toEqual(['charlie']);
    const both = await t.request({
      url: `${path}?sort=name&search=a&filter=${q({ createdAt: { $lte: iso(1) } })}`,
      key: tenant.key,
    });
    expect(both.json().data.map((tag: any) => tag.name)).toEqual(['alpha', 'delta']);
  });

  it('refuses filters on other fields or with wrong types, naming the path', async () => {
    for (const [filter, detailPath] of [
      [{ kind: 'order' }, 'query.filter.kind'],
      [{ count: 1 }, 'query.filter.count'],
      [{ id: 'nope' }, 'query.filter.id'],
      [{ createdAt: { $gt: '2026-01-01' } }, 'query.filter.createdAt.$gt'],
      [{ name: { $gt: 3 } }, 'query.filter.name.$gt'],
    ] as const) {
      const response = await t.request({ url: `${path}?filter=${q(filter)}`, key: tenant.key });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.details[0].path).toBe(detailPath);
    }
  });

  it("gets one tag; another organization's, another kind's or a missing id is 404", async () => {
    const response = await t.request({ url: `${path}/${seeded.tags.alpha}`, key: tenant.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: seeded.tags.alpha, name: 'alpha', createdAt: iso(1), updatedAt: iso(1) });
    const otherKind = KINDS.find((entry) => entry.kind !== kind)!;
    for (const [url, key] of [
      [`${path}/${otherTag}`, tenant.key],
      [`${path}/${seeded.tags.alpha}`, other.key],
      [`${otherKind.path}/${seeded.tags.alpha}`, tenant.key],
      [`${path}/${uuidv7()}`, tenant.key],
    ] as const) {
      const missing = await t.request({ url, key });
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json().error.code).toBe('NOT_FOUND');
    }
    expect((await t.request({ url: `${path}/not-a-uuid`, key: tenant.key })).statusCode).toBe(400);
    expect((await t.request({ url: `${path}/${seeded.tags.alpha}?include=nope`, key: tenant.key })).statusCode).toBe(
      400,
    );
  });

  it('needs the read permission to read and the write permission to change', async () => {
    const reader = { ...tenant, key: await t.key(orgOf(tenant), [`${permission}:read`]) };
    const stranger = {
      ...tenant,
      key: await t.key(orgOf(tenant), [permission === 'orders' ? 'products:read' : 'orders:read']),
    };
    expect((await t.request({ url: path, key: reader.key })).statusCode).toBe(200);
    expect((await t.request({ url: `${path}/${seeded.tags.alpha}`, key: reader.key })).statusCode).toBe(200);
    for (const [method, body] of [
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await t.request({ method, url: `${path}/${seeded.tags.delta}`, key: reader.key, body });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.message).toContain(`${permission}:write`);
    }
    const forbidden = await t.request({ url: path, key: stranger.key });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toContain(`${permission}:read`);
    expect((await t.request({ url: `${path}/${seeded.tags.delta}`, key: tenant.key })).json().name).toBe('delta');
  });

  it('costs one token per call', async () => {
    const first = await t.request({ url: path, key: tenant.key });
    const second = await t.request({ url: `${path}/${seeded.tags.alpha}`, key: tenant.key });
    const left = (response: typeof first) => Number(/r=(\d+)/.exec(String(response.headers['ratelimit']))![1]);
    expect(left(first) - left(second)).toBeGreaterThanOrEqual(0);
    expect(left(first) - left(second)).toBeLessThanOrEqual(1);
  });

  it('renames a tag on every record, trimming the name, with its event in the same change', async () => {
    const fresh = await t.tenant();
    const records = await createRecords(kind, orgOf(fresh), 2);
    const tagId = await insertTag(kind, orgOf(fresh), 'old', iso(0));
    for (const record of records) await link(kind, orgOf(fresh), record, tagId);
    const before = await eventsOf(t, orgOf(fresh));

    const response = await t.request({
      method: 'PATCH',
      url: `${path}/${tagId}`,
      key: fresh.key,
      body: { name: '  Brand New  ' },
    });
    expect(response.statusCode).toBe(200);
    const renamed = response.json();
    expect(renamed).toMatchObject({ id: tagId, name: 'Brand New', createdAt: iso(0) });
    expect(Object.keys(renamed).sort()).toEqual(['createdAt', 'id', 'name', 'updatedAt']);
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThan(Date.parse(iso(0)));
    for (const record of records) expect(await linkedTagNames(kind, orgOf(fresh), record)).toEqual(['Brand New']);

    const events = (await eventsOf(t, orgOf(fresh))).slice(before.length);
    expect(events.map((entry) => entry.name)).toEqual([`${event}.updated`]);
    expect(events[0]!.payload).toEqual(renamed);
    expect((await t.request({ url: `${path}/${tagId}`, key: fresh.key })).json()).toEqual(renamed);
  });

  it('refuses a name another tag of the same kind has (409) but allows it across kinds, organizations and case', async () => {
    const fresh = await t.tenant();
    const a = await insertTag(kind, orgOf(fresh), 'Sale', iso(0));
    const b = await insertTag(kind, orgOf(fresh), 'Clearance', iso(1));
    const otherKind = KINDS.find((entry) => entry.kind !== kind)!;
    await insertTag(otherKind.kind, orgOf(fresh), 'Winter', iso(2));
    await insertTag(kind, orgOf(other), 'Summer', iso(2));
    const before = await eventsOf(t, orgOf(fresh));

    const clash = await t.request({ method: 'PATCH', url: `${path}/${b}`, key: fresh.key, body: { name: ' Sale ' } });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toMatchObject({ code: 'CONFLICT' });
    expect(clash.json().error.message).toContain('"Sale"');
    expect((await t.request({ url: `${path}/${b}`, key: fresh.key })).json().name).toBe('Clearance');
    expect(await eventsOf(t, orgOf(fresh))).toHaveLength(before.length);

    for (const name of ['Winter', 'Summer', 'sale']) {
      const response = await t.request({ method: 'PATCH', url: `${path}/${b}`, key: fresh.key, body: { name } });
      expect(response.statusCode, name).toBe(200);
      expect(response.json().name).toBe(name);
    }
    // Renaming a tag to its own name is not a clash.
    const same = await t.request({ method: 'PATCH', url: `${path}/${a}`, key: fresh.key, body: { name: 'Sale' } });
    expect(same.statusCode).toBe(200);
    expect(same.json().name).toBe('Sale');
  });

  it('validates the rename body and changes nothing on bad input', async () => {
    const fresh = await t.tenant();
    const tagId = await insertTag(kind, orgOf(fresh), 'keep', iso(0));
    for (const [body, detail] of [
      [{ name: '   ' }, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ name: 7 }, 'body.name'],
      [{ name: null }, 'body.name'],
      [{}, 'body.name'],
      [{ name: 'ok', kind: 'order' }, 'body.kind'],
    ] as const) {
      const response = await t.request({ method: 'PATCH', url: `${path}/${tagId}`, key: fresh.key, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect(response.json().error.details.map((entry: any) => entry.path)).toContain(detail);
    }
    const malformed = await t.request({
      method: 'PATCH',
      url: `${path}/${tagId}`,
      key: fresh.key,
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    const longest = await t.request({
      method: 'PATCH',
      url: `${path}/${tagId}`,
      key: fresh.key,
      body: { name: 'y'.repeat(100) },
    });
    expect(longest.statusCode).toBe(200);
    expect(await eventsOf(t, orgOf(fresh))).toHaveLength(1);
  });

  it("answers 404 to renaming or deleting another organization's tag and leaves it alone", async () => {
    for (const [method, body] of [
      ['PATCH', { name: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await t.request({ method, url: `${path}/${otherTag}`, key: tenant.key, body });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('NOT_FOUND');
    }
    expect((await t.request({ url: `${path}/${otherTag}`, key: other.key })).json().name).toBe('alpha');
  });

  it('deletes a tag from every record that carried it, with its event, and returns it', async () => {
    const fresh = await t.tenant();
    const records = await createRecords(kind, orgOf(fresh), 2);
    const gone = await insertTag(kind, orgOf(fresh), 'gone', iso(0));
    const kept = await insertTag(kind, orgOf(fresh), 'kept', iso(1));
    for (const record of records) {
      await link(kind, orgOf(fresh), record, gone);
      await link(kind, orgOf(fresh), record, kept);
    }
    // The same name in another organization is not touched.
    const otherRecords = await createRecords(kind, orgOf(other), 1);
    const otherGone = await insertTag(kind, orgOf(other), 'gone', iso(0));
    await link(kind, orgOf(other), otherRecords[0]!, otherGone);

    const response = await t.request({ method: 'DELETE', url: `${path}/${gone}`, key: fresh.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: gone, name: 'gone', createdAt: iso(0), updatedAt: iso(0) });
    for (const record of records) expect(await linkedTagNames(kind, orgOf(fresh), record)).toEqual(['kept']);
    expect(await linkedTagNames(kind, orgOf(other), otherRecords[0]!)).toEqual(['gone']);
    const events = await eventsOf(t, orgOf(fresh));
    expect(events.map((entry) => entry.name)).toEqual([`${event}.deleted`]);
    expect(events[0]!.payload).toEqual(response.json());

    expect((await t.request({ url: `${path}/${gone}`, key: fresh.key })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `${path}/${gone}`, key: fresh.key })).statusCode).toBe(404);
    const list = await t.request({ url: `${path}?include=count`, key: fresh.key });
    expect(list.json().data.map((tag: any) => [tag.name, tag.count])).toEqual([['kept', 2]]);
  });
});

describe('product tags through the product endpoints', () => {
  it('creates tag records implicitly (productTag.created) and shows renames and deletions on products', async () => {
    const tenant = await t.tenant();
    const imported = await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: tenant.key,
      body: {
        data: [
          { slug: 'shirt', title: 'Shirt', tags: ['summer', 'cotton'] },
          { slug: 'hat', title: 'Hat', tags: ['summer'] },
        ],
      },
    });
    expect(imported.statusCode).toBe(200);
    const [shirt, hat] = imported.json().data;
    const created = (await eventsOf(t, orgOf(tenant))).filter((entry) => entry.name === 'productTag.created');
    expect(created.map((entry) => (entry.payload as any).name).sort()).toEqual(['cotton', 'summer']);

    const list = await t.request({ url: '/v1/product-tags?sort=name&include=count', key: tenant.key });
    const tags = list.json().data;
    expect(tags.map((tag: any) => [tag.name, tag.count])).toEqual([
      ['cotton', 1],
      ['summer', 2],
    ]);
    // The created events carry exactly the tag records the list shows.
    for (const entry of created) {
      const tag = tags.find((candidate: any) => candidate.id === (entry.payload as any).id);
      const { count: _count, ...record } = tag;
      expect(entry.payload).toEqual(record);
    }
    const summer = tags.find((tag: any) => tag.name === 'summer');

    const renamed = await t.request({
      method: 'PATCH',
      url: `/v1/product-tags/${summer.id}`,
      key: tenant.key,
      body: { name: 'Summer 2026' },
    });
    expect(renamed.statusCode).toBe(200);
    const shirtAfter = (await t.request({ url: `/v1/products/${shirt.id}?include=tags`, key: tenant.key })).json();
    expect(shirtAfter.tags).toEqual(['Summer 2026', 'cotton']);
    // A tag change is the tag's event only: the product's own record is unchanged.
    expect(shirtAfter.updatedAt).toBe(shirt.updatedAt);
    const byTag = await t.request({ url: `/v1/products?filter=${q({ 'tags.name': 'Summer 2026' })}`, key: tenant.key });
    expect(
      byTag
        .json()
        .data.map((product: any) => product.slug)
        .sort(),
    ).toEqual(['hat', 'shirt']);

    // Tagging with the old name again creates a new tag record.
    const retag = await t.request({
      method: 'PATCH',
      url: `/v1/products/${hat.id}`,
      key: tenant.key,
      body: { tags: ['summer', 'Summer 2026'] },
    });
    expect(retag.statusCode).toBe(200);
    const names = (await t.request({ url: '/v1/product-tags?sort=name', key: tenant.key }))
      .json()
      .data.map((tag: any) => tag.name);
    expect(names).toEqual(['Summer 2026', 'cotton', 'summer']);

    const deleted = await t.request({ method: 'DELETE', url: `/v1/product-tags/${summer.id}`, key: tenant.key });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().name).toBe('Summer 2026');
    expect((await t.request({ url: `/v1/products/${shirt.id}?include=tags`, key: tenant.key })).json().tags).toEqual([
      'cotton',
    ]);
    expect((await t.request({ url: `/v1/products/${hat.id}?include=tags`, key: tenant.key })).json().tags).toEqual([
      'summer',
    ]);
    const events = (await eventsOf(t, orgOf(tenant)))
      .map((entry) => entry.name)
      .filter((name) => name.startsWith('productTag.'));
    expect(events).toEqual([
      'productTag.created',
      'productTag.created',
      'productTag.updated',
      'productTag.created',
      'productTag.deleted',
    ]);
  });

  it('bulk addTags creates unknown tags that then appear in the tag list', async () => {
    const tenant = await t.tenant();
    await t.request({
      method: 'POST',
      url: '/v1/products/import',
      key: tenant.key,
      body: { data: [{ slug: 'a' }, { slug: 'b' }] },
    });
    const bulk = await t.request({
      method: 'PATCH',
      url: '/v1/products/bulk-update',
      key: tenant.key,
      body: { addTags: ['new-one'] },
    });
    expect(bulk.json()).toEqual({ count: 2 });
    const list = (await t.request({ url: '/v1/product-tags?include=count', key: tenant.key })).json().data;
    expect(list.map((tag: any) => [tag.name, tag.count])).toEqual([['new-one', 2]]);
  });
});
