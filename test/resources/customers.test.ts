import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionCatalog } from '../../src/compose.js';
import { customerList } from '../../src/resources/customers/list.js';
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

interface CustomerRecord {
  id: string;
  email: string;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  country: string | null;
  birthday: string | null;
  metadata: Record<string, string>;
  notes: string | null;
  emailOptOut: boolean;
  emailOptOutAt: string | null;
  emailOptOutSource: string | null;
  createdAt: string;
  updatedAt: string;
  tags?: string[];
}

/** A customer record with every field at its empty value, overridden by what a test expects. */
const customer = (overrides: Partial<CustomerRecord> & { email: string }) => ({
  id: expect.stringMatching(UUID),
  phone: null,
  firstName: null,
  lastName: null,
  country: null,
  birthday: null,
  metadata: {},
  notes: null,
  emailOptOut: false,
  emailOptOutAt: null,
  emailOptOutSource: null,
  createdAt: expect.stringMatching(ISO),
  updatedAt: expect.stringMatching(ISO),
  ...overrides,
});

async function importCustomers(
  tenant: Tenant,
  rows: unknown[],
  options: Record<string, unknown> = {},
): Promise<CustomerRecord[]> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/customers/import',
    key: tenant.key,
    body: { data: rows, ...options },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().skipped).toEqual([]);
  return response.json().data;
}

const getCustomer = async (tenant: Tenant, id: string, query = '') => {
  const response = await t.request({ url: `/v1/customers/${id}${query}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as CustomerRecord;
};

const list = async (tenant: Tenant, query: string) => {
  const response = await t.request({ url: `/v1/customers?${query}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: CustomerRecord[]; nextCursor: string | null };
};
const filterQuery = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;
const idsOf = (body: { data: CustomerRecord[] }) => body.data.map((record) => record.id);

async function allPages(tenant: Tenant, query: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body = await list(tenant, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    ids.push(...idsOf(body));
    cursor = body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(50);
  } while (cursor);
  return { ids, pages };
}

async function insertOrder(organizationId: string, customerId: string): Promise<void> {
  const siteId = uuidv7();
  await db()
    .insertInto('sites')
    .values({
      organization_id: organizationId,
      id: siteId,
      name: 'Shop',
      domain: `${siteId}.example.com`,
      platform: 'custom',
      currency_code: 'USD',
    })
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

const tagLinks = (organizationId: string, customerId: string) =>
  db()
    .selectFrom('customer_tags')
    .select('tag_id')
    .where('organization_id', '=', organizationId)
    .where('customer_id', '=', customerId)
    .execute();

describe('POST /v1/customers/import', () => {
  it('creates customers with every field, records provenance, customer.updated and customerTag.created events', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const before = Date.now();
    const response = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: {
        data: [
          {
            email: 'Ann@Example.com',
            phone: '+4915112345678',
            firstName: 'Ann',
            lastName: 'Zimmer',
            country: 'DE',
            birthday: '02-29',
            metadata: { tier: 'gold' },
            notes: 'Prefers phone calls',
            emailOptOut: true,
            emailOptOutSource: 'customer',
            tags: [' vip ', 'vip', 'newsletter'],
            createdAt: '2025-03-01T12:00:00+02:00',
          },
          { email: 'bob@example.com', emailOptOut: true },
          { email: 'cat@example.com', phone: null, lastName: null, emailOptOut: false },
        ],
      },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      data: [
        customer({
          email: 'Ann@Example.com',
          phone: '+4915112345678',
          firstName: 'Ann',
          lastName: 'Zimmer',
          country: 'DE',
          birthday: '02-29',
          metadata: { tier: 'gold' },
          notes: 'Prefers phone calls',
          emailOptOut: true,
          emailOptOutAt: expect.stringMatching(ISO),
          emailOptOutSource: 'customer',
          createdAt: '2025-03-01T10:00:00.000Z',
          updatedAt: '2025-03-01T10:00:00.000Z',
        }),
        customer({
          email: 'bob@example.com',
          emailOptOut: true,
          emailOptOutAt: expect.stringMatching(ISO),
          emailOptOutSource: 'import',
        }),
        customer({ email: 'cat@example.com' }),
      ],
      skipped: [],
      created: 3,
      updated: 0,
      unchanged: 0,
    });
    const [ann, bob, cat] = body.data as CustomerRecord[];
    expect(Date.parse(bob!.emailOptOutAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(cat!.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(cat!.updatedAt).toBe(cat!.createdAt);
    expect(new Set([ann!.id, bob!.id, cat!.id]).size).toBe(3);

    expect(await getCustomer(tenant, ann!.id, '?include=tags')).toEqual({ ...ann, tags: ['newsletter', 'vip'] });
    expect(await getCustomer(tenant, bob!.id, '?include=tags')).toEqual({ ...bob, tags: [] });

    const updated = await eventsOf(t, organizationId, 'customer.updated');
    expect(updated.map((event) => event.payload)).toEqual(body.data);
    const tagEvents = await eventsOf(t, organizationId, 'customerTag.created');
    expect(tagEvents.map((event) => (event.payload as { name: string }).name).sort()).toEqual(['newsletter', 'vip']);
    expect(
      (await eventsOf(t, organizationId)).map((event) => event.name).filter((name) => !name.startsWith('customer')),
    ).toEqual([]);

    const provenance = await db()
      .selectFrom('import_job_records')
      .select(['record_id', 'type', 'action', 'row', 'import_job_id'])
      .where('organization_id', '=', organizationId)
      .orderBy('row')
      .execute();
    expect(provenance.map(({ import_job_id: _job, ...rest }) => rest)).toEqual([
      { record_id: ann!.id, type: 'customers', action: 'created', row: 0 },
      { record_id: bob!.id, type: 'customers', action: 'created', row: 1 },
      { record_id: cat!.id, type: 'customers', action: 'created', row: 2 },
    ]);
    expect(new Set(provenance.map((row) => row.import_job_id)).size).toBe(1);
  });

  it('updates by email case-insensitively: omitted fields are kept, a present null clears, tags are replaced only when sent', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const [mia] = await importCustomers(tenant, [
      {
        email: 'Mia@Example.com',
        firstName: 'Mia',
        lastName: 'Lee',
        phone: '+12025550100',
        country: 'US',
        birthday: '03-15',
        metadata: { a: '1', b: '2' },
        notes: 'n',
        tags: ['x'],
        createdAt: '2025-01-01T00:00:00Z',
      },
    ]);
    const [second, created] = await importCustomers(tenant, [
      { email: 'mia@example.COM', lastName: null, country: 'CA', metadata: { b: '3', c: '4' }, notes: null },
      { email: 'new@example.com', firstName: 'New' },
    ]);
    expect(second).toEqual({
      ...mia,
      email: 'mia@example.COM',
      lastName: null,
      country: 'CA',
      metadata: { b: '3', c: '4' },
      notes: null,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(second!.updatedAt)).toBeGreaterThan(Date.parse(mia!.updatedAt));
    expect(created).toEqual(customer({ email: 'new@example.com', firstName: 'New' }));
    expect((await getCustomer(tenant, mia!.id, '?include=tags')).tags).toEqual(['x']);

    const [third] = await importCustomers(
      tenant,
      [
        {
          email: 'MIA@example.com',
          metadata: { a: '9', b: '5' },
          tags: [' y ', 'y', 'z'],
          birthday: null,
          createdAt: '2024-06-01T00:00:00.000Z',
        },
      ],
      { mergeMetadata: true },
    );
    expect(third).toEqual({
      ...second,
      email: 'MIA@example.com',
      birthday: null,
      metadata: { a: '9', b: '5', c: '4' },
      createdAt: '2024-06-01T00:00:00.000Z',
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await getCustomer(tenant, mia!.id, '?include=tags')).toEqual({ ...third, tags: ['y', 'z'] });
    const [cleared] = await importCustomers(tenant, [{ email: 'mia@example.com', tags: [] }], { mergeMetadata: true });
    expect(cleared!.metadata).toEqual({ a: '9', b: '5', c: '4' });
    expect((await getCustomer(tenant, mia!.id, '?include=tags')).tags).toEqual([]);

    const provenance = await db()
      .selectFrom('import_job_records')
      .select(['action', 'row'])
      .where('organization_id', '=', organizationId)
      .where('record_id', '=', mia!.id)
      .orderBy('created_at')
      .orderBy('import_job_id')
      .execute();
    expect(provenance).toEqual([
      { action: 'created', row: 0 },
      { action: 'updated', row: 0 },
      { action: 'updated', row: 0 },
      { action: 'updated', row: 0 },
    ]);
    const events = await eventsOf(t, organizationId, 'customer.updated');
    expect(events.map((event) => event.payload)).toEqual([mia, second, created, third, cleared]);
  });

  it('opts out with source import by default, keeps an earlier opt-out, and clears it on emailOptOut false', async () => {
    const tenant = await t.tenant();
    const [original] = await importCustomers(tenant, [
      { email: 'opt@example.com', emailOptOut: true, emailOptOutSource: 'customer' },
    ]);
    expect(original).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'customer',
      emailOptOutAt: expect.stringMatching(ISO),
    });

    const [again] = await importCustomers(tenant, [{ email: 'opt@example.com', emailOptOut: true }]);
    expect(again).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'customer',
      emailOptOutAt: original!.emailOptOutAt,
    });
    const [resourced] = await importCustomers(tenant, [
      { email: 'opt@example.com', emailOptOut: true, emailOptOutSource: 'platform' },
    ]);
    expect(resourced).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'platform',
      emailOptOutAt: original!.emailOptOutAt,
    });
    const [untouched] = await importCustomers(tenant, [{ email: 'opt@example.com', firstName: 'Opt' }]);
    expect(untouched).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'platform',
      emailOptOutAt: original!.emailOptOutAt,
    });
    const [subscribed] = await importCustomers(tenant, [{ email: 'opt@example.com', emailOptOut: false }]);
    expect(subscribed).toMatchObject({
      emailOptOut: false,
      emailOptOutSource: null,
      emailOptOutAt: null,
      firstName: 'Opt',
    });
    const [reOptedOut] = await importCustomers(tenant, [
      { email: 'opt@example.com', emailOptOut: true, emailOptOutSource: null },
    ]);
    expect(reOptedOut).toMatchObject({ emailOptOut: true, emailOptOutSource: 'import' });
    expect(Date.parse(reOptedOut!.emailOptOutAt!)).toBeGreaterThan(Date.parse(original!.emailOptOutAt!));

    const mismatch = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: {
        data: [
          { email: 'x@example.com' },
          { email: 'opt@example.com', emailOptOut: false, emailOptOutSource: 'merchant' },
        ],
      },
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().error.details).toEqual([
      { path: 'body.data[1].emailOptOutSource', message: 'applies only with emailOptOut true' },
    ]);
    expect((await list(tenant, '')).data).toHaveLength(1);
  });

  it('refuses the same email twice in one request (case-insensitively), naming both rows, and writes nothing', async () => {
    const tenant = await t.tenant();
    const response = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: { data: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'A@EXAMPLE.com' }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.message).toContain('body.data[2].email');
    expect(response.json().error.message).toContain('body.data[0].email');
    expect(response.json().error.details).toEqual([
      { path: 'body.data[2].email', message: 'repeats body.data[0].email (emails match case-insensitively)' },
    ]);
    expect((await list(tenant, '')).data).toEqual([]);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });

  it('takes only assigned ISO 3166-1 alpha-2 country codes: "XX" is 400 naming the row, and nothing changes', async () => {
    const tenant = await t.tenant();
    const [stored] = await importCustomers(tenant, [{ email: 'country@example.com', country: 'DE' }]);
    const eventsBefore = await eventsOf(t, tenant.organization.id);
    for (const country of ['XX', 'de', 'XK', 'DEU', 1]) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/customers/import',
        key: tenant.key,
        body: { data: [{ email: 'new@example.com' }, { email: 'country@example.com', country }] },
      });
      expect(response.statusCode, String(country)).toBe(400);
      expect(response.json(), String(country)).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message:
            typeof country === 'string'
              ? 'Invalid request: body.data[1].country must be an assigned ISO 3166-1 alpha-2 country code, such as "US" or "DE".'
              : 'Invalid request: body.data[1].country must be a string or null.',
          details: [
            {
              path: 'body.data[1].country',
              message:
                typeof country === 'string'
                  ? 'must be an assigned ISO 3166-1 alpha-2 country code, such as "US" or "DE"'
                  : 'must be a string or null',
            },
          ],
        },
      });
    }
    expect(await getCustomer(tenant, stored!.id)).toEqual(stored);
    expect((await list(tenant, '')).data).toHaveLength(1);
    expect(await eventsOf(t, tenant.organization.id)).toEqual(eventsBefore);
    // Every assigned code is taken, and null clears the country.
    const [us] = await importCustomers(tenant, [{ email: 'country@example.com', country: 'US' }]);
    expect(us!.country).toBe('US');
    const [cleared] = await importCustomers(tenant, [{ email: 'country@example.com', country: null }]);
    expect(cleared!.country).toBeNull();
  });

  it('answers 413 above 1,000 rows and writes nothing; 1,000 rows create and then update in one request each', async () => {
    const tenant = await t.tenant();
    const rows = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        email: `bulk${index}@example.com`,
        metadata: { n: String(index) },
        tags: ['bulk'],
      }));
    const tooMany = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: { data: rows(1001) },
    });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooMany.json().error.message).toContain('1000');
    expect((await list(tenant, '')).data).toEqual([]);

    const created = await importCustomers(tenant, rows(1000));
    expect(created).toHaveLength(1000);
    expect(created.map((record) => record.email)).toEqual(rows(1000).map((row) => row.email));
    const updated = await importCustomers(
      tenant,
      rows(1000).map((row) => ({ ...row, email: row.email.toUpperCase(), firstName: 'B' })),
    );
    expect(updated.map((record) => record.id)).toEqual(created.map((record) => record.id));
    expect(updated.every((record, index) => record.firstName === 'B' && record.metadata.n === String(index))).toBe(
      true,
    );
    const counts = await db()
      .selectFrom('import_job_records')
      .select(['action', (eb) => eb.fn.countAll<string>().as('n')])
      .where('organization_id', '=', tenant.organization.id)
      .groupBy('action')
      .orderBy('action')
      .execute();
    expect(counts.map((row) => [row.action, Number(row.n)])).toEqual([
      ['created', 1000],
      ['updated', 1000],
    ]);
    expect((await eventsOf(t, tenant.organization.id, 'customer.updated')).length).toBe(2000);
    expect((await list(tenant, `${filterQuery({ 'tags.name': 'bulk' })}&limit=250`)).data).toHaveLength(250);
  });

  it('accepts strict (customer rows reference nothing, so nothing is skipped)', async () => {
    const tenant = await t.tenant();
    const response = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: { data: [{ email: 's@example.com' }], strict: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [customer({ email: 's@example.com' })],
      skipped: [],
      created: 1,
      updated: 0,
      unchanged: 0,
    });
    const empty = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: tenant.key,
      body: { data: [], strict: false },
    });
    expect(empty.json()).toEqual({ data: [], skipped: [], created: 0, updated: 0, unchanged: 0 });
  });

  it("never matches another organization's customer", async () => {
    const owner = await t.tenant();
    const other = await t.tenant();
    const [mine] = await importCustomers(owner, [{ email: 'shared@example.com', firstName: 'Mine' }]);
    const [theirs] = await importCustomers(other, [{ email: 'SHARED@example.com', firstName: 'Theirs' }]);
    expect(theirs!.id).not.toBe(mine!.id);
    expect(await getCustomer(owner, mine!.id)).toEqual(mine);
    expect((await eventsOf(t, owner.organization.id, 'customer.updated')).length).toBe(1);
    const provenance = await db()
      .selectFrom('import_job_records')
      .select('action')
      .where('organization_id', '=', other.organization.id)
      .execute();
    expect(provenance).toEqual([{ action: 'created' }]);
  });

  it.each([
    [{ data: [{ email: 'not-an-email' }] }, 'body.data[0].email'],
    [{ data: [{ email: `${'a'.repeat(310)}@example.com` }] }, 'body.data[0].email'],
    [{ data: [{}] }, 'body.data[0].email'],
    [{ data: [{ email: 'a@example.com', phone: '0049151123' }] }, 'body.data[0].phone'],
    [{ data: [{ email: 'a@example.com', phone: '+0123' }] }, 'body.data[0].phone'],
    [{ data: [{ email: 'a@example.com', country: 'de' }] }, 'body.data[0].country'],
    [{ data: [{ email: 'a@example.com', country: 'DEU' }] }, 'body.data[0].country'],
    [{ data: [{ email: 'a@example.com', birthday: '02-30' }] }, 'body.data[0].birthday'],
    [{ data: [{ email: 'a@example.com', birthday: '04-31' }] }, 'body.data[0].birthday'],
    [{ data: [{ email: 'a@example.com', birthday: '13-01' }] }, 'body.data[0].birthday'],
    [{ data: [{ email: 'a@example.com', birthday: '1990-02-01' }] }, 'body.data[0].birthday'],
    [{ data: [{ email: 'a@example.com', lastName: 'x'.repeat(256) }] }, 'body.data[0].lastName'],
    [{ data: [{ email: 'a@example.com', firstName: 7 }] }, 'body.data[0].firstName'],
    [{ data: [{ email: 'a@example.com', notes: 'x'.repeat(10_001) }] }, 'body.data[0].notes'],
    [{ data: [{ email: 'a@example.com', metadata: { k: 1 } }] }, 'body.data[0].metadata.k'],
    [
      {
        data: [
          {
            email: 'a@example.com',
            metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
          },
        ],
      },
      'body.data[0].metadata',
    ],
    [{ data: [{ email: 'a@example.com', emailOptOut: 'yes' }] }, 'body.data[0].emailOptOut'],
    [
      { data: [{ email: 'a@example.com', emailOptOut: true, emailOptOutSource: 'email' }] },
      'body.data[0].emailOptOutSource',
    ],
    [{ data: [{ email: 'a@example.com', tags: ['   '] }] }, 'body.data[0].tags[0]'],
    [{ data: [{ email: 'a@example.com', tags: ['x'.repeat(101)] }] }, 'body.data[0].tags[0]'],
    [{ data: [{ email: 'a@example.com', createdAt: '2025-01-01T00:00:00' }] }, 'body.data[0].createdAt'],
    [{ data: [{ email: 'a@example.com', emailOptOutAt: '2025-01-01T00:00:00Z' }] }, 'body.data[0].emailOptOutAt'],
    [{ data: [{ email: 'a@example.com', id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }] }, 'body.data[0].id'],
    [{ data: [{ email: 'a@example.com' }], merge: true }, 'body.merge'],
    [{ data: { email: 'a@example.com' } }, 'body.data'],
    [{ rows: [] }, 'body.data'],
    [{ data: [{ email: 'a@example.com' }], strict: 'yes' }, 'body.strict'],
  ])('refuses %j at %s and writes nothing', async (body, path) => {
    const tenant = await t.tenant();
    const response = await t.request({ method: 'POST', url: '/v1/customers/import', key: tenant.key, body });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });
});

describe('GET /v1/customers/{id}', () => {
  it("returns the customer, with tags only when included; another organization's id is 404", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const [record] = await importCustomers(owner, [{ email: 'g@example.com', tags: ['b', 'a'] }]);
    const plain = await getCustomer(owner, record!.id);
    expect(plain).toEqual(record);
    expect(plain).not.toHaveProperty('tags');
    expect(await getCustomer(owner, record!.id, '?include=tags')).toEqual({ ...record, tags: ['a', 'b'] });

    const foreign = await t.request({ url: `/v1/customers/${record!.id}`, key: stranger.key });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toEqual({ code: 'NOT_FOUND', message: 'The customer was not found.' });
    expect((await t.request({ url: `/v1/customers/${uuidv7()}`, key: owner.key })).statusCode).toBe(404);
    const malformed = await t.request({ url: '/v1/customers/123', key: owner.key });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details).toEqual([{ path: 'path.id', message: 'must be a UUID' }]);
    const include = await t.request({ url: `/v1/customers/${record!.id}?include=orders`, key: owner.key });
    expect(include.statusCode).toBe(400);
    expect(include.json().error.details).toEqual([{ path: 'query.include', message: '"orders" is not one of tags' }]);
    const unknown = await t.request({ url: `/v1/customers/${record!.id}?expand=tags`, key: owner.key });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([{ path: 'query.expand', message: 'is not a known field' }]);
  });
});

describe('PATCH /v1/customers/{id}', () => {
  it('replaces metadata and tags, sets notes, records customer.updated with the response and customerTag.created for new tags', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const [record] = await importCustomers(tenant, [
      {
        email: 'p@example.com',
        firstName: 'Pat',
        metadata: { old: '1' },
        tags: ['keep', 'drop'],
        createdAt: '2025-01-01T00:00:00Z',
      },
    ]);
    const tagEventsBefore = (await eventsOf(t, organizationId, 'customerTag.created')).length;
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/customers/${record!.id}`,
      key: tenant.key,
      body: { metadata: { fresh: 'yes' }, notes: 'Called on Monday', tags: ['keep', ' added ', 'added'] },
    });
    expect(response.statusCode).toBe(200);
    const updated = response.json();
    expect(updated).toEqual({
      ...record,
      metadata: { fresh: 'yes' },
      notes: 'Called on Monday',
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(record!.updatedAt));
    expect(await getCustomer(tenant, record!.id, '?include=tags')).toEqual({ ...updated, tags: ['added', 'keep'] });
    const events = await eventsOf(t, organizationId, 'customer.updated');
    expect(events[events.length - 1]!.payload).toEqual(updated);
    const tagEvents = await eventsOf(t, organizationId, 'customerTag.created');
    expect(tagEvents.slice(tagEventsBefore).map((event) => (event.payload as { name: string }).name)).toEqual([
      'added',
    ]);

    const cleared = await t.request({
      method: 'PATCH',
      url: `/v1/customers/${record!.id}`,
      key: tenant.key,
      body: { notes: null },
    });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toEqual({ ...updated, notes: null, updatedAt: expect.stringMatching(ISO) });
    expect((await getCustomer(tenant, record!.id, '?include=tags')).tags).toEqual(['added', 'keep']);
  });

  it('opts out as the merchant, keeps an earlier opt-out, and subscribes again with false', async () => {
    const tenant = await t.tenant();
    const [fresh, imported] = await importCustomers(tenant, [
      { email: 'o1@example.com' },
      { email: 'o2@example.com', emailOptOut: true },
    ]);
    const patch = (id: string, body: unknown) =>
      t.request({ method: 'PATCH', url: `/v1/customers/${id}`, key: tenant.key, body });

    const before = Date.now();
    const optedOut = (await patch(fresh!.id, { emailOptOut: true })).json();
    expect(optedOut).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'merchant',
      emailOptOutAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(optedOut.emailOptOutAt)).toBeGreaterThanOrEqual(before - 1000);
    const again = (await patch(fresh!.id, { emailOptOut: true })).json();
    expect(again).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'merchant',
      emailOptOutAt: optedOut.emailOptOutAt,
    });

    const keptImport = (await patch(imported!.id, { emailOptOut: true })).json();
    expect(keptImport).toMatchObject({
      emailOptOut: true,
      emailOptOutSource: 'import',
      emailOptOutAt: imported!.emailOptOutAt,
    });
    const subscribed = (await patch(imported!.id, { emailOptOut: false })).json();
    expect(subscribed).toEqual({
      ...imported,
      emailOptOut: false,
      emailOptOutAt: null,
      emailOptOutSource: null,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await getCustomer(tenant, imported!.id)).toEqual(subscribed);
  });

  it.each([
    [{ email: 'changed@example.com' }, 'body.email'],
    [{ firstName: 'Changed' }, 'body.firstName'],
    [{ phone: '+12025550100' }, 'body.phone'],
    [{ birthday: '01-01' }, 'body.birthday'],
    [{ emailOptOutSource: 'merchant' }, 'body.emailOptOutSource'],
    [{ emailOptOut: 'true' }, 'body.emailOptOut'],
    [{ notes: 'x'.repeat(10_001) }, 'body.notes'],
    [{ metadata: null }, 'body.metadata'],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'body.metadata'],
    [{ metadata: { k: 'v'.repeat(501) } }, 'body.metadata.k'],
    [{ tags: ['ok', ' '] }, 'body.tags[1]'],
    [{ tags: Array.from({ length: 251 }, (_, i) => `t${i}`) }, 'body.tags'],
    [{ tags: 'vip' }, 'body.tags'],
  ])('refuses %j at %s and changes nothing', async (body, path) => {
    const tenant = await t.tenant();
    const [record] = await importCustomers(tenant, [{ email: 'r@example.com', firstName: 'R', notes: 'n' }]);
    const response = await t.request({ method: 'PATCH', url: `/v1/customers/${record!.id}`, key: tenant.key, body });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await getCustomer(tenant, record!.id)).toEqual(record);
    expect((await eventsOf(t, tenant.organization.id, 'customer.updated')).length).toBe(1);
  });

  it('refuses a missing body; an empty one changes nothing, updatedAt included', async () => {
    const tenant = await t.tenant();
    const [record] = await importCustomers(tenant, [{ email: 'body@example.com', notes: 'n' }]);
    const missing = await t.request({ method: 'PATCH', url: `/v1/customers/${record!.id}`, key: tenant.key });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([{ path: 'body', message: 'must be an object' }]);
    const empty = await t.request({ method: 'PATCH', url: `/v1/customers/${record!.id}`, key: tenant.key, body: {} });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual(record);
  });

  it("answers 404 for another organization's customer and an unknown id, changing nothing", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const [record] = await importCustomers(owner, [{ email: 'mine@example.com' }]);
    const foreign = await t.request({
      method: 'PATCH',
      url: `/v1/customers/${record!.id}`,
      key: stranger.key,
      body: { notes: 'hijack', tags: ['x'] },
    });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PATCH', url: `/v1/customers/${uuidv7()}`, key: owner.key, body: { notes: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect(await getCustomer(owner, record!.id, '?include=tags')).toEqual({ ...record, tags: [] });
    expect(await eventsOf(t, stranger.organization.id)).toEqual([]);
  });
});

describe('DELETE /v1/customers/{id}', () => {
  it('returns the deleted customer, removes their tag links and records customer.deleted', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const [record, other] = await importCustomers(tenant, [
      { email: 'd@example.com', tags: ['vip'] },
      { email: 'e@example.com', tags: ['vip'] },
    ]);
    const response = await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: tenant.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(record);
    expect((await t.request({ url: `/v1/customers/${record!.id}`, key: tenant.key })).statusCode).toBe(404);
    expect(await tagLinks(organizationId, record!.id)).toEqual([]);
    expect(await tagLinks(organizationId, other!.id)).toHaveLength(1);
    expect((await eventsOf(t, organizationId, 'customer.deleted')).map((event) => event.payload)).toEqual([record]);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: tenant.key })).statusCode,
    ).toBe(404);
    // The email is free again.
    const [recreated] = await importCustomers(tenant, [{ email: 'D@example.com' }]);
    expect(recreated!.id).not.toBe(record!.id);
  });

  it('records loyaltyMembership.deleted for each membership the deletion removes', async () => {
    const tenant = await t.tenant();
    const organizationId = tenant.organization.id;
    const [customer, other] = await importCustomers(tenant, [{ email: 'm@example.com' }, { email: 'n@example.com' }]);
    const join = async (customerId: string) => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/loyalty-memberships',
        key: tenant.key,
        body: { data: { customerId } },
      });
      expect(response.statusCode).toBe(201);
      return response.json();
    };
    const membership = await join(customer!.id);
    await join(other!.id);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/customers/${customer!.id}`, key: tenant.key })).statusCode,
    ).toBe(200);
    expect((await eventsOf(t, organizationId, 'loyaltyMembership.deleted')).map((event) => event.payload)).toEqual([
      membership,
    ]);
    expect((await t.request({ url: `/v1/loyalty-memberships/${membership.id}`, key: tenant.key })).statusCode).toBe(
      404,
    );
  });

  it('answers 409 while orders reference the customer, and keeps them', async () => {
    const tenant = await t.tenant();
    const [record] = await importCustomers(tenant, [{ email: 'buyer@example.com', tags: ['vip'] }]);
    await insertOrder(tenant.organization.id, record!.id);
    const response = await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: tenant.key });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('CONFLICT');
    expect(response.json().error.message).toMatch(/has 1 order; delete it first/);
    expect(await getCustomer(tenant, record!.id, '?include=tags')).toEqual({ ...record, tags: ['vip'] });
    expect(await eventsOf(t, tenant.organization.id, 'customer.deleted')).toEqual([]);
    await insertOrder(tenant.organization.id, record!.id);
    const two = await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: tenant.key });
    expect(two.json().error.message).toMatch(/has 2 orders; delete them first/);
  });

  it("answers 404 for another organization's customer and leaves it", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const [record] = await importCustomers(owner, [{ email: 'keep@example.com' }]);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: stranger.key })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'DELETE', url: '/v1/customers/nope', key: stranger.key })).statusCode).toBe(400);
    expect(await getCustomer(owner, record!.id)).toEqual(record);
    expect(await eventsOf(t, stranger.organization.id)).toEqual([]);
  });
});

describe('GET /v1/customers', () => {
  let tenant: Tenant;
  let stranger: Tenant;
  let beforeImport: string;
  const records: Record<string, CustomerRecord> = {};
  const rows = [
    {
      email: 'ann@example.com',
      firstName: 'Ann',
      lastName: 'Zimmer',
      phone: '+4915112345678',
      country: 'DE',
      birthday: '02-29',
      metadata: { tier: 'gold', channel: 'pos' },
      tags: ['vip'],
      createdAt: '2026-01-01T00:00:00Z',
    },
    {
      email: 'bob@example.com',
      firstName: 'Bob',
      country: 'US',
      metadata: { tier: 'silver' },
      emailOptOut: true,
      emailOptOutSource: 'customer',
      tags: ['vip', 'wholesale'],
      createdAt: '2026-01-02T00:00:00Z',
    },
    {
      email: 'cat@shop.io',
      firstName: 'Cat',
      lastName: 'Adams',
      phone: '+14155550123',
      country: 'US',
      birthday: '12-31',
      emailOptOut: true,
      tags: [],
      createdAt: '2026-01-03T00:00:00Z',
    },
    {
      email: 'dan@example.com',
      lastName: 'Miller',
      birthday: '07-04',
      metadata: { channel: 'web' },
      notes: 'Hidden note',
      createdAt: '2026-01-04T00:00:00Z',
    },
    {
      email: 'eve@example.org',
      firstName: 'Eve',
      phone: '+447700900123',
      country: 'GB',
      metadata: { tier: 'gold' },
      tags: ['new'],
      createdAt: '2026-01-05T00:00:00Z',
    },
    {
      email: 'fay@example.com',
      firstName: 'Fay',
      lastName: 'Baker',
      country: 'FR',
      birthday: '01-15',
      emailOptOut: true,
      emailOptOutSource: 'platform',
      createdAt: '2026-01-06T00:00:00Z',
    },
  ];
  const key = (email: string) => email.slice(0, 3);

  beforeAll(async () => {
    tenant = await t.tenant();
    stranger = await t.tenant();
    beforeImport = new Date(Date.now() - 1000).toISOString();
    for (const record of await importCustomers(tenant, rows)) records[key(record.email)] = record;
    await importCustomers(
      stranger,
      rows.map((row) => ({ ...row, email: `x${row.email}` })),
    );
  });

  const ids = (...names: string[]) => names.map((name) => records[name]!.id);

  it('lists newest first by default with exact records; tags only with include=tags', async () => {
    expect(await list(tenant, '')).toEqual({
      data: ['fay', 'eve', 'dan', 'cat', 'bob', 'ann'].map((name) => records[name]),
      nextCursor: null,
    });
    expect(records.dan).toEqual(
      customer({
        email: 'dan@example.com',
        lastName: 'Miller',
        birthday: '07-04',
        metadata: { channel: 'web' },
        notes: 'Hidden note',
        createdAt: '2026-01-04T00:00:00.000Z',
        updatedAt: '2026-01-04T00:00:00.000Z',
      }),
    );
    const withTags = await list(tenant, 'include=tags&limit=3');
    expect(withTags.data).toEqual([
      { ...records.fay, tags: [] },
      { ...records.eve, tags: ['new'] },
      { ...records.dan, tags: [] },
    ]);
    const next = await list(tenant, `include=tags&limit=3&cursor=${withTags.nextCursor}`);
    expect(next.data.map((record) => record.tags)).toEqual([[], ['vip', 'wholesale'], ['vip']]);
    expect(next.nextCursor).toBeNull();
  });

  it.each([
    ['createdAt', ['ann', 'bob', 'cat', 'dan', 'eve', 'fay']],
    ['-createdAt', ['fay', 'eve', 'dan', 'cat', 'bob', 'ann']],
    ['email', ['ann', 'bob', 'cat', 'dan', 'eve', 'fay']],
    ['-email', ['fay', 'eve', 'dan', 'cat', 'bob', 'ann']],
    ['lastName', ['cat', 'fay', 'dan', 'ann', 'bob', 'eve']],
    ['-lastName', ['ann', 'dan', 'fay', 'cat', 'eve', 'bob']],
  ])('sorts by %s and pages through every record exactly once (nulls last)', async (sort, names) => {
    for (const limit of [1, 2, 4]) {
      const paged = await allPages(tenant, `sort=${sort}&limit=${limit}`);
      expect(paged.ids).toEqual(ids(...names));
      expect(paged.pages).toBe(Math.ceil(6 / limit));
    }
  });

  const filters: [string, unknown, string[]][] = [
    ['email', { email: 'dan@example.com' }, ['dan']],
    ['email $contains (case-insensitive)', { email: { $contains: 'EXAMPLE.COM' } }, ['fay', 'dan', 'bob', 'ann']],
    ['firstName $startsWith', { firstName: { $startsWith: 'e' } }, ['eve']],
    ['firstName null', { firstName: null }, ['dan']],
    ['lastName $exists false', { lastName: { $exists: false } }, ['eve', 'bob']],
    ['lastName $in', { lastName: { $in: ['Adams', 'Baker'] } }, ['fay', 'cat']],
    ['lastName $gte', { lastName: { $gte: 'M' } }, ['dan', 'ann']],
    ['phone $exists true', { phone: { $exists: true } }, ['eve', 'cat', 'ann']],
    ['phone $startsWith', { phone: { $startsWith: '+44' } }, ['eve']],
    ['country $in', { country: { $in: ['US'] } }, ['cat', 'bob']],
    ['country $nin (a missing value is "not in")', { country: { $nin: ['US', 'GB'] } }, ['fay', 'dan', 'ann']],
    ['birthday', { birthday: '02-29' }, ['ann']],
    ['birthday $gte', { birthday: { $gte: '07-01' } }, ['dan', 'cat']],
    ['metadata.<key>', { 'metadata.tier': 'gold' }, ['eve', 'ann']],
    ['metadata.<key> $in', { 'metadata.channel': { $in: ['pos', 'web'] } }, ['dan', 'ann']],
    ['metadata.<key> $exists false', { 'metadata.tier': { $exists: false } }, ['fay', 'dan', 'cat']],
    ['emailOptOut true', { emailOptOut: true }, ['fay', 'cat', 'bob']],
    ['emailOptOut $ne true', { emailOptOut: { $ne: true } }, ['eve', 'dan', 'ann']],
    ['emailOptOutSource', { emailOptOutSource: 'import' }, ['cat']],
    ['emailOptOutSource $in', { emailOptOutSource: { $in: ['customer', 'platform'] } }, ['fay', 'bob']],
    ['emailOptOutSource null', { emailOptOutSource: null }, ['eve', 'dan', 'ann']],
    ['emailOptOutAt null', { emailOptOutAt: null }, ['eve', 'dan', 'ann']],
    [
      'createdAt $gte/$lt',
      { createdAt: { $gte: '2026-01-02T00:00:00Z', $lt: '2026-01-04T00:00:00Z' } },
      ['cat', 'bob'],
    ],
    ['createdAt with an offset', { createdAt: { $lte: '2026-01-02T01:00:00+01:00' } }, ['bob', 'ann']],
    ['updatedAt $gte', { updatedAt: { $gte: '2026-01-05T00:00:00Z' } }, ['fay', 'eve']],
    ['tags.name', { 'tags.name': 'vip' }, ['bob', 'ann']],
    ['tags.name $in', { 'tags.name': { $in: ['wholesale', 'new'] } }, ['eve', 'bob']],
    ['tags.name null (no tags)', { 'tags.name': null }, ['fay', 'dan', 'cat']],
    ['tags.name $nin', { 'tags.name': { $nin: ['vip'] } }, ['eve', 'bob']],
    ['$or', { $or: [{ country: 'GB' }, { 'tags.name': 'wholesale' }] }, ['eve', 'bob']],
    ['$not', { $not: { emailOptOut: true } }, ['eve', 'dan', 'ann']],
    ['$not over a missing value', { $not: { country: 'US' } }, ['fay', 'eve', 'dan', 'ann']],
    [
      '$and with siblings',
      { $and: [{ country: 'US' }, { emailOptOutSource: { $ne: 'customer' } }], emailOptOut: true },
      ['cat'],
    ],
  ];
  it.each(filters)('filters by %s', async (_label, filter, names) => {
    expect(idsOf(await list(tenant, filterQuery(filter)))).toEqual(ids(...names));
  });

  it('filters by id and by emailOptOutAt against the import time', async () => {
    expect(idsOf(await list(tenant, filterQuery({ id: { $in: [...ids('ann', 'eve'), uuidv7()] } })))).toEqual(
      ids('eve', 'ann'),
    );
    expect(idsOf(await list(tenant, filterQuery({ id: records.cat!.id })))).toEqual(ids('cat'));
    expect(idsOf(await list(tenant, filterQuery({ id: { $nin: ids('ann', 'bob', 'cat') } })))).toEqual(
      ids('fay', 'eve', 'dan'),
    );
    expect(idsOf(await list(tenant, filterQuery({ emailOptOutAt: { $gte: beforeImport } })))).toEqual(
      ids('fay', 'cat', 'bob'),
    );
    expect(idsOf(await list(tenant, filterQuery({ emailOptOutAt: { $lt: beforeImport } })))).toEqual([]);
    // Another organization's id matches nothing here.
    const theirs = (await list(stranger, 'limit=1')).data[0]!.id;
    expect(idsOf(await list(tenant, filterQuery({ id: theirs })))).toEqual([]);
  });

  it('searches email, first name, last name and phone case-insensitively, ANDed with the filter', async () => {
    expect(idsOf(await list(tenant, 'search=EXAMPLE.ORG'))).toEqual(ids('eve'));
    expect(idsOf(await list(tenant, 'search=zim'))).toEqual(ids('ann'));
    expect(idsOf(await list(tenant, 'search=cat'))).toEqual(ids('cat'));
    expect(idsOf(await list(tenant, 'search=bak'))).toEqual(ids('fay'));
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('+1415')}`))).toEqual(ids('cat'));
    expect(idsOf(await list(tenant, 'search=a'))).toEqual(ids('fay', 'eve', 'dan', 'cat', 'bob', 'ann'));
    expect(idsOf(await list(tenant, `search=example.com&${filterQuery({ emailOptOut: true })}`))).toEqual(
      ids('fay', 'bob'),
    );
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('%')}`))).toEqual([]);
    expect(idsOf(await list(tenant, 'search=Hidden'))).toEqual([]);
    const paged = await allPages(tenant, 'search=example&sort=email&limit=2');
    expect(paged.ids).toEqual(ids('ann', 'bob', 'dan', 'eve', 'fay'));
  });

  it('searches the fields as one text: a term may span first and last name; _ and \\ match themselves', async () => {
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('ann zim')}`))).toEqual(ids('ann'));
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('CAT ADAMS')}`))).toEqual(ids('cat'));
    expect(idsOf(await list(tenant, 'search=ZIMMER'))).toEqual(ids('ann'));
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('a_n')}`))).toEqual([]);
    expect(idsOf(await list(tenant, `search=${encodeURIComponent('\\')}`))).toEqual([]);
  });

  it('is served by the organization-scoped trigram index of migration 0006 (the same expression)', async () => {
    const plan = await db()
      .transaction()
      .execute(async (trx) => {
        // A tiny table is cheaper to scan, and the organization alone matches every btree index: leave the search
        // condition alone and forbid the scan, so the plan shows whether the index expression is the list's.
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain select c.id from customers c
          where ${customerList.search!(sql`${'%zimmer%'}`)}`.execute(trx);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    expect(plan).toMatch(/Bitmap Index Scan on customers_search_trgm\s+\(.*\)\s+Index Cond: \(.*~~ '%zimmer%'/);
    expect(plan).not.toMatch(/Filter:/);
  });

  it("never lists another organization's customers", async () => {
    const mine = new Set(Object.values(records).map((record) => record.id));
    const theirs = await allPages(stranger, 'limit=2');
    expect(theirs.ids).toHaveLength(6);
    expect(theirs.ids.some((id) => mine.has(id))).toBe(false);
    expect(idsOf(await list(tenant, 'search=xann'))).toEqual([]);
  });

  it.each([
    ['filter=%7B%22email%22', 'query.filter'],
    [filterQuery([]), 'query.filter'],
    [filterQuery({ notes: 'Hidden note' }), 'query.filter.notes'],
    [filterQuery({ metadata: 'x' }), 'query.filter.metadata'],
    [filterQuery({ emailOptOutSource: 'email' }), 'query.filter.emailOptOutSource'],
    [filterQuery({ emailOptOut: 'true' }), 'query.filter.emailOptOut'],
    [filterQuery({ emailOptOut: { $gt: false } }), 'query.filter.emailOptOut.$gt'],
    [filterQuery({ createdAt: { $gte: 'yesterday' } }), 'query.filter.createdAt.$gte'],
    [filterQuery({ $or: [{ country: 'US' }, { 'tags.id': 'x' }] }), 'query.filter.$or[1].tags.id'],
    [filterQuery({ email: { $in: 'a' } }), 'query.filter.email.$in'],
    [filterQuery({ a: { b: { c: { d: { e: { f: 1 } } } } } }), 'query.filter.a'],
    [
      `filter=${encodeURIComponent(JSON.stringify({ email: { $in: Array.from({ length: 1500 }, (_, i) => `e${i}@example.com`) } }))}`,
      'query.filter',
    ],
    ['sort=firstName', 'query.sort'],
    ['sort=-phone', 'query.sort'],
    ['include=orders', 'query.include'],
    ['limit=abc', 'query.limit'],
    ['limit=251', 'query.limit'],
    [`search=${'x'.repeat(201)}`, 'query.search'],
    ['search=', 'query.search'],
    ['offset=10', 'query.offset'],
    ['cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
  ])('refuses %s with a 400 naming %s', async (query, path) => {
    const response = await t.request({ url: `/v1/customers?${query}`, key: tenant.key });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('refuses a cursor reused with another sort, filter or search', async () => {
    const first = await list(tenant, 'sort=lastName&limit=2');
    for (const query of [
      'sort=-lastName',
      `sort=lastName&${filterQuery({ emailOptOut: true })}`,
      'sort=lastName&search=a',
    ]) {
      const response = await t.request({
        url: `/v1/customers?${query}&limit=2&cursor=${first.nextCursor}`,
        key: tenant.key,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.details).toEqual([
        { path: 'query.cursor', message: 'is not a valid cursor for this query' },
      ]);
    }
  });
});

describe('PATCH /v1/customers/bulk-update', () => {
  let tenant: Tenant;
  let neighbor: Tenant;
  const records: Record<string, CustomerRecord> = {};
  let neighborRecords: CustomerRecord[];

  beforeAll(async () => {
    tenant = await t.tenant();
    neighbor = await t.tenant();
    const created = await importCustomers(tenant, [
      { email: 'a1@example.com', metadata: { keep: '1', drop: 'x' }, tags: ['old'] },
      { email: 'a2@example.com', metadata: { drop: 'y' }, tags: ['old', 'vip'] },
      { email: 'a3@example.com', firstName: 'Zed', emailOptOut: true },
      { email: 'a4@shop.io', metadata: { drop: 'z' } },
    ]);
    for (const record of created) records[record.email.slice(0, 2)] = record;
    neighborRecords = await importCustomers(neighbor, [
      { email: 'a1@example.com', metadata: { drop: 'x' }, tags: ['old'] },
      { email: 'n2@shop.io', metadata: { drop: 'y' } },
    ]);
  });

  const bulk = (query: string, body: unknown, key = tenant.key) =>
    t.request({ method: 'PATCH', url: `/v1/customers/bulk-update${query}`, key, body });

  it('adds and removes tags and metadata on the filtered customers, creating tags with events', async () => {
    const organizationId = tenant.organization.id;
    const eventsBefore = (await eventsOf(t, organizationId)).length;
    const response = await bulk(`?${filterQuery({ 'tags.name': 'old' })}`, {
      addTags: ['fresh', ' second ', 'fresh'],
      removeTags: ['old'],
      addMetadata: { segment: 's1' },
      removeMetadataKeys: ['drop'],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ count: 2 });

    const a1 = await getCustomer(tenant, records.a1!.id, '?include=tags');
    const a2 = await getCustomer(tenant, records.a2!.id, '?include=tags');
    expect(a1).toEqual({
      ...records.a1,
      metadata: { keep: '1', segment: 's1' },
      tags: ['fresh', 'second'],
      updatedAt: expect.stringMatching(ISO),
    });
    expect(a2).toEqual({
      ...records.a2,
      metadata: { segment: 's1' },
      tags: ['fresh', 'second', 'vip'],
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await getCustomer(tenant, records.a3!.id)).toEqual(records.a3);
    expect(await getCustomer(tenant, records.a4!.id)).toEqual(records.a4);

    const events = (await eventsOf(t, organizationId)).slice(eventsBefore);
    const tagEvents = events.filter((event) => event.name === 'customerTag.created');
    expect(tagEvents.map((event) => event.payload)).toEqual(
      expect.arrayContaining([
        {
          id: expect.stringMatching(UUID),
          name: 'fresh',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
        {
          id: expect.stringMatching(UUID),
          name: 'second',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      ]),
    );
    expect(tagEvents).toHaveLength(2);
    const updates = events.filter((event) => event.name === 'customer.updated');
    const { tags: _a1Tags, ...a1Record } = a1;
    const { tags: _a2Tags, ...a2Record } = a2;
    expect(updates.map((event) => event.payload)).toEqual(expect.arrayContaining([a1Record, a2Record]));
    expect(updates).toHaveLength(2);
    expect(events).toHaveLength(4);

    const again = await bulk(`?${filterQuery({ 'tags.name': 'fresh' })}`, { addTags: ['fresh'] });
    expect(again.json()).toEqual({ count: 2 });
    expect(
      (await eventsOf(t, organizationId, 'customerTag.created')).filter(
        (event) => (event.payload as { name: string }).name === 'fresh',
      ),
    ).toHaveLength(1);
  });

  it('combines filter and search, and counts what they select', async () => {
    const response = await bulk(`?search=SHOP.IO&${filterQuery({ emailOptOut: false })}`, {
      addMetadata: { shop: 'io' },
    });
    expect(response.json()).toEqual({ count: 1 });
    expect((await getCustomer(tenant, records.a4!.id)).metadata).toEqual({ drop: 'z', shop: 'io' });
    const none = await bulk(`?search=zed&${filterQuery({ emailOptOut: false })}`, { addMetadata: { never: 'x' } });
    expect(none.json()).toEqual({ count: 0 });
    expect((await list(tenant, filterQuery({ 'metadata.never': { $exists: true } }))).data).toEqual([]);
  });

  it("updates every customer of the organization without a filter, and never another organization's", async () => {
    const neighborEvents = (await eventsOf(t, neighbor.organization.id)).length;
    const response = await bulk('', { addTags: ['everyone'], addMetadata: { all: 'yes' }, removeTags: ['old'] });
    expect(response.json()).toEqual({ count: 4 });
    const tagged = await list(tenant, `${filterQuery({ 'tags.name': 'everyone', 'metadata.all': 'yes' })}`);
    expect(tagged.data).toHaveLength(4);

    const byId = await bulk(`?${filterQuery({ id: { $in: neighborRecords.map((record) => record.id) } })}`, {
      addMetadata: { hijack: 'x' },
    });
    expect(byId.json()).toEqual({ count: 0 });
    for (const record of neighborRecords) {
      expect(await getCustomer(neighbor, record.id)).toEqual(record);
    }
    expect((await getCustomer(neighbor, neighborRecords[0]!.id, '?include=tags')).tags).toEqual(['old']);
    expect((await eventsOf(t, neighbor.organization.id)).length).toBe(neighborEvents);
    const neighborTags = await db()
      .selectFrom('tags')
      .select('name')
      .where('organization_id', '=', neighbor.organization.id)
      .execute();
    expect(neighborTags).toEqual([{ name: 'old' }]);
  });

  it.each([
    ['', {}, 'body'],
    ['', { addTags: 'vip' }, 'body.addTags'],
    ['', { addTags: [''] }, 'body.addTags[0]'],
    ['', { setTags: ['x'] }, 'body.setTags'],
    ['', { addMetadata: { k: 5 } }, 'body.addMetadata.k'],
    ['', { removeMetadataKeys: [''] }, 'body.removeMetadataKeys[0]'],
    ['?filter=%7B', { addTags: ['x'] }, 'query.filter'],
    [`?${filterQuery({ notes: 'x' })}`, { addTags: ['x'] }, 'query.filter.notes'],
    ['?limit=5', { addTags: ['x'] }, 'query.limit'],
    ['?sort=email', { addTags: ['x'] }, 'query.sort'],
  ])('refuses query %s with body %j at %s and changes nothing', async (query, body, path) => {
    const eventsBefore = (await eventsOf(t, tenant.organization.id)).length;
    const response = await bulk(query, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect((await eventsOf(t, tenant.organization.id)).length).toBe(eventsBefore);
  });
});

describe('permissions and costs', () => {
  it('declares customers:read and customers:write and enforces them', async () => {
    expect(permissionCatalog).toEqual(expect.arrayContaining(['customers:read', 'customers:write']));
    const tenant = await t.tenant();
    const [record] = await importCustomers(tenant, [{ email: 'perm@example.com' }]);
    const reader = await t.key(tenant.organization.id, ['customers:read']);
    const writer = await t.key(tenant.organization.id, ['customers:write']);
    const products = await t.key(tenant.organization.id, ['products:read', 'products:write']);
    expect((await t.request({ url: '/v1/customers', key: reader })).statusCode).toBe(200);
    expect((await t.request({ url: `/v1/customers/${record!.id}`, key: reader })).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/customers', key: writer })).statusCode).toBe(403);
    expect((await t.request({ url: '/v1/customers', key: products })).statusCode).toBe(403);
    const denied = await t.request({
      method: 'PATCH',
      url: `/v1/customers/${record!.id}`,
      key: reader,
      body: { notes: 'x' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toContain('customers:write');
    expect(
      (await t.request({ method: 'POST', url: '/v1/customers/import', key: reader, body: { data: [] } })).statusCode,
    ).toBe(403);
    expect(
      (await t.request({ method: 'PATCH', url: '/v1/customers/bulk-update', key: reader, body: { addTags: ['x'] } }))
        .statusCode,
    ).toBe(403);
    expect((await t.request({ method: 'DELETE', url: `/v1/customers/${record!.id}`, key: reader })).statusCode).toBe(
      403,
    );
    expect(
      (await t.request({ method: 'PATCH', url: `/v1/customers/${record!.id}`, key: writer, body: { notes: 'ok' } }))
        .statusCode,
    ).toBe(200);
  });

  it('documents each operation with its permission and cost (import 10, bulk update 5, others 1)', async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const operation = (path: string, method: string) => {
      const entry = document.paths[path][method];
      return [entry['x-permission'], entry['x-cost']];
    };
    expect([
      operation('/customers', 'get'),
      operation('/customers/bulk-update', 'patch'),
      operation('/customers/import', 'post'),
      operation('/customers/{id}', 'get'),
      operation('/customers/{id}', 'patch'),
      operation('/customers/{id}', 'delete'),
    ]).toEqual([
      ['customers:read', 1],
      ['customers:write', 5],
      ['customers:write', 10],
      ['customers:read', 1],
      ['customers:write', 1],
      ['customers:write', 1],
    ]);
  });
});
