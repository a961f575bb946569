/**
 * `patron org delete` (src/cli/org-delete.ts, docs/api.md#deleting-an-organization) as a real child process, on a
 * database the test fills through the API for two organizations: an embedded data directory, or a fresh PostgreSQL
 * database when DATABASE_URL is set. The tables checked are read from the catalog, so a table added later is held to
 * the same rule without being named here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink, createUser } from '../../src/auth/accounts.js';
import { createKey } from '../../src/auth/keys.js';
import { createRuntime, scheduledJobs, type Runtime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/engine.js';
import type { DB } from '../../src/db/schema.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { createOrganization, findTestOrganizationId } from '../../src/resources/organization/service.js';
import { createTestDatabase, migratedDataDir, type TestDatabase } from '../support/database.js';
import { BUILT_CLI, ROOT, childEnv } from '../support/processes.js';

let dataDir: string;
let testDatabase: TestDatabase | undefined;
let env: Record<string, string>;

interface Org {
  id: string;
  name: string;
  /** Its test twin (docs/api.md#test-mode), deleted with it. */
  testOrganizationId: string;
}
let doomed: Org;
let kept: Org;
let before: Map<string, Record<string, number>>;

/** Opens the database the CLI uses (the embedded one belongs to one process at a time: close it before the CLI). */
async function open(): Promise<Database> {
  if (testDatabase) return openDatabase({ databaseUrl: testDatabase.url!, dataDir: 'memory://' });
  return openDatabase({ dataDir });
}

/** Rows per organization in every table that has an organization_id column, read from the catalog. */
async function rowsPerOrganization(db: Kysely<DB>): Promise<Map<string, Record<string, number>>> {
  const { rows: tables } = await sql<{ name: string }>`
    select c.table_name as name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and c.column_name = 'organization_id' and t.table_type = 'BASE TABLE'
      -- Partitions are counted through their partitioned table (the audit log's months).
      and c.table_name not in (select inhrelid::regclass::text from pg_inherits)
    order by 1`.execute(db);
  const counts = new Map<string, Record<string, number>>();
  for (const { name } of tables) {
    const { rows } = await sql<{ organization_id: string; n: number | string }>`
      select organization_id, count(*) as n from ${sql.id(name)} group by organization_id`.execute(db);
    const perOrganization: Record<string, number> = {};
    for (const row of rows) perOrganization[row.organization_id] = Number(row.n);
    counts.set(name, perOrganization);
  }
  return counts;
}

async function fill(runtime: Runtime, database: Database, organization: Org, key: string): Promise<void> {
  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, headers = {}) => {
    const response = await runtime.app.inject({
      method,
      url: `/v1${url}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.json();
  };
  const domain = `shop-${organization.id}.example`;
  await call('POST', '/webhooks', {
    data: { url: 'https://93.184.215.14/in', events: ['site.created', 'site.updated', 'customer.updated'] },
  });
  const site = await call(
    'POST',
    '/sites',
    { name: 'Shop', domain, platform: 'custom', currencyCode: 'USD' },
    { 'idempotency-key': 'site-1' },
  );
  await call('PATCH', `/sites/${site.id}`, { name: 'Shop renamed' });
  await call('POST', '/customers/import', {
    data: ['ann', 'bob', 'cy', 'dee', 'eve'].map((name) => ({ email: `${name}@example.com`, tags: ['vip'] })),
  });
  await call('POST', '/products/import', {
    data: ['mug', 'cap'].map((slug) => ({
      slug,
      title: slug,
      sites: [domain],
      tags: ['summer'],
      variants: [{ slug: `${slug}-one`, title: 'One', priceCents: 1500, currencyCode: 'USD' }],
    })),
  });
  await call('POST', '/loyalty-tiers', { data: { name: 'Silver', thresholdPoints: 100 } });
  await call('POST', '/loyalty-rules', {
    section: 'rules',
    name: 'Signup',
    config: { type: 'event', eventName: 'signup', points: 50 },
  });
  const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
  await call('POST', '/loyalty-rules', {
    section: 'stampCards',
    name: 'Coffee',
    config: { stampsRequired: 2, reward: coupon },
  });
  const customers = (await call('GET', '/customers?sort=email')).data as { id: string; email: string }[];
  const ann = await call('POST', '/loyalty-memberships', { customerId: customers[0]!.id });
  const bob = await call('POST', '/loyalty-memberships', { customerId: customers[1]!.id });
  await call('POST', '/loyalty-events', {
    loyaltyMembershipId: bob.id,
    event: 'signup',
    referralCode: ann.referralCode,
  });
  await call('POST', '/loyalty-stamps', { loyaltyMembershipId: ann.id, stamps: 3 });
  await call('POST', '/loyalty-rewards', { data: { loyaltyMembershipId: ann.id, reward: coupon } });
  // A survey flow before the order ships: the order schedules a survey and queues its request (mail).
  const template = await call('POST', '/email-templates', {
    kind: 'surveyRequest',
    name: 'Survey',
    subject: 'How was {{ order.number }}?',
    html: '<p>{{ survey.url }}</p>',
  });
  await call('POST', '/survey-flows', {
    name: 'After shipping',
    trigger: 'orderShipped',
    delayDays: 0,
    emailTemplateId: template.id,
    questions: [{ id: 'overall', text: 'How was it?', kind: 'rating' }],
  });
  await call('POST', '/orders/import', {
    data: [
      {
        site: domain,
        customer: 'ann@example.com',
        shippedAt: '2026-05-04T08:00:00Z',
        remoteId: 'o-1',
        number: '#1',
        totalCents: 3000,
        subtotalCents: 3000,
        shippingCents: 0,
        taxCents: 0,
        currencyCode: 'USD',
        tags: ['gift'],
        items: [{ product: 'mug', quantity: 2, unitPriceCents: 1500 }],
      },
    ],
  });
  await call('POST', '/reviews/import', {
    data: customers.flatMap((customer) =>
      ['mug', 'cap'].map((product) => ({
        product,
        customer: customer.email,
        rating: 5,
        body: 'Lovely.',
        published: true,
      })),
    ),
  });
  await call('POST', '/wishlists/import', {
    data: [{ customer: 'ann@example.com', name: 'Ideas', items: [{ product: 'mug' }] }],
  });
  await call('POST', '/product-questions/import', {
    data: [
      {
        product: 'cap',
        customer: 'bob@example.com',
        authorName: 'Bob',
        body: 'Is it adjustable?',
        answers: [{ body: 'Yes.', authorName: 'Shop' }],
      },
    ],
  });
  await call('POST', '/quick-filters', { resource: 'products', name: 'Summer', filter: { 'tags.name': 'summer' } });
  // Import jobs: one run (it skips a row), one still queued (its rows are stored until it runs).
  const upload = async (csv: string) => {
    const response = await runtime.app.inject({
      method: 'POST',
      url: '/v1/import-jobs?resource=customers',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json<{ id: string }>();
  };
  const imported = await upload('email\nfay@example.com\nnot-an-email\n');
  const runner = createJobRunner({
    db: database.db,
    jobs: scheduledJobs(loadConfig({})).filter((job) => job.name === 'retention.prune' || job.name === 'importJob.run'),
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  await runner.runNow(organization.id, 'importJob.run', imported.id);
  await upload('email\ngus@example.com\n');
  await runner.runNow(organization.id, 'retention.prune', 'filled');
  // Dashboard accounts: a user signed in with a link, a live link, and a failed sign-in (kept by email).
  const owner = await createUser(database.db, {
    organizationId: organization.id,
    email: `owner-${organization.id}@example.com`,
    role: 'owner',
  });
  const signedIn = await runtime.app.inject({
    method: 'POST',
    url: '/v1/session',
    payload: { signInToken: (await createSignInLink(database.db, owner)).token },
  });
  expect(signedIn.statusCode, signedIn.body).toBe(201);
  await createSignInLink(database.db, owner);
  const failed = await runtime.app.inject({
    method: 'POST',
    url: '/v1/session',
    payload: { email: owner.email, password: 'not the password' },
  });
  expect(failed.statusCode).toBe(401);
}

const failedSignIns = async (db: Kysely<DB>, organization: Org) =>
  (
    await db
      .selectFrom('sign_in_failures')
      .select('email')
      .where('email', '=', `owner-${organization.id}@example.com`)
      .execute()
  ).length;

beforeAll(async () => {
  dataDir = await migratedDataDir('patron-org-delete-');
  if (process.env.DATABASE_URL) {
    testDatabase = await createTestDatabase();
    env = { DATABASE_URL: testDatabase.url!, PATRON_DATA_DIR: dataDir };
  } else {
    env = { PATRON_DATA_DIR: dataDir };
  }
  const database = testDatabase?.database ?? (await open());
  await migrateToLatest(database.db);
  const config = { ...loadConfig({}), logLevel: 'silent', secretKey: 'org-delete-test-secret-key-0123456789abcdef' };
  const runtime = await createRuntime(config, { database, limiter: new MemoryRateLimiter(), logger: false });
  try {
    for (const name of ['Doomed shop', 'Kept shop']) {
      const live = await createOrganization(database.db, { name });
      const organization = { ...live, testOrganizationId: (await findTestOrganizationId(database.db, live.id))! };
      const { key } = await createKey(database.db, { organizationId: organization.id, permissions: ['all'] });
      await fill(runtime, database, organization, key);
      // Some test data too (docs/api.md#test-mode): a customer of the twin.
      const testKey = await createKey(database.db, {
        organizationId: organization.testOrganizationId,
        permissions: ['all'],
      });
      const imported = await runtime.app.inject({
        method: 'POST',
        url: '/v1/customers/import',
        headers: { authorization: `Bearer ${testKey.key}` },
        payload: { data: [{ email: `twin@${name.split(' ')[0]!.toLowerCase()}.example` }] },
      });
      expect(imported.statusCode, imported.body).toBe(200);
      if (name === 'Doomed shop') doomed = organization;
      else kept = organization;
    }
    before = await rowsPerOrganization(database.db);
  } finally {
    await runtime.close();
    await database.close();
  }
}, 120_000);
afterAll(async () => {
  await testDatabase?.drop().catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
});

function cli(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: childEnv({ ...env, LOG_LEVEL: 'silent' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI on a terminal (util-linux `script` gives it one), answering `answer` to its question. */
function onTerminal(args: string[], answer: string) {
  const command = [process.execPath, BUILT_CLI, ...args].map((part) => `'${part}'`).join(' ');
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      env: childEnv({ ...env, LOG_LEVEL: 'silent' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let answered = false;
    const take = (chunk: string) => {
      output += chunk;
      if (!answered && output.includes('to confirm:')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    };
    child.stdout!.setEncoding('utf8').on('data', take);
    child.stderr!.setEncoding('utf8').on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const hasScript = spawnSync('script', ['--version']).status === 0;

async function organizationIds(): Promise<string[]> {
  const database = await open();
  try {
    return (await database.db.selectFrom('organizations').select('id').execute()).map((row) => row.id);
  } finally {
    await database.close();
  }
}

describe('patron org delete', () => {
  it('was given two organizations with rows in most tables, including those without a foreign key', () => {
    const empty = [...before].filter(([, perOrganization]) => !perOrganization[doomed.id]).map(([table]) => table);
    // A table added later may start empty here; the delete below is checked on every table all the same.
    expect(empty.length, empty.join(', ')).toBeLessThanOrEqual(3);
    for (const table of ['events', 'import_job_records', 'webhook_deliveries', 'jobs', 'idempotency_keys']) {
      expect(before.get(table)?.[doomed.id], table).toBeGreaterThan(0);
      expect(before.get(table)?.[kept.id], table).toBeGreaterThan(0);
    }
  });

  it('refuses without a terminal and without --yes, before touching the database', async () => {
    const refused = await cli(['org', 'delete', doomed.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stdin is not a terminal. Pass --yes to delete from a script.');
    expect(await organizationIds()).toContain(doomed.id);
  }, 120_000);

  it('refuses an id no organization has', async () => {
    const missing = await cli(['org', 'delete', '0190a000-0000-7000-8000-000000000000', '--yes']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No organization has the id 0190a000-0000-7000-8000-000000000000.');
  }, 120_000);

  it.skipIf(!hasScript)(
    'on a terminal, deletes nothing unless the answer is the name or the id',
    async () => {
      const wrong = await onTerminal(['org', 'delete', doomed.id], 'Doomed');
      expect(wrong.output).toContain(`This deletes the organization "Doomed shop" (${doomed.id})`);
      expect(wrong.output).toContain('Not confirmed');
      expect(wrong.code).toBe(1);
      expect(await organizationIds()).toContain(doomed.id);

      const created = await cli(['org', 'create', '--name', 'Tiny shop', '--json']);
      const tiny = JSON.parse(created.stdout) as Org;
      const confirmed = await onTerminal(['org', 'delete', tiny.id], 'Tiny shop');
      expect(confirmed.code, confirmed.output).toBe(0);
      // The organization and its test twin, each with its default loyalty program.
      expect(confirmed.output).toMatch(/Deleted the organization "Tiny shop" \([0-9a-f-]{36}\): 4 rows in [\d.]+ s\./);
      expect(confirmed.output).toMatch(/ {2}loyalty_programs +2\r?\n {2}organizations +2/);
      expect(await organizationIds()).not.toContain(tiny.id);
      expect(await organizationIds()).not.toContain(tiny.testOrganizationId);
    },
    120_000,
  );

  it("with --yes removes every row the organization owns, in every table, and no other organization's", async () => {
    const deleted = await cli(['org', 'delete', doomed.id, '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const report = JSON.parse(deleted.stdout) as { id: string; name: string; deleted: Record<string, number> };
    expect(report).toMatchObject({ id: doomed.id, name: 'Doomed shop' });
    // What it reports removing is what the organization and its test twin had.
    const owned = (perOrganization: Record<string, number>) =>
      (perOrganization[doomed.id] ?? 0) + (perOrganization[doomed.testOrganizationId] ?? 0);
    for (const [table, perOrganization] of before) {
      expect(report.deleted[table] ?? 0, table).toBe(owned(perOrganization));
    }
    expect(report.deleted.organizations).toBe(2);
    expect(report.deleted.sign_in_failures).toBe(1);

    const database = await open();
    try {
      const after = await rowsPerOrganization(database.db);
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      for (const [table, perOrganization] of after) {
        expect(perOrganization[doomed.id] ?? 0, table).toBe(0);
        expect(perOrganization[doomed.testOrganizationId] ?? 0, table).toBe(0);
        expect(perOrganization[kept.id] ?? 0, table).toBe(before.get(table)![kept.id] ?? 0);
        expect(perOrganization[kept.testOrganizationId] ?? 0, table).toBe(
          before.get(table)![kept.testOrganizationId] ?? 0,
        );
      }
      const ids = (await database.db.selectFrom('organizations').select('id').execute()).map((row) => row.id);
      expect(ids).not.toContain(doomed.id);
      expect(ids).not.toContain(doomed.testOrganizationId);
      expect(ids).toContain(kept.id);
      expect(ids).toContain(kept.testOrganizationId);
      expect(await failedSignIns(database.db, doomed)).toBe(0);
      expect(await failedSignIns(database.db, kept)).toBe(1);
    } finally {
      await database.close();
    }
  }, 120_000);
});
