import { gunzipSync, inflateRawSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import type { DB } from '../../src/db/schema.js';
import { retentionJob } from '../../src/jobs/retention/job.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { EXPORT_JOB_NAME } from '../../src/resources/export-jobs/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { hooked as hookedDatabase } from '../support/hooked-database.js';

/** Two records per page, so a handful of products spans several pages and chunks. */
const PAGE_ROWS = 2;

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp({ config: { exportPageRows: PAGE_ROWS, exportLinePageRows: PAGE_ROWS } });
  a = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  b = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  await importProducts(a, [
    {
      slug: 'shirt',
      title: 'Linen Shirt',
      metadata: { season: 'summer' },
      tags: ['linen', 'new'],
      variants: [
        { slug: 'shirt-m', title: 'M', priceCents: 3900, currencyCode: 'EUR', metadata: { size: 'm' } },
        { slug: 'shirt-l', title: 'L', priceCents: 4100, currencyCode: 'EUR' },
      ],
    },
    { slug: 'mug', title: 'Mug, "large"', metadata: { material: 'clay' }, variants: [variant('mug-one')] },
    { slug: 'hat', title: 'Sun Hat', tags: ['new'], variants: [variant('hat-one')] },
    { slug: 'poster', title: 'Poster\nwith a line break' },
    { slug: 'socks', title: 'Wool Socks', metadata: { season: 'winter' }, variants: [variant('socks-one')] },
  ]);
  await importProducts(b, [{ slug: 'other', title: 'Not A' }]);
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const silent = { info() {}, warn() {}, error() {} };
const variant = (slug: string) => ({ slug, title: slug, priceCents: 1000, currencyCode: 'USD' });

async function importProducts(tenant: Tenant, rows: unknown[]) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: tenant.key,
    body: { data: rows },
  });
  expect(response.statusCode, response.body).toBe(200);
}

interface ExportJobRecord {
  id: string;
  type: 'export';
  resource: string;
  format: 'csv' | 'jsonl';
  status: string;
  rowsTotal: number | null;
  rowsProcessed: number;
  error: string | null;
  downloadUrl: string | null;
  expiresAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const post = (tenant: Tenant, body: unknown) =>
  t.request({ method: 'POST', url: '/v1/export-jobs', key: tenant.key, body });

async function create(tenant: Tenant, body: Record<string, unknown>): Promise<ExportJobRecord> {
  const response = await post(tenant, body);
  expect(response.statusCode, response.body).toBe(202);
  return response.json();
}

async function get(tenant: Tenant, id: string): Promise<ExportJobRecord> {
  const response = await t.request({ url: `/v1/export-jobs/${id}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

const download = (tenant: Tenant, id: string, headers: Record<string, string> = {}) =>
  t.request({ url: `/v1/export-jobs/${id}/download`, key: tenant.key, headers });

/** The file as text, asked for without gzip (the server inflates it). */
async function fileOf(tenant: Tenant, id: string): Promise<string> {
  const response = await download(tenant, id, { 'accept-encoding': 'identity' });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

/** The export job only, so other jobs (retention at its hour) never run beside it. */
const exportJobs = () => scheduledJobs(t.config).filter((job) => job.name === EXPORT_JOB_NAME);

async function runQueued(database: Kysely<DB> = db()): Promise<void> {
  const runner = createJobRunner({ db: database, jobs: exportJobs(), logger: silent });
  while ((await runner.tick()) > 0);
}

const hooked = (before: (n: number) => Promise<void>) => hookedDatabase(db(), before);

/** As if the process running the job had died holding its lease: another runner may take it over. */
const diedHoldingTheLease = (tenant: Tenant, jobId: string) =>
  db()
    .updateTable('jobs')
    .set({ status: 'running', lease_expires_at: new Date(Date.now() - 1000), claimed_by: 'dead' })
    .where('organization_id', '=', tenant.organization.id)
    .where('run_key', '=', jobId)
    .execute();

const chunksOf = (jobId: string) =>
  db().selectFrom('bulk_job_chunks').select(['seq', 'rows']).where('job_id', '=', jobId).orderBy('seq').execute();

const listAll = async (tenant: Tenant, query: string) => {
  const records: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await t.request({
      url: `/v1/products?limit=250&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      key: tenant.key,
    });
    expect(response.statusCode, response.body).toBe(200);
    // Each record's JSON exactly as the list wrote it: split the envelope's array at the top level.
    const body = response.json() as { data: unknown[]; nextCursor: string | null };
    records.push(...splitRecords(response.body, body.data.length));
    cursor = body.nextCursor;
  } while (cursor);
  return records;
};

/** The raw JSON text of each record of a list envelope `{"data":[…],…}`, as the server serialized it. */
function splitRecords(envelope: string, count: number): string[] {
  const start = envelope.indexOf('[') + 1;
  const records: string[] = [];
  let depth = 0;
  let inString = false;
  let from = start;
  for (let i = start; i < envelope.length && records.length < count; i++) {
    const char = envelope[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) {
        records.push(envelope.slice(from, i + 1));
        from = i + 2;
      }
    }
  }
  return records;
}

const q = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

describe('POST /v1/export-jobs', () => {
  it('answers 202 with the queued job and queues its run in the same transaction', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    expect(job).toMatchObject({
      type: 'export',
      resource: 'products',
      format: 'jsonl',
      status: 'queued',
      rowsTotal: null,
      rowsProcessed: 0,
      error: null,
      downloadUrl: null,
      expiresAt: null,
      startedAt: null,
      finishedAt: null,
    });
    const queued = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', a.organization.id)
      .where('name', '=', EXPORT_JOB_NAME)
      .where('run_key', '=', job.id)
      .executeTakeFirst();
    expect(queued?.status).toBe('queued');
    await runQueued();
  });

  it('refuses bad input with the list engine’s own checks, and writes nothing', async () => {
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('bulk_jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const refusals: [unknown, number, string][] = [
      [{ resource: 'planets', format: 'csv' }, 400, 'body.resource'],
      [{ resource: 'products' }, 400, 'body.format'],
      [{ resource: 'products', format: 'xml' }, 400, 'body.format'],
      [{ resource: 'products', format: 'csv', filter: { totalCents: { $gt: 1 } } }, 400, 'body.filter.totalCents'],
      [{ resource: 'products', format: 'csv', filter: { createdAt: { $gte: 'yesterday' } } }, 400, 'body.filter'],
      [{ resource: 'products', format: 'csv', sort: 'price' }, 400, 'body.sort'],
      [{ resource: 'products', format: 'csv', include: 'variants,warehouse' }, 400, 'body.include'],
      [{ resource: 'product-questions', format: 'csv', search: '\u0000' }, 400, 'body.search'],
      [{ resource: 'products', format: 'csv', unknown: 1 }, 400, 'body'],
      [{ resource: 'products', format: 'csv', quickFilter: 'not-a-uuid' }, 400, 'body.quickFilter'],
    ];
    for (const [body, status, path] of refusals) {
      const response = await post(a, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect(response.body, JSON.stringify(body)).toContain(path);
    }
    // A quick filter of another resource is 400; one of another organization is 404, like a missing one.
    const ordersView = await t.request({
      method: 'POST',
      url: '/v1/quick-filters',
      key: a.key,
      body: { resource: 'orders', name: 'Big' },
    });
    const wrong = await post(a, { resource: 'products', format: 'csv', quickFilter: ordersView.json().id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('body.quickFilter');
    const theirs = await t.request({
      method: 'POST',
      url: '/v1/quick-filters',
      key: b.key,
      body: { resource: 'products', name: 'Theirs' },
    });
    const foreign = await post(a, { resource: 'products', format: 'csv', quickFilter: theirs.json().id });
    expect(foreign.statusCode).toBe(404);
    expect((await post(a, { resource: 'products', format: 'csv', quickFilter: uuidv7() })).statusCode).toBe(404);
    expect(await count()).toBe(before);
  });

  it("needs the read permission of the exported resource, not another's", async () => {
    const productsOnly = { ...a, key: await t.key(a.organization.id, ['products:read']) };
    expect((await post(productsOnly, { resource: 'orders', format: 'csv' })).statusCode).toBe(403);
    const job = await create(productsOnly, { resource: 'products', format: 'csv' });
    const ordersOnly = { ...a, key: await t.key(a.organization.id, ['orders:read']) };
    expect((await t.request({ url: `/v1/export-jobs/${job.id}`, key: ordersOnly.key })).statusCode).toBe(403);
    const listed = await t.request({ url: '/v1/export-jobs', key: ordersOnly.key });
    expect(listed.json().data.map((each: ExportJobRecord) => each.id)).not.toContain(job.id);
    await runQueued();
  });
});

describe('running an export job', () => {
  it('writes JSONL byte-identical to the list endpoint for the same filter, include and sort', async () => {
    const filter = { 'tags.name': 'new' };
    const job = await create(a, {
      resource: 'products',
      format: 'jsonl',
      filter,
      include: 'variants,tags',
      sort: 'title',
    });
    await runQueued();
    const done = await get(a, job.id);
    expect(done).toMatchObject({ status: 'succeeded', rowsTotal: 2, rowsProcessed: 2, error: null });
    expect(done.downloadUrl).toBe(`/v1/export-jobs/${job.id}/download`);
    expect(Date.parse(done.expiresAt!) - Date.parse(done.finishedAt!)).toBe(7 * 24 * 60 * 60 * 1000);
    const lines = (await fileOf(a, job.id)).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(await listAll(a, `filter=${q(filter)}&include=variants,tags&sort=title`));

    const everything = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued();
    const all = (await fileOf(a, everything.id)).trimEnd().split('\n');
    expect(all).toEqual(await listAll(a, ''));
    expect(all).toHaveLength(5);
  });

  it('writes CSV that parses back: a header, metadata and tag columns, one line per variant', async () => {
    const job = await create(a, { resource: 'products', format: 'csv', include: 'variants,tags', sort: 'title' });
    await runQueued();
    expect(await get(a, job.id)).toMatchObject({ status: 'succeeded', rowsProcessed: 5 });
    const text = await fileOf(a, job.id);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const header = Object.keys(rows[0]!);
    expect(header).toEqual(
      expect.arrayContaining([
        'id',
        'slug',
        'title',
        'metadata.material',
        'metadata.season',
        'tags',
        'variants.slug',
        'variants.priceCents',
        'variants.metadata.size',
      ]),
    );
    expect(header).not.toContain('reviewsCount');
    // By title: the shirt (two variants, two lines), mug, poster (no variant: one line), hat, socks.
    expect(rows.map((row) => [row.slug, row['variants.slug']])).toEqual([
      ['shirt', 'shirt-m'],
      ['shirt', 'shirt-l'],
      ['mug', 'mug-one'],
      ['poster', ''],
      ['hat', 'hat-one'],
      ['socks', 'socks-one'],
    ]);
    const shirt = rows.filter((row) => row.slug === 'shirt');
    expect(shirt.map((row) => row.tags)).toEqual(['linen|new', 'linen|new']);
    expect(shirt.map((row) => row['metadata.season'])).toEqual(['summer', 'summer']);
    expect(shirt.map((row) => row['variants.metadata.size'])).toEqual(['m', '']);
    expect(shirt[0]!['variants.priceCents']).toBe('3900');
    expect(rows.find((row) => row.slug === 'mug')!.title).toBe('Mug, "large"');
    expect(rows.find((row) => row.slug === 'poster')!.title).toBe('Poster\nwith a line break');
  });

  it('raises rowsProcessed page by page, one chunk per page', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    const seen: number[] = [];
    await runQueued(
      hooked(async (n) => {
        if (n > 1) seen.push((await get(a, job.id)).rowsProcessed);
      }),
    );
    expect(seen).toEqual([0, 2, 4]);
    expect((await chunksOf(job.id)).map((chunk) => chunk.rows)).toEqual([2, 2, 1]);
  });

  it('stops within one page when cancelled, keeping no file', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued(
      hooked(async (n) => {
        // While the second page is in flight.
        if (n === 3) {
          const cancelled = await t.request({ method: 'POST', url: `/v1/export-jobs/${job.id}/cancel`, key: a.key });
          expect(cancelled.statusCode, cancelled.body).toBe(200);
        }
      }),
    );
    const after = await get(a, job.id);
    expect(after).toMatchObject({ status: 'cancelled', rowsProcessed: 2, downloadUrl: null });
    expect(await chunksOf(job.id)).toEqual([]);
    expect((await download(a, job.id)).statusCode).toBe(409);
    // Cancelling a finished job answers it as it is and changes nothing: a succeeded file stays downloadable.
    const again = await t.request({ method: 'POST', url: `/v1/export-jobs/${job.id}/cancel`, key: a.key });
    expect(again.json()).toEqual(after);
    const succeeded = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued();
    const finished = await get(a, succeeded.id);
    const late = await t.request({ method: 'POST', url: `/v1/export-jobs/${succeeded.id}/cancel`, key: a.key });
    expect(late.statusCode).toBe(200);
    expect(late.json()).toEqual(finished);
    expect((await download(a, succeeded.id)).statusCode).toBe(200);
  });

  it('resumes after a crash from the committed position, writing no chunk twice', async () => {
    const job = await create(a, { resource: 'products', format: 'csv', include: 'variants' });
    // The process dies before committing its third page (transaction 1 claims the job, 2 collects the columns).
    await expect(
      runQueued(
        hooked(async (n) => {
          if (n === 5) throw new Error('simulated crash');
        }),
      ),
    ).resolves.toBeUndefined();
    expect((await chunksOf(job.id)).map((chunk) => chunk.seq)).toEqual([0, 1]);
    expect((await get(a, job.id)).status).toBe('running');
    await diedHoldingTheLease(a, job.id);
    await runQueued();
    expect(await get(a, job.id)).toMatchObject({ status: 'succeeded', rowsProcessed: 5 });
    expect((await chunksOf(job.id)).map((chunk) => chunk.seq)).toEqual([0, 1, 2]);
    const rows = parse(await fileOf(a, job.id), { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.slug).sort()).toEqual(['hat', 'mug', 'poster', 'shirt', 'shirt', 'socks']);
  });

  it('lets a runner whose lease lapsed mid-run write nothing more once another has taken the job over', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued(
      hooked(async (n) => {
        // The slow runner has committed its first page; its lease lapses and another runner finishes the job.
        if (n === 3) {
          await db()
            .updateTable('jobs')
            .set({ lease_expires_at: new Date(Date.now() - 1000) })
            .where('organization_id', '=', a.organization.id)
            .where('run_key', '=', job.id)
            .execute();
          await runQueued();
        }
      }),
    );
    expect(await get(a, job.id)).toMatchObject({ status: 'succeeded', rowsProcessed: 5 });
    expect((await chunksOf(job.id)).map((chunk) => [chunk.seq, chunk.rows])).toEqual([
      [0, 2],
      [1, 2],
      [2, 1],
    ]);
    expect((await fileOf(a, job.id)).trimEnd().split('\n')).toEqual(await listAll(a, ''));
  });

  it('reads EXPORT_MAX_ROWS from the environment, 100,000 by default; a bad value stops the start naming it', () => {
    expect(loadConfig({}).exportMaxRows).toBe(100_000);
    expect(loadConfig({ EXPORT_MAX_ROWS: '250000' }).exportMaxRows).toBe(250_000);
    for (const value of ['0', '-5', '1e6', 'many', '123456789'])
      expect(() => loadConfig({ EXPORT_MAX_ROWS: value })).toThrow(/^Invalid EXPORT_MAX_ROWS: expected a whole/);
  });

  it('fails a selection larger than EXPORT_MAX_ROWS with a clear error', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    const runner = createJobRunner({
      db: db(),
      jobs: scheduledJobs({ ...t.config, exportMaxRows: 3 }).filter((each) => each.name === EXPORT_JOB_NAME),
      logger: silent,
    });
    while ((await runner.tick()) > 0);
    const failed = await get(a, job.id);
    expect(failed).toMatchObject({ status: 'failed', rowsTotal: 5, rowsProcessed: 0, downloadUrl: null });
    expect(failed.error).toMatch(/5 records, more than the 3 one export may write \(EXPORT_MAX_ROWS\)/);
  });

  it('records exportJob.completed with the job as data, in the transaction that finishes it', async () => {
    const job = await create(a, { resource: 'customers', format: 'csv' });
    await runQueued();
    const done = await get(a, job.id);
    const events = await db()
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', a.organization.id)
      .where('name', '=', 'exportJob.completed')
      .execute();
    const event = events.find((each) => (each.payload as { id: string }).id === job.id);
    expect(event?.payload).toEqual(done);
    // No customers: the file is the header alone.
    expect(await fileOf(a, job.id)).toMatch(/^id,email,/);
  });
});

describe('CSV of orders', () => {
  /** A new organization with a site (shop.example) and one customer. */
  async function storeTenant(customer: Record<string, unknown>): Promise<Tenant> {
    const c = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    const site = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: c.key,
      body: { data: { name: 'Shop', domain: 'shop.example', platform: 'custom', currencyCode: 'EUR' } },
    });
    expect(site.statusCode, site.body).toBe(201);
    const customers = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: c.key,
      body: { data: [customer] },
    });
    expect(customers.statusCode, customers.body).toBe(200);
    return c;
  }

  it('writes one line per line item, the embedded product, variant and customer flattened', async () => {
    const c = await storeTenant({ email: 'ada@example.com', metadata: { tier: 'gold' }, tags: ['vip'] });
    await importProducts(c, [
      {
        slug: 'shirt',
        title: 'Shirt',
        metadata: { fabric: 'linen' },
        variants: [variant('shirt-m'), variant('shirt-l')],
      },
    ]);
    const orders = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: c.key,
      body: {
        data: [
          {
            site: 'shop.example',
            customer: 'ada@example.com',
            remoteId: 'R-1',
            number: '#1',
            totalCents: 8000,
            currencyCode: 'EUR',
            metadata: { channel: 'web' },
            items: [
              { product: 'shirt', variant: 'shirt-m', quantity: 2, unitPriceCents: 3000 },
              { product: 'shirt', variant: 'shirt-l', quantity: 1, unitPriceCents: 2000 },
            ],
          },
          { site: 'shop.example', customer: 'ada@example.com', remoteId: 'R-2', number: '#2', currencyCode: 'EUR' },
        ],
      },
    });
    expect(orders.statusCode, orders.body).toBe(200);
    const job = await create(c, { resource: 'orders', format: 'csv', include: 'items,customer', sort: 'number' });
    await runQueued();
    expect(await get(c, job.id)).toMatchObject({ status: 'succeeded', rowsTotal: 2, rowsProcessed: 2 });
    const rows = parse(await fileOf(c, job.id), { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.number, row['items.variant.slug'], row['items.quantity']])).toEqual([
      ['#1', 'shirt-m', '2'],
      ['#1', 'shirt-l', '1'],
      ['#2', '', ''],
    ]);
    expect(rows.map((row) => row['metadata.channel'])).toEqual(['web', 'web', '']);
    expect(rows[0]!['items.product.metadata.fabric']).toBe('linen');
    expect(rows.map((row) => row['customer.email'])).toEqual(Array(3).fill('ada@example.com'));
    expect(rows[0]!['customer.metadata.tier']).toBe('gold');
  });

  it('writes the lines of an export without extras in the database, byte for byte what the flattener writes', async () => {
    const c = await storeTenant({ email: 'ada@example.com' });
    const awkward = [
      { notes: 'plain', metadata: { channel: 'web', 'z key': 'a "quoted", value' } },
      { notes: 'say "hi", then\nleave\r\nagain', metadata: { 'a,b': 'x\ny' } },
      { notes: '', metadata: {} },
      { notes: null, metadata: { channel: 'Grüße ✓ 🎉' } },
      { notes: '  leading and trailing  ', metadata: { channel: '' } },
    ];
    const orders = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: c.key,
      body: {
        data: awkward.map((order, index) => ({
          site: 'shop.example',
          customer: 'ada@example.com',
          remoteId: `R,${index}`,
          number: `#${index} "x"`,
          totalCents: index * 1001,
          currencyCode: 'EUR',
          metadata: order.metadata,
          ...(index % 2 ? { shippedAt: '2025-03-01T10:00:00.120Z' } : {}),
          createdAt: `2025-0${index + 1}-02T03:04:05.006Z`,
        })),
      },
    });
    expect(orders.statusCode, orders.body).toBe(200);
    for (const [index, order] of awkward.entries()) {
      if (order.notes === null) continue;
      const id = (await db()
        .selectFrom('orders')
        .select('id')
        .where('organization_id', '=', c.organization.id)
        .where('remote_id', '=', `R,${index}`)
        .executeTakeFirstOrThrow())!.id;
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/orders/${id}`,
        key: c.key,
        body: { notes: order.notes },
      });
      expect(patched.statusCode, patched.body).toBe(200);
    }
    // Microseconds the API never writes, as a store's own database might hold them: both writers truncate to ms.
    await db()
      .updateTable('orders')
      .set({ delivered_at: new Date('2025-04-05T06:07:08.999Z') })
      .where('organization_id', '=', c.organization.id)
      .execute();
    await sql`update orders set delivered_at = delivered_at + interval '0.000999 seconds'
      where organization_id = ${c.organization.id}`.execute(db());

    // importJob is an extra without SQL, so that export is written record by record in Node.
    const bySql = await create(c, { resource: 'orders', format: 'csv', sort: 'number' });
    const byNode = await create(c, { resource: 'orders', format: 'csv', sort: 'number', include: 'importJob' });
    await runQueued();
    const sqlText = await fileOf(c, bySql.id);
    const nodeRows = parse(await fileOf(c, byNode.id), { columns: true }) as Record<string, string>[];
    const header = Object.keys(nodeRows[0]!).filter((column) => !column.startsWith('importJob'));
    expect(header).toContain('metadata.a,b');
    expect(sqlText).toBe(stringify([header, ...nodeRows.map((row) => header.map((column) => row[column]))]));
    expect(parse(sqlText, { columns: true })).toHaveLength(awkward.length);
  });

  it('resumes an export without extras after a crash from its last committed page, the file unchanged', async () => {
    // On PostgreSQL its lines are streamed by COPY, on the embedded engine read a page at a time.
    const c = await storeTenant({ email: 'ada@example.com' });
    const orders = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: c.key,
      body: {
        data: [1, 2, 3, 4, 5].map((n) => ({
          site: 'shop.example',
          customer: 'ada@example.com',
          remoteId: `R-${n}`,
          number: `#${n}`,
          currencyCode: 'EUR',
          metadata: { channel: n % 2 ? 'web' : 'pos' },
        })),
      },
    });
    expect(orders.statusCode, orders.body).toBe(200);
    const whole = await create(c, { resource: 'orders', format: 'csv', sort: 'number' });
    await runQueued();
    const job = await create(c, { resource: 'orders', format: 'csv', sort: 'number' });
    // Transaction 1 claims the job, 2 commits the columns, 3 the first page; the process dies before the second.
    await runQueued(
      hooked(async (n) => {
        if (n === 4) throw new Error('simulated crash');
      }),
    );
    expect(await chunksOf(job.id)).toEqual([{ seq: 0, rows: PAGE_ROWS }]);
    await diedHoldingTheLease(c, job.id);
    await runQueued();
    expect(await get(c, job.id)).toMatchObject({ status: 'succeeded', rowsProcessed: 5 });
    expect((await chunksOf(job.id)).map((chunk) => chunk.rows)).toEqual([2, 2, 1]);
    const text = await fileOf(c, job.id);
    expect(text).toBe(await fileOf(c, whole.id));
    expect((parse(text, { columns: true }) as Record<string, string>[]).map((row) => row.number)).toEqual([
      '#1',
      '#2',
      '#3',
      '#4',
      '#5',
    ]);
  });

  it('selects exactly what the list selects, whatever quotes, backslashes and placeholders its values hold', async () => {
    // On PostgreSQL the selection's values are written into a COPY as literals: none may change what it means.
    const c = await storeTenant({ email: 'ada@example.com' });
    const numbers = [`#1 it's`, '#2 back\\slash', '#3 $1 and $2', '#4 "quoted", comma', "#5 ' or 1=1 --"];
    const orders = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: c.key,
      body: {
        data: numbers.map((number, index) => ({
          site: 'shop.example',
          customer: 'ada@example.com',
          remoteId: `R-${index}`,
          number,
          totalCents: index * 100,
          currencyCode: 'EUR',
          metadata: { note: number },
          createdAt: `2025-0${index + 1}-01T00:00:00.000Z`,
        })),
      },
    });
    expect(orders.statusCode, orders.body).toBe(200);
    const selections: { filter?: Record<string, unknown>; search?: string }[] = [
      { filter: { number: { $in: [numbers[0], numbers[1], numbers[4]] } } },
      { filter: { 'metadata.note': numbers[2], createdAt: { $gte: '2025-02-15T00:00:00Z' } } },
      { search: `it's` },
      { search: 'back\\slash' },
      { search: '$1 and' },
      { search: `' or 1=1 --` },
      { filter: { totalCents: { $gt: 150 } }, search: '"quoted"' },
    ];
    for (const selection of selections) {
      const listed = await t.request({
        url: `/v1/orders?limit=100&sort=number${selection.filter ? `&filter=${q(selection.filter)}` : ''}${
          selection.search ? `&search=${q(selection.search)}` : ''
        }`,
        key: c.key,
      });
      expect(listed.statusCode, listed.body).toBe(200);
      const expected = (listed.json() as { data: { number: string }[] }).data.map((order) => order.number);
      expect(expected.length, JSON.stringify(selection)).toBeGreaterThan(0);
      const job = await create(c, { resource: 'orders', format: 'csv', sort: 'number', ...selection });
      await runQueued();
      expect((await get(c, job.id)).status).toBe('succeeded');
      const rows = parse(await fileOf(c, job.id), { columns: true }) as Record<string, string>[];
      expect(
        rows.map((row) => row.number),
        JSON.stringify(selection),
      ).toEqual(expected);
    }
  });
});

describe('CSV of customers', () => {
  it('writes the lines of an export without extras in the database, byte for byte what the flattener writes', async () => {
    const c = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    const customers = await t.request({
      method: 'POST',
      url: '/v1/customers/import',
      key: c.key,
      body: {
        data: [
          { email: 'plain@example.com', firstName: 'Ada', lastName: 'Lovelace', metadata: { tier: 'gold' } },
          {
            email: 'awkward@example.com',
            firstName: 'Jean "JJ", Jr.',
            lastName: "O'Brien\nSmith",
            phone: '+4915112345678',
            country: 'DE',
            birthday: '12-24',
            notes: 'line one\r\nline "two", done',
            metadata: { 'a,b': 'x\ny', emoji: 'Grüße ✓ 🎉' },
            emailOptOut: true,
            tags: ['vip'],
          },
          { email: 'empty@example.com', firstName: '', notes: '', metadata: {} },
        ],
      },
    });
    expect(customers.statusCode, customers.body).toBe(200);
    // tags is an extra without SQL, so that export is written record by record in Node.
    const bySql = await create(c, { resource: 'customers', format: 'csv', sort: 'email' });
    const byNode = await create(c, { resource: 'customers', format: 'csv', sort: 'email', include: 'tags' });
    await runQueued();
    const sqlText = await fileOf(c, bySql.id);
    const nodeRows = parse(await fileOf(c, byNode.id), { columns: true }) as Record<string, string>[];
    const header = Object.keys(nodeRows[0]!).filter((column) => column !== 'tags');
    expect(header).toEqual(expect.arrayContaining(['emailOptOut', 'emailOptOutAt', 'metadata.a,b', 'birthday']));
    expect(nodeRows.find((row) => row.email === 'awkward@example.com')!.emailOptOut).toBe('true');
    expect(sqlText).toBe(stringify([header, ...nodeRows.map((row) => header.map((column) => row[column]))]));
  });
});

describe('every list resource', () => {
  it('exports to CSV and JSONL with every extra its list offers', async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const resources: string[] = document.components.schemas.ExportJob.properties.resource.enum;
    expect(resources).toHaveLength(9);
    const jobs: ExportJobRecord[] = [];
    for (const resource of resources) {
      const include = document.paths[`/${resource}`].get.parameters.find(
        (parameter: { name: string }) => parameter.name === 'include',
      );
      const extras = include ? /extras: (.*)\.$/.exec(include.description)![1]!.replace(/ /g, '') : undefined;
      for (const format of ['csv', 'jsonl'])
        jobs.push(await create(a, { resource, format, ...(extras ? { include: extras } : {}) }));
    }
    await runQueued();
    for (const job of jobs) {
      const done = await get(a, job.id);
      expect(done.status, `${job.resource} ${job.format}: ${done.error}`).toBe('succeeded');
      const text = await fileOf(a, job.id);
      if (job.format === 'csv') expect(() => parse(text, { columns: true })).not.toThrow();
      else for (const line of text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});

describe('GET /v1/export-jobs/{id}/download', () => {
  let job: ExportJobRecord;
  beforeAll(async () => {
    job = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued();
  });

  it('sends the stored gzip when the client accepts it, and inflates it otherwise', async () => {
    const zipped = await t.app.inject({
      url: `/v1/export-jobs/${job.id}/download`,
      headers: { authorization: `Bearer ${a.key}`, 'accept-encoding': 'gzip, deflate' },
    });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('application/x-ndjson');
    // Named after the list and the day it was made in the organization's zone (UTC here).
    const day = new Date(job.createdAt).toISOString().slice(0, 10);
    expect(zipped.headers['content-disposition']).toBe(`attachment; filename="products-${day}.jsonl"`);
    const inflated = gunzipSync(zipped.rawPayload).toString('utf8');
    // One gzip member (one deflate stream between the header and the trailer), whatever the number of chunks:
    // decoders that stop after a file's first member read it whole.
    expect((await chunksOf(job.id)).length).toBe(3);
    expect(inflateRawSync(zipped.rawPayload.subarray(10, -8)).toString('utf8')).toBe(inflated);
    const plain = await download(a, job.id, { 'accept-encoding': 'gzip;q=0, identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(inflated);
    expect(plain.body.trimEnd().split('\n')).toHaveLength(5);
  });

  it("names the file after the day it was made in the organization's time zone", async () => {
    // UTC+14 and UTC-11: on every day of the year at least one of them is on another date than UTC.
    for (const timezone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const tenant = await t.tenant({ timezone, apiRequestsPerMinute: 1_000_000 });
      const made = await create(tenant, { resource: 'customers', format: 'csv' });
      await runQueued();
      const answer = await t.app.inject({
        url: `/v1/export-jobs/${made.id}/download`,
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      expect(answer.statusCode).toBe(200);
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(new Date(made.createdAt));
      expect(answer.headers['content-disposition']).toBe(`attachment; filename="customers-${day}.csv"`);
    }
  });

  it('answers 409 before the job has succeeded', async () => {
    const queued = await create(a, { resource: 'products', format: 'csv' });
    const response = await download(a, queued.id);
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('CONFLICT');
    await runQueued();
  });
});

describe("another organization's export job", () => {
  it('answers 404 everywhere, exactly like a missing one', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued();
    for (const [method, url] of [
      ['GET', `/v1/export-jobs/${job.id}`],
      ['GET', `/v1/export-jobs/${job.id}/download`],
      ['POST', `/v1/export-jobs/${job.id}/cancel`],
    ] as const) {
      const response = await t.request({ method, url, key: b.key });
      expect(response.statusCode, url).toBe(404);
    }
    const listed = await t.request({ url: '/v1/export-jobs', key: b.key });
    expect(listed.json().data.map((each: ExportJobRecord) => each.id)).not.toContain(job.id);
  });
});

describe('GET /v1/export-jobs', () => {
  it('lists the export jobs newest first, cursor paged', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await t.request({
        url: `/v1/export-jobs?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        key: a.key,
      });
      expect(response.statusCode, response.body).toBe(200);
      ids.push(...response.json().data.map((each: ExportJobRecord) => each.id));
      cursor = response.json().nextCursor;
    } while (cursor);
    expect(ids.length).toBeGreaterThan(5);
    expect(ids).toEqual([...ids].sort().reverse());
    const filtered = await t.request({ url: `/v1/export-jobs?filter=${q({ status: 'cancelled' })}`, key: a.key });
    expect(filtered.json().data.every((each: ExportJobRecord) => each.status === 'cancelled')).toBe(true);
  });
});

describe('retention', () => {
  it('removes an export job and its file once it expired', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    await runQueued();
    const done = await get(a, job.id);
    const prune = (now: Date) =>
      retentionJob(t.config.retention).run({
        db: db(),
        organizationId: a.organization.id,
        runKey: 'test',
        now,
        logger: silent,
        attempt: 1,
        finalAttempt: true,
        turnOver: () => false,
      }) as Promise<Record<string, number>>;
    // A second before it expires it stays (older exports of this file's other tests may go).
    await prune(new Date(Date.parse(done.expiresAt!) - 1000));
    expect((await download(a, job.id)).statusCode).toBe(200);
    expect((await prune(new Date(Date.parse(done.expiresAt!) + 1000))).exportJobs).toBeGreaterThanOrEqual(1);
    expect((await download(a, job.id)).statusCode).toBe(404);
    expect((await t.request({ url: `/v1/export-jobs/${job.id}`, key: a.key })).statusCode).toBe(404);
    expect(await chunksOf(job.id)).toEqual([]);
  });

  it('removes a failed or cancelled export once the jobs window has passed since it finished', async () => {
    const job = await create(a, { resource: 'products', format: 'jsonl' });
    await t.request({ method: 'POST', url: `/v1/export-jobs/${job.id}/cancel`, key: a.key });
    const cancelled = await get(a, job.id);
    const prune = (days: number) =>
      retentionJob(t.config.retention).run({
        db: db(),
        organizationId: a.organization.id,
        runKey: 'test',
        now: new Date(Date.parse(cancelled.finishedAt!) + days * 24 * 60 * 60 * 1000),
        logger: silent,
        attempt: 1,
        finalAttempt: true,
        turnOver: () => false,
      }) as Promise<Record<string, number>>;
    await prune(t.config.retention.jobsDays - 1);
    expect((await get(a, job.id)).status).toBe('cancelled');
    await prune(t.config.retention.jobsDays + 1);
    expect((await t.request({ url: `/v1/export-jobs/${job.id}`, key: a.key })).statusCode).toBe(404);
  });
});
