/**
 * Test mode in the operator's CLI (docs/api.md#test-mode), through the built CLI as a real child process, on its own
 * embedded data directory or, with DATABASE_URL, its own PostgreSQL database: `org create` makes the twin, `org list`
 * shows live organizations with their twin's id, `key create --test` prints a test key acting on the twin, a twin's id
 * is refused where a live organization is expected, and `org delete` deletes the twin's rows too.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import { openDatabase, type Database } from '../../src/db/engine.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createTestDatabase, migratedDataDir, postgresUrl, type TestDatabase } from '../support/database.js';
import { runBuiltCli, type CliRun } from '../support/processes.js';

let dataDir: string;
let testDatabase: TestDatabase | undefined;
let env: Record<string, string | undefined>;
let created: { id: string; testOrganizationId: string };

const cli = (...args: string[]): Promise<CliRun> => runBuiltCli(env, ...args);

const json = (run: CliRun) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, any>;
};

/** Opens the CLI's database meanwhile (the embedded one is the CLI's alone while it runs). */
async function withDatabase<T>(use: (database: Database) => Promise<T>): Promise<T> {
  const database = testDatabase
    ? await openDatabase({ databaseUrl: testDatabase.url!, dataDir: 'memory://' })
    : await openDatabase({ dataDir });
  try {
    return await use(database);
  } finally {
    await database.close();
  }
}

/** Sends one request with a key through an app on the CLI's database. */
async function call(key: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  return withDatabase(async (database) => {
    const config = { ...loadConfig({}), logLevel: 'silent', secretKey: 'test-mode-cli-test-secret-key-0123456789ab' };
    const runtime = await createRuntime(config, { database, limiter: new MemoryRateLimiter(), logger: false });
    try {
      const response = await runtime.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.json() as Record<string, any> };
    } finally {
      await runtime.close();
    }
  });
}

beforeAll(async () => {
  dataDir = await migratedDataDir('patron-test-mode-');
  if (postgresUrl) testDatabase = await createTestDatabase();
  env = { PATRON_DATA_DIR: dataDir, DATABASE_URL: testDatabase?.url, LOG_LEVEL: 'warn' };
  created = json(await cli('org', 'create', '--name', 'Twin shop', '--timezone', 'Europe/Paris', '--json')) as {
    id: string;
    testOrganizationId: string;
  };
}, 120_000);
afterAll(async () => {
  await testDatabase?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('patron and test mode', () => {
  it('org create makes the twin; org list shows the live organization with its twin’s id, never the twin', async () => {
    expect(created.testOrganizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.testOrganizationId).not.toBe(created.id);
    const { data } = json(await cli('org', 'list', '--json'));
    const ids = data.map((organization: { id: string }) => organization.id);
    expect(ids).toContain(created.id);
    expect(ids).not.toContain(created.testOrganizationId);
    expect(data.find((o: { id: string }) => o.id === created.id)).toMatchObject({
      livemode: true,
      testOrganizationId: created.testOrganizationId,
    });
    const text = await cli('org', 'list');
    expect(text.stdout).toContain(`test data ${created.testOrganizationId}`);
  });

  it('key create --test prints a test key that acts on the twin only; --help says what --test does', async () => {
    const help = await cli('key', 'create', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      "--test a test key (sk_test_…): it acts only on the organization's test data, never on live data",
    );

    const test = json(await cli('key', 'create', '--org', created.id, '--test', '--json'));
    expect(test.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(test).toMatchObject({ livemode: false, organizationId: created.testOrganizationId });
    const live = json(await cli('key', 'create', '--org', created.id, '--json'));
    expect(live.key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    expect(live).toMatchObject({ livemode: true, organizationId: created.id });

    const printed = await cli('key', 'create', '--org', created.id, '--test', '--name', 'printed');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^Created test key [0-9a-f-]{36} with all:\n {2}sk_test_[0-9A-Za-z]{40}\n/);
    expect(printed.stdout).toContain('It acts only on the test data of "Twin shop"');

    const asTest = await call(test.key, 'GET', '/v1/organization');
    expect(asTest.body).toMatchObject({ id: created.testOrganizationId, livemode: false, timezone: 'Europe/Paris' });
    const asLive = await call(live.key, 'GET', '/v1/organization');
    expect(asLive.body).toMatchObject({ id: created.id, livemode: true });

    const list = await cli('key', 'list', '--org', created.id);
    expect(list.stdout).toMatch(new RegExp(`^${live.id}  live  sk_`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^${test.id}  test  sk_test_`, 'm'));
  });

  it("refuses a twin's id where a live organization is expected, naming the live one", async () => {
    for (const args of [
      ['key', 'create', '--org', created.testOrganizationId],
      ['user', 'create', '--org', created.testOrganizationId, '--email', 'twin@example.com', '--role', 'owner'],
      ['org', 'update', created.testOrganizationId, '--name', 'Renamed'],
      ['org', 'delete', created.testOrganizationId, '--yes'],
    ]) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain(
        `${created.testOrganizationId} is the test twin of the organization "Twin shop" (${created.id})`,
      );
    }
  });

  it("org delete deletes the twin's rows with the organization's", async () => {
    const testKey = json(await cli('key', 'create', '--org', created.id, '--test', '--json')).key as string;
    const imported = await call(testKey, 'POST', '/v1/customers/import', { data: [{ email: 'twin@example.com' }] });
    expect(imported.status).toBe(200);
    const deleted = json(await cli('org', 'delete', created.id, '--yes', '--json'));
    expect(deleted.deleted.organizations).toBe(2);
    expect(deleted.deleted.customers).toBe(1);
    const left = await withDatabase(async ({ db }) =>
      db
        .selectFrom('customers')
        .select('id')
        .where('organization_id', 'in', [created.id, created.testOrganizationId])
        .execute(),
    );
    expect(left).toEqual([]);
    expect((await call(testKey, 'GET', '/v1/organization')).status).toBe(401);
  });
});
