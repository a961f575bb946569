/**
 * `patron user …` (docs/api.md#dashboard-sessions) as a real child process, on its own embedded data directory or,
 * with DATABASE_URL, its own PostgreSQL database. Each link it prints signs in once through the API.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import { openDatabase, type Database } from '../../src/db/engine.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createTestDatabase, migratedDataDir, postgresUrl, type TestDatabase } from '../support/database.js';
import { runBuiltCli, type CliRun } from '../support/processes.js';

type Run = CliRun;

let dataDir: string;
let testDatabase: TestDatabase | undefined;
let env: Record<string, string | undefined>;
let organizationId: string;

const cli = (...args: string[]): Promise<Run> => runBuiltCli(env, ...args);

const json = (run: Run) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, any>;
};

/** Signs in with a printed link through an app on the same database (the embedded one is opened only meanwhile). */
async function signInWith(link: string): Promise<number> {
  const token = link.split('#token=')[1]!;
  const database: Database = testDatabase
    ? await openDatabase({ databaseUrl: testDatabase.url!, dataDir: 'memory://' })
    : await openDatabase({ dataDir });
  let runtime: Runtime | undefined;
  try {
    const config = { ...loadConfig({}), logLevel: 'silent', secretKey: 'users-cli-test-secret-key-0123456789abcdef' };
    runtime = await createRuntime(config, { database, limiter: new MemoryRateLimiter(), logger: false });
    const response = await runtime.app.inject({ method: 'POST', url: '/v1/session', payload: { signInToken: token } });
    return response.statusCode;
  } finally {
    await runtime?.close();
    await database.close();
  }
}

beforeAll(async () => {
  dataDir = await migratedDataDir('patron-users-');
  if (postgresUrl) testDatabase = await createTestDatabase();
  env = { PATRON_DATA_DIR: dataDir, DATABASE_URL: testDatabase?.url, LOG_LEVEL: 'warn' };
  organizationId = json(await cli('org', 'create', '--name', 'Users shop', '--json')).id;
}, 120_000);
afterAll(async () => {
  await testDatabase?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('patron user', () => {
  let ownerId: string;

  it('create prints the user and a one-time 24 h sign-in link under PATRON_URL, which signs in once', async () => {
    env = { ...env, PATRON_URL: 'https://patron.example.com/' };
    const text = await cli('user', 'create', '--org', organizationId, '--email', 'Ada@Example.com', '--role', 'owner');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Created user [0-9a-f-]{36} \(Ada@Example\.com, owner\) in organization /);
    const link = /^ {2}(https:\/\/patron\.example\.com\/dashboard\/sign-in#token=[A-Za-z0-9_-]{43})$/m.exec(
      text.stdout,
    );
    expect(link, text.stdout).not.toBeNull();
    expect(text.stdout).toContain('valid 24 hours');
    ownerId = /Created user ([0-9a-f-]{36})/.exec(text.stdout)![1]!;
    expect(await signInWith(link![1]!)).toBe(201);
    expect(await signInWith(link![1]!)).toBe(401);
  }, 120_000);

  it('create --json prints { user, signInLink }; --url wins over PATRON_URL', async () => {
    const created = json(
      await cli(
        'user',
        'create',
        '--org',
        organizationId,
        '--email',
        'bo@example.com',
        '--role',
        'viewer',
        '--name',
        'Bo',
        '--url',
        'http://127.0.0.1:4000',
        '--json',
      ),
    );
    expect(created.user).toMatchObject({ email: 'bo@example.com', role: 'viewer', name: 'Bo', hasPassword: false });
    expect(created.signInLink).toMatch(/^http:\/\/127\.0\.0\.1:4000\/dashboard\/sign-in#token=/);
  }, 120_000);

  it('refuses a taken email (any case), a bad email, an unknown role or organization, with one line and exit 1', async () => {
    const taken = await cli('user', 'create', '--org', organizationId, '--email', 'ADA@example.com', '--role', 'admin');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^patron: A user with this email already exists/);
    const bad = await cli('user', 'create', '--org', organizationId, '--email', 'not-an-email', '--role', 'admin');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not an email address/);
    const role = await cli('user', 'create', '--org', organizationId, '--email', 'cy@example.com', '--role', 'boss');
    expect(role.code).toBe(1);
    expect(role.stderr).toMatch(/Allowed choices are owner, admin, viewer/);
    const org = await cli(
      'user',
      'create',
      '--org',
      '0190a000-0000-7000-8000-000000000000',
      '--email',
      'cy@example.com',
      '--role',
      'admin',
    );
    expect(org.code).toBe(1);
    expect(org.stderr).toMatch(/No organization has the id/);
  }, 120_000);

  it('list shows the users; link prints a fresh link that signs in', async () => {
    const listed = json(await cli('user', 'list', '--org', organizationId, '--json'));
    expect(listed.data.map((user: { email: string }) => user.email)).toEqual(['Ada@Example.com', 'bo@example.com']);
    const text = await cli('user', 'list', '--org', organizationId);
    expect(text.stdout).toMatch(/Ada@Example\.com {2}owner {2}last signed in /);
    const fresh = json(await cli('user', 'link', ownerId, '--json'));
    expect(fresh).toMatchObject({ id: ownerId, email: 'Ada@Example.com', expiresAt: expect.any(String) });
    expect(await signInWith(fresh.signInLink)).toBe(201);
  }, 120_000);

  it('delete removes a user but keeps the last owner', async () => {
    const last = await cli('user', 'delete', ownerId);
    expect(last.code).toBe(1);
    expect(last.stderr).toMatch(/^patron: An organization keeps at least one owner/);
    const bo = json(await cli('user', 'list', '--org', organizationId, '--json')).data[1].id;
    expect(json(await cli('user', 'delete', bo, '--json'))).toEqual({ id: bo, deleted: true });
    const missing = await cli('user', 'delete', bo);
    expect(missing.stderr).toMatch(/No user has the id/);
  }, 120_000);

  it('explains itself in --help', async () => {
    const help = await cli('user', 'create', '--help');
    expect(help.stdout).toContain('--role <role>');
    expect(help.stdout).toContain('one-time sign-in link');
    expect(help.stdout).toContain('patron user link <id>');
  }, 60_000);
});
