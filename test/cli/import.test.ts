/**
 * `patron import` against a running server (`patron serve` as a child process, on a fresh embedded database, or a
 * fresh database on DATABASE_URL): the upload and the job's rows as plain lines when stderr is not a terminal, the
 * counts and the skipped rows, stdin and gzip, and refusals that exit 1 with the API's message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, migratedDataDir, redisUrl, type TestDatabase } from '../support/database.js';
import { BUILT_CLI, childEnv, exitOf, freePort, ROOT } from '../support/processes.js';
import { answers200, untilReady } from '../support/ready.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface ImportJob {
  id: string;
  status: string;
  rowsTotal: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

let dir: string;
let testDatabase: TestDatabase | undefined;
let env: Record<string, string | undefined>;
let server: ChildProcess | undefined;
let origin: string;
let key: string;

function run(args: string[], extra: Record<string, string | undefined> = {}, stdin?: string | Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: childEnv({ ...env, ...extra }),
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    if (stdin !== undefined) child.stdin!.end(stdin);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const patron = (args: string[], extra: Record<string, string | undefined> = {}, stdin?: string | Buffer) =>
  run(args, { PATRON_URL: origin, PATRON_KEY: key, ...extra }, stdin);

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, `${path}: ${await response.text()}`).toBeLessThan(300);
}

const file = async (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};

const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Each case starts a few CLI processes, which take seconds each on a busy machine.
describe('patron import', { timeout: 180_000 }, () => {
  // The server has an organization and a key of its own, made with the CLI before it starts (so the embedded
  // start seeds no demo world); on PostgreSQL it gets a database of its own.
  beforeAll(async () => {
    [dir, testDatabase] = await Promise.all([
      migratedDataDir('patron-import-'),
      process.env.DATABASE_URL ? createTestDatabase() : Promise.resolve(undefined),
    ]);
    env = {
      PATRON_DATA_DIR: dir,
      DATABASE_URL: testDatabase?.url,
      REDIS_URL: testDatabase ? redisUrl : undefined,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    };
    const organization = await run(['org', 'create', '--name', 'Importers', '--json']);
    expect(organization.code, organization.stderr).toBe(0);
    const made = await run(['key', 'create', '--org', JSON.parse(organization.stdout).id, '--json']);
    expect(made.code, made.stderr).toBe(0);
    key = JSON.parse(made.stdout).key;

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [BUILT_CLI, 'serve'], {
      cwd: ROOT,
      env: childEnv({ ...env, HOST: '127.0.0.1', PORT: String(port) }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await untilReady(server, () => answers200(`${origin}/readyz`), {
      timeoutMs: 60_000,
      intervalMs: 200,
      output: () => stderr,
    });
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server!.kill('SIGKILL'), 15_000);
      await exitOf(server);
      clearTimeout(timer);
    }
    await testDatabase?.drop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }, 60_000);

  it('imports a CSV of customers: the upload, the job and its counts on stderr, the job id on stdout', async () => {
    const csv = 'email,firstName,country\nada@example.com,Ada,GB\ngrace@example.com,Grace,US\n';
    const path = await file('customers.csv', csv);
    const first = await patron(['import', path, '--resource', 'customers']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const id = first.stdout.trim();
    expect(id).toMatch(JOB_ID);
    // Not a terminal: plain lines, no bar redraws.
    expect(first.stderr).not.toContain('\r');
    expect(first.stderr).toMatch(new RegExp(`^uploading: ${csv.length} B of ${csv.length} B \\(100%\\)$`, 'm'));
    expect(first.stderr, 'no rate off a terminal').not.toMatch(/\/s\b/);
    expect(first.stderr).toMatch(new RegExp(`^Sent ${csv.length} bytes; the server is reading them into rows…$`, 'm'));
    expect(first.stderr).toMatch(new RegExp(`^Import job ${id}: 2 customers rows from ${path} \\(csv\\)$`, 'm'));
    expect(first.stderr).toMatch(/^Imported 2 rows: 2 created, 0 updated, 0 unchanged, 0 skipped\.$/m);
    expect(first.stderr).not.toContain('Skipped');
    const job = await api<ImportJob>(`/v1/import-jobs/${id}`);
    expect(job).toMatchObject({ status: 'succeeded', rowsTotal: 2, created: 2 });
    const customers = await api<{ data: { email: string }[] }>('/v1/customers?limit=250');
    expect(customers.data.map((customer) => customer.email).sort()).toEqual(['ada@example.com', 'grace@example.com']);

    // The same file again changes nothing.
    const again = await patron(['import', path, '--resource', 'customers']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^Imported 2 rows: 0 created, 0 updated, 2 unchanged, 0 skipped\.$/m);
  });

  it('exits 0 with skipped rows, showing the first 50 in a table and where the rest are', async () => {
    const bad = Array.from({ length: 53 }, (_, index) => `bad-${index}@example.com,XX`);
    const path = await file('skipping.csv', ['email,country', 'ok@example.com,DE', ...bad].join('\n') + '\n');
    const result = await patron(['import', path, '--resource', 'customers']);
    expect(result.code, result.stderr).toBe(0);
    const id = result.stdout.trim();
    expect(result.stderr).toMatch(/^Imported 54 rows: 1 created, 0 updated, 0 unchanged, 53 skipped\.$/m);
    const lines = result.stderr.split('\n');
    const header = lines.findIndex((line) => /^ {2}index {2}item {2}line {2}message$/.test(line));
    expect(header, result.stderr).toBeGreaterThan(0);
    const message = 'row.country must be an assigned ISO 3166-1 alpha-2 country code, such as "US" or "DE".';
    // Row 1 of the file (line 3) is the first bad one; columns are right-aligned under their headers.
    expect(lines[header + 1]).toBe(`      1           3  ${message}`);
    expect(lines[header + 50]).toBe(`     50          52  ${message}`);
    expect(lines[header + 51]).toBe(`  … and 3 more rows; GET /v1/import-jobs/${id}/skipped lists them all`);
  });

  it('counts the rows not shown in full when a row’s skipped items cross the end of the table', async () => {
    // 49 rows skipped whole, then one order whose 3 items are each at fault: entries 50–52, only the first shown.
    const site = 'crossing.example';
    const customer = 'crossing@example.com';
    await post('/v1/sites', { name: 'Crossing', domain: site, platform: 'custom', currencyCode: 'EUR' });
    await post('/v1/customers/import', { data: [{ email: customer }] });
    const header = 'remoteId,number,site,customer,currencyCode,items.product,items.quantity,items.unitPriceCents';
    const whole = Array.from({ length: 49 }, (_, index) => `w-${index},#w${index},no-such-site.example,x,EUR,,,`);
    const items = [1, 2, 3].map((item) => `crossing,#c,${site},${customer},EUR,no-such-product-${item},1,100`);
    const path = await file('crossing.csv', [header, ...whole, ...items].join('\n') + '\n');
    const result = await patron(['import', path, '--resource', 'orders']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/, 50 skipped\.$/m);
    const id = result.stdout.trim();
    // Rows shown in full: the 49; the crossing row is one of the rows not shown in full.
    expect(result.stderr).toContain(`  … and 1 more row; GET /v1/import-jobs/${id}/skipped lists them all`);
  });

  it('reads stdin with --format, and a gzip file sent compressed', async () => {
    const lines = [{ email: 'piped-1@example.com' }, { email: 'piped-2@example.com', tags: ['vip'] }]
      .map((row) => JSON.stringify(row))
      .join('\n');
    const piped = await patron(['import', '-', '--resource', 'customers', '--format', 'jsonl'], {}, `${lines}\n`);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/^Import job [0-9a-f-]{36}: 2 customers rows from stdin \(jsonl\)$/m);
    expect(piped.stderr).toMatch(/^Imported 2 rows: 2 created, 0 updated, 0 unchanged, 0 skipped\.$/m);

    // Piped gzip is told by its first bytes and sent compressed, as a .gz file is.
    const pipedZip = gzipSync('email\npiped-zip@example.com\n');
    const pipedZipped = await patron(['import', '-', '--resource', 'customers', '--format', 'csv'], {}, pipedZip);
    expect(pipedZipped.code, pipedZipped.stderr).toBe(0);
    expect(pipedZipped.stderr).toMatch(new RegExp(`^Sent ${pipedZip.length} bytes;`, 'm'));
    expect(pipedZipped.stderr).toMatch(/^Imported 1 rows: 1 created, 0 updated, 0 unchanged, 0 skipped\.$/m);

    const gzipped = gzipSync('email,tags\nzipped-1@example.com,a|b\nzipped-2@example.com,\n');
    const path = await file('zipped.csv.gz', gzipped);
    const zipped = await patron(['import', path, '--resource', 'customers']);
    expect(zipped.code, zipped.stderr).toBe(0);
    expect(zipped.stderr).toMatch(new RegExp(`^Sent ${gzipped.length} bytes;`, 'm'));
    expect(zipped.stderr).toMatch(/^Imported 2 rows: 2 created, 0 updated, 0 unchanged, 0 skipped\.$/m);
    const tagged = await api<{ data: { email: string; tags: string[] }[] }>(
      '/v1/customers?search=zipped-1&include=tags',
    );
    expect(tagged.data[0]!.tags.sort()).toEqual(['a', 'b']);
  });

  it('exits 1 with the API’s message when the server refuses the upload or the job fails', async () => {
    const path = await file('refused.csv', 'email\nrefused@example.com\n');
    const resource = await patron(['import', path, '--resource', 'sites']);
    expect(resource.code).toBe(1);
    expect(resource.stderr).toMatch(/^400 VALIDATION_ERROR: Invalid request: query\.resource must be one of /m);
    expect(resource.stdout).toBe('');

    const option = await patron(['import', path, '--resource', 'customers', '--earn-loyalty', 'false']);
    expect(option.code).toBe(1);
    expect(option.stderr).toMatch(/^400 VALIDATION_ERROR: Invalid request: the customers import takes no earnLoyalty/m);
    expect(option.stderr).toContain('  query.earnLoyalty: is not an option of the customers import');

    // A file the server cannot read makes a job that failed: its id on stdout, its error on stderr.
    const unknown = await file('unknown.csv', 'email,shoeSize\nx@example.com,42\n');
    const failed = await patron(['import', unknown, '--resource', 'customers']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(failed.stderr).toMatch(
      /^The import failed: Line 1: column "shoeSize" is not a field of a customers import row \(nor of the record its export writes\)\.$/m,
    );
    expect((await api<ImportJob>(`/v1/import-jobs/${failed.stdout.trim()}`)).status).toBe('failed');

    // The flags reach the job as the import's options: strict, an order without its site fails the job.
    const orders = await file('orders.jsonl', '{"remoteId":"o-1"}\n');
    const flagged = await patron(['import', orders, '--resource', 'orders', '--strict', '--earn-loyalty', 'false']);
    expect(flagged.code).toBe(1);
    const options = await api<ImportJob & { options: object }>(`/v1/import-jobs/${flagged.stdout.trim()}`);
    expect(options).toMatchObject({
      resource: 'orders',
      format: 'jsonl',
      options: { strict: true, earnLoyalty: false },
    });
    expect(flagged.stderr).toMatch(/^The import failed: Row 0 \(line 1\): row\.site is required/m);

    const keyless = await patron(['import', path, '--resource', 'customers'], { PATRON_KEY: undefined });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain('No key: pass --key or set PATRON_KEY');
  });

  it('refuses, before sending anything, a file it cannot read or whose format it cannot tell', async () => {
    const before = (await api<{ data: unknown[] }>('/v1/import-jobs?limit=250')).data.length;
    const missing = await patron(['import', join(dir, 'missing.csv'), '--resource', 'customers']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Cannot read .*missing\.csv: ENOENT/m);
    const text = await file('rows.txt', 'email\n');
    const unnamed = await patron(['import', text, '--resource', 'customers']);
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toContain(`Cannot tell the format of ${text}: name it .csv, .jsonl or .ndjson`);
    const stdin = await patron(['import', '-', '--resource', 'customers'], {}, 'email\n');
    expect(stdin.code).toBe(1);
    expect(stdin.stderr).toContain('Reading stdin (-): name its format with --format csv or --format jsonl.');
    const flag = await patron(['import', text, '--resource', 'customers', '--earn-loyalty', 'maybe']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain("option '--earn-loyalty <boolean>' argument 'maybe' is invalid");
    expect((await api<{ data: unknown[] }>('/v1/import-jobs?limit=250')).data).toHaveLength(before);
  });
});
