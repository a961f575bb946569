/**
 * The operator CLI (D32), run as a real child process from the build: `node dist/src/cli/main.js <args>`.
 * Embedded mode: one PATRON_DATA_DIR for the file, a copy of the run's migrated one. PostgreSQL mode: one database
 * for the file, a copy of the run's migrated template.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { lockEmbeddedDatabase } from '../../src/db/embedded-lock.js';
import { openDatabase, type Database } from '../../src/db/engine.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { DEMO_OWNER_PASSWORD } from '../../src/demo/examples.js';
import { createTestDatabase, migratedDataDir, postgresUrl, type TestDatabase } from '../support/database.js';
import { childEnv, BUILT_CLI, exitOf, freePort, ROOT, sleep } from '../support/processes.js';
import { answers200, untilReady } from '../support/ready.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = /^sk_[0-9A-Za-z]{32,}$/;
const ANY_KEY = /sk_(?:test_)?[0-9A-Za-z]{32,}/;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

function spawnCli(args: string[], env: Record<string, string | undefined>): ChildProcess {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs one CLI command to completion (killed after `timeoutMs`, which then fails the caller's assertions). */
function runCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 45_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

async function waitReady(
  baseUrl: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 45_000,
): Promise<void> {
  await untilReady(child, () => answers200(`${baseUrl}/readyz`), { timeoutMs, output });
}

/** Parses stdout that must be exactly one JSON object (one line). */
function jsonOf(run: Run): Record<string, unknown> {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const value: unknown = JSON.parse(lines[0]!);
  expect(value).toBeTypeOf('object');
  expect(value).not.toBeNull();
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, unknown>;
}

/** A failed command: exit code 1, nothing on stdout, one clear `patron: …` line on stderr. */
function expectFailure(run: Run, pattern: RegExp): void {
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^patron: /);
  expect(lines[0]).toMatch(pattern);
  expect(run.code).toBe(1);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('patron CLI', () => {
  let dataDir: string;
  let testDatabase: TestDatabase | undefined;
  /** The environment every command of this file runs with: this file's own database. */
  let env: Record<string, string | undefined>;
  const cli = (...args: string[]) => runCli(args, env);

  let utcOrganizationId: string;
  let berlinOrganizationId: string;
  let fullKey: { id: string; key: string };
  let ordersKey: { id: string; key: string };
  let demo: { organizationId: string; key: string; testKey: string };

  beforeAll(async () => {
    dataDir = await migratedDataDir('patron-cli-');
    tempDirs.push(dataDir);
    if (postgresUrl) testDatabase = await createTestDatabase();
    // On PostgreSQL the data dir only holds nothing of interest; it keeps the CLI from touching ./.patron.
    env = { PATRON_DATA_DIR: dataDir, DATABASE_URL: testDatabase?.url, LOG_LEVEL: 'warn' };
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    await testDatabase?.drop();
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  describe('org create', () => {
    it('prints exactly { id, name, timezone } with a UUID id and the default time zone UTC', async () => {
      const created = jsonOf(await cli('org', 'create', '--name', 'Acme Coffee', '--json'));
      expect(Object.keys(created).sort()).toEqual(['id', 'name', 'testOrganizationId', 'timezone']);
      expect(created.id).toMatch(UUID);
      // Its test twin (docs/api.md#test-mode), made with it.
      expect(created.testOrganizationId).toMatch(UUID);
      expect(created.testOrganizationId).not.toBe(created.id);
      expect(created.name).toBe('Acme Coffee');
      expect(created.timezone).toBe('UTC');
      utcOrganizationId = created.id as string;
    });

    it('honours --timezone', async () => {
      const created = jsonOf(
        await cli('org', 'create', '--name', 'Berliner Bäckerei', '--timezone', 'Europe/Berlin', '--json'),
      );
      expect(created).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Berliner Bäckerei',
        timezone: 'Europe/Berlin',
        testOrganizationId: expect.stringMatching(UUID),
      });
      expect(created.id).not.toBe(utcOrganizationId);
      berlinOrganizationId = created.id as string;
    });

    it('refuses an unknown time zone with exit code 1 and one clear line (nothing is created: see org list)', async () => {
      const run = await cli('org', 'create', '--name', 'Nowhere Inc', '--timezone', 'Mars/Olympus_Mons', '--json');
      expectFailure(run, /time zone/i);
      expect(run.stderr).toContain('Mars/Olympus_Mons');
    });
  });

  it('org list shows exactly the organizations created, not the refused one', async () => {
    const run = await cli('org', 'list');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    const acme = lines.find((line) => line.includes(utcOrganizationId));
    const berlin = lines.find((line) => line.includes(berlinOrganizationId));
    expect(acme).toMatch(/Acme Coffee.*UTC/);
    expect(berlin).toMatch(/Berliner Bäckerei.*Europe\/Berlin/);
    expect(run.stdout).not.toContain('Nowhere');
  });

  describe('org update', () => {
    it('changes the plan allowances, name and time zone and prints { organization, changed }', async () => {
      const updated = jsonOf(
        await cli(
          'org',
          'update',
          berlinOrganizationId,
          '--name',
          'Berliner Backstube',
          '--timezone',
          'Europe/Vienna',
          '--api-requests-per-minute',
          '1200',
          '--loyalty-events-per-minute',
          '240',
          '--loyalty-stamps-per-minute',
          '60',
          '--json',
        ),
      );
      expect(updated).toEqual({
        changed: true,
        organization: expect.objectContaining({
          id: berlinOrganizationId,
          name: 'Berliner Backstube',
          timezone: 'Europe/Vienna',
          plan: { apiRequestsPerMinute: 1200, loyaltyEventsPerMinute: 240, loyaltyStampsPerMinute: 60 },
        }),
      });
    });

    it('says when nothing changed (the values are already stored)', async () => {
      const again = jsonOf(
        await cli('org', 'update', berlinOrganizationId, '--api-requests-per-minute', '1200', '--json'),
      );
      expect(again.changed).toBe(false);
      // Back to the names the later tests of this file read.
      const restored = jsonOf(
        await cli(
          'org',
          'update',
          berlinOrganizationId,
          '--name',
          'Berliner Bäckerei',
          '--timezone',
          'Europe/Berlin',
          '--json',
        ),
      );
      expect(restored.organization).toMatchObject({ name: 'Berliner Bäckerei', timezone: 'Europe/Berlin' });
    });

    it('refuses a bad value with exit code 1 and one clear line, changing nothing', async () => {
      expectFailure(
        await cli('org', 'update', berlinOrganizationId, '--api-requests-per-minute', '5'),
        /apiRequestsPerMinute must be an integer from 10/,
      );
      expectFailure(await cli('org', 'update', berlinOrganizationId, '--timezone', 'Mars/Olympus_Mons'), /time zone/i);
      // Refused by the argument parser, which prints the command's help after the error.
      const zero = await cli('org', 'update', berlinOrganizationId, '--loyalty-events-per-minute', '0');
      expect(zero.code).toBe(1);
      expect(zero.stderr).toMatch(/expected a positive integer/);
      expectFailure(await cli('org', 'update', berlinOrganizationId), /Nothing to change/);
      expectFailure(await cli('org', 'update', randomUUID(), '--name', 'Ghost'), /No organization has the id/);
      const listed = (await cli('org', 'list', '--json')).stdout;
      const berlin = (JSON.parse(listed) as { data: { id: string; plan: object }[] }).data.find(
        (o) => o.id === berlinOrganizationId,
      );
      expect(berlin?.plan).toEqual({
        apiRequestsPerMinute: 1200,
        loyaltyEventsPerMinute: 240,
        loyaltyStampsPerMinute: 60,
      });
    });
  });

  describe('key create', () => {
    it('prints exactly { id, key, permissions, livemode, organizationId }: a live sk_ key and permissions ["all"] by default', async () => {
      const created = jsonOf(await cli('key', 'create', '--org', utcOrganizationId, '--json'));
      expect(Object.keys(created).sort()).toEqual(['id', 'key', 'livemode', 'organizationId', 'permissions']);
      expect(created).toMatchObject({ livemode: true, organizationId: utcOrganizationId });
      expect(created.id).toMatch(UUID);
      expect(created.key).toMatch(KEY);
      expect(created.permissions).toEqual(['all']);
      fullKey = { id: created.id as string, key: created.key as string };
    });

    it('--permissions gives the sorted list of the named permissions', async () => {
      const created = jsonOf(
        await cli('key', 'create', '--org', utcOrganizationId, '--permissions', 'orders:write,orders:read', '--json'),
      );
      expect(created.key).toMatch(KEY);
      expect(created.key).not.toBe(fullKey.key);
      expect(created.permissions).toEqual(['orders:read', 'orders:write']);
      ordersKey = { id: created.id as string, key: created.key as string };
    });

    it('refuses an unknown permission, naming it', async () => {
      const run = await cli(
        'key',
        'create',
        '--org',
        utcOrganizationId,
        '--permissions',
        'orders:read,orders:steal',
        '--json',
      );
      expectFailure(run, /orders:steal/);
    });

    it('refuses an unknown organization', async () => {
      const unknown = randomUUID();
      const run = await cli('key', 'create', '--org', unknown, '--json');
      expectFailure(run, new RegExp(unknown));
    });
  });

  it('key list shows each key with its prefix and never the secret', async () => {
    const run = await cli('key', 'list', '--org', utcOrganizationId);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2); // the refused commands created nothing
    for (const { id, key } of [fullKey, ordersKey]) {
      const line = lines.find((candidate) => candidate.includes(id));
      expect(line).toBeDefined();
      expect(line).toContain(key.slice(0, 11)); // "sk_" + 8 characters
      expect(line).toMatch(/active/);
    }
    expect(run.stdout).not.toContain(fullKey.key);
    expect(run.stdout).not.toContain(ordersKey.key);
    expect(run.stdout).not.toMatch(ANY_KEY);
    expect(run.stdout).toMatch(/orders:read,orders:write/);
  });

  it('key revoke revokes the key', async () => {
    const run = await cli('key', 'revoke', fullKey.id);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(fullKey.id);
  });

  it('seed --demo --json creates a Demo organization and a key with every permission', async () => {
    const seeded = jsonOf(await cli('seed', '--demo', '--json'));
    expect(Object.keys(seeded).sort()).toEqual(['id', 'key', 'organization', 'owner', 'permissions', 'testKey']);
    expect(seeded.testKey).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(seeded.owner).toEqual({
      id: expect.stringMatching(UUID),
      email: expect.stringMatching(/^owner(\+\d+)?@demo\.example$/),
      signInLink: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/dashboard\/sign-in#token=[A-Za-z0-9_-]{43}$/),
      password: DEMO_OWNER_PASSWORD,
    });
    expect(seeded.id).toMatch(UUID);
    expect(seeded.key).toMatch(KEY);
    expect(seeded.permissions).toEqual(['all']);
    expect(seeded.organization).toMatchObject({ id: expect.stringMatching(UUID), name: 'Demo', timezone: 'UTC' });
    demo = {
      organizationId: (seeded.organization as { id: string }).id,
      key: seeded.key as string,
      testKey: seeded.testKey as string,
    };
  });

  describe('the API on the same database, after the CLI has exited', () => {
    let database: Database;
    let runtime: Runtime;
    let unlock: () => Promise<void> = async () => {};

    beforeAll(async () => {
      if (testDatabase) {
        database = testDatabase.database;
      } else {
        unlock = await lockEmbeddedDatabase(dataDir);
        database = await openDatabase({ dataDir });
      }
      const config: Config = {
        ...loadConfig({}),
        dataDir,
        logLevel: 'silent',
        secretKey: randomBytes(32).toString('base64'),
      };
      runtime = await createRuntime(config, { database, limiter: new MemoryRateLimiter(), logger: false });
    });

    afterAll(async () => {
      await runtime?.close();
      if (!testDatabase) {
        await database?.close();
        await unlock();
      }
    });

    const get = (key: string) =>
      runtime.app.inject({ method: 'GET', url: '/v1/organization', headers: { authorization: `Bearer ${key}` } });

    it('answers 401 to the revoked key', async () => {
      const response = await get(fullKey.key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    });

    it('still serves the keys that were not revoked, each for its own organization', async () => {
      const orders = await get(ordersKey.key);
      expect(orders.statusCode).toBe(200);
      expect(orders.json()).toMatchObject({ id: utcOrganizationId, name: 'Acme Coffee', timezone: 'UTC' });
      const demoResponse = await get(demo.key);
      expect(demoResponse.statusCode).toBe(200);
      expect(demoResponse.json()).toMatchObject({ id: demo.organizationId, name: 'Demo' });
    });

    it('stores only a SHA-256 of each key: the api_keys table holds no plaintext key', async () => {
      const rows = await database.db.selectFrom('api_keys').selectAll().execute();
      // The two made here, the demo key, its test key, and the demo world's second key (the dashboard's revoke example
      // revokes it).
      expect(rows).toHaveLength(5);
      expect(rows.filter((row) => row.name === 'storefront')).toHaveLength(1);
      const stored = JSON.stringify(rows);
      expect(stored).not.toMatch(ANY_KEY);
      for (const { key } of [fullKey, ordersKey, demo, { key: demo.testKey }]) {
        expect(stored).not.toContain(key);
        expect(stored).not.toContain(key.replace(/^sk_(test_)?/, '')); // not even the random part without its prefix
        expect(rows.filter((row) => row.key_hash === sha256(key))).toHaveLength(1);
      }
      const revoked = rows.find((row) => row.id === fullKey.id);
      expect(revoked?.revoked_at).toBeInstanceOf(Date);
    });
  });

  describe('invalid environment', () => {
    it.each([
      ['DATABASE_URL', 'mysql://patron:hunter2-secret@db.invalid/patron'],
      ['REDIS_URL', 'http://:hunter2-secret@cache.invalid:6379'],
      ['PATRON_SECRET_KEY', 'hunter2-secret'],
    ])('a bad %s stops `serve` with exit code 1, naming the variable without its value', async (name, value) => {
      const run = await runCli(['serve'], { ...env, [name]: value }, 20_000);
      expectFailure(run, new RegExp(`\\b${name}\\b`));
      expect(run.stderr + run.stdout).not.toContain('hunter2');
    });

    // URLs of the right scheme that do not parse: without the check at start the driver stopped it with a bare
    // "patron: Invalid URL", naming nothing.
    it.each([
      ['DATABASE_URL', 'postgres://patron:hunter2-secret@db.invalid:99999/patron', {}],
      ['DATABASE_URL', 'postgresql://patron:hunter2-secret@[db.invalid/patron', {}],
      ['REDIS_URL', 'redis://:hunter2-secret@cache.invalid:99999', {}],
      ['SMTP_URL', 'smtps://mailer:hunter2-secret@[smtp.invalid:465', { MAIL_FROM: 'Shop <shop@example.com>' }],
      [
        'REVIEW_SUMMARY_OPENAI_URL',
        'https://hunter2-secret@[api.invalid/v1',
        { REVIEW_SUMMARY_GENERATOR: 'openai', REVIEW_SUMMARY_OPENAI_MODEL: 'm' },
      ],
    ])(
      'a malformed %s stops `serve` with one line naming it as not a valid URL, never its value',
      async (name, value, extra) => {
        const run = await runCli(['serve'], { ...env, ...extra, [name]: value }, 20_000);
        expectFailure(run, new RegExp(`^patron: Invalid ${name} \\(value not shown\\): not a valid URL; `));
        expect(run.stderr + run.stdout).not.toContain('hunter2');
        expect(run.stderr).not.toContain('invalid/');
      },
    );

    it('PORT=abc stops `serve` with exit code 1 and one line naming PORT, not its value', async () => {
      const run = await runCli(['serve'], { ...env, PORT: 'abc' }, 20_000);
      expectFailure(run, /^patron: Invalid PORT: expected a TCP port number/);
      expect(run.stderr).not.toContain('abc');
    });
  });

  describe.skipIf(Boolean(postgresUrl))('the embedded lock', () => {
    it('a CLI command on a data dir that `serve` holds exits 1 saying the database is in use', async () => {
      const port = await freePort();
      const serve = spawnCli(['serve'], { ...env, PORT: String(port) });
      let output = '';
      serve.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      serve.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      try {
        await waitReady(`http://127.0.0.1:${port}`, serve, () => output);
        const run = await cli('org', 'list');
        expectFailure(run, /in use/);
        expect(run.stderr).toContain(String(serve.pid));
      } finally {
        serve.kill('SIGTERM');
        const exit = await Promise.race([exitOf(serve), sleep(15_000).then(() => null)]);
        if (!exit) serve.kill('SIGKILL');
        expect(exit).toEqual({ code: 0, signal: null });
      }
      // serve released the lock on its way out: the next command runs (the migrate test below relies on it too).
    });
  });

  it('migrate is idempotent: twice in a row, both succeed, the second applies nothing, data is kept', async () => {
    const first = await cli('migrate', '--json');
    const firstResult = jsonOf(first);
    expect(firstResult.applied).toBeInstanceOf(Array);
    const second = jsonOf(await cli('migrate', '--json'));
    expect(second).toEqual({ applied: [] });

    const database = testDatabase?.database ?? (await openDatabase({ dataDir }));
    try {
      // The live organizations; each has its test twin besides (docs/api.md#test-mode).
      const organizations = await database.db
        .selectFrom('organizations')
        .select('id')
        .where('live_organization_id', 'is', null)
        .execute();
      expect(organizations.map((row) => row.id).sort()).toEqual(
        [utcOrganizationId, berlinOrganizationId, demo.organizationId].sort(),
      );
      // Every migration is recorded, each exactly once.
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(database.db);
      const names = rows.map((row) => row.name);
      expect(new Set(names).size).toBe(names.length);
      // (Compared as a superset: the CLI children load the migration list from disk, which may be newer.)
      expect(names).toEqual(expect.arrayContaining(Object.keys(await migrationProvider.getMigrations())));
    } finally {
      if (!testDatabase) await database.close();
    }
  });
});
