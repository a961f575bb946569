/**
 * `patron audit` and the audit entries CLI changes leave (docs/api.md#audit-log), as a real child process on its own
 * embedded data directory or, with DATABASE_URL, its own PostgreSQL database.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  dataDir = await migratedDataDir('patron-audit-');
  if (postgresUrl) testDatabase = await createTestDatabase();
  env = { PATRON_DATA_DIR: dataDir, DATABASE_URL: testDatabase?.url, LOG_LEVEL: 'warn' };
  organizationId = json(await cli('org', 'create', '--name', 'Audit shop', '--json')).id;
}, 120_000);
afterAll(async () => {
  await testDatabase?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('patron audit', () => {
  it('says so when an organization has no entries', async () => {
    const run = await cli('audit', '--org', organizationId);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('This organization has no audit log entries.\n');
  });

  it('prints the changes CLI commands made, newest first, as actor cli, never the key', async () => {
    const key = json(await cli('key', 'create', '--org', organizationId, '--permissions', 'all', '--json'));
    json(await cli('key', 'revoke', key.id, '--json'));
    json(
      await cli('user', 'create', '--org', organizationId, '--email', 'ada@example.com', '--role', 'owner', '--json'),
    );

    const table = await cli('audit', '--org', organizationId);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHEN \(UTC\)\s+WHO\s+WHAT\s+RESULT\s+REQUEST ID$/);
    expect(lines.slice(1).map((line) => /CLI patron [a-z]+ [a-z]+/.exec(line)?.[0])).toEqual([
      'CLI patron user create',
      'CLI patron key revoke',
      'CLI patron key create',
    ]);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+cli/);
    expect(table.stdout).not.toContain(key.key);

    const listed = json(await cli('audit', '--org', organizationId, '--json', '--limit', '2'));
    expect(listed.data).toHaveLength(2);
    expect(listed.data[1]).toMatchObject({
      actor: { type: 'cli', id: null },
      method: 'CLI',
      path: 'patron key revoke',
      status: 200,
      resourceType: 'keys',
      resourceId: key.id,
    });
    expect(JSON.stringify(listed)).not.toContain(key.key);
  }, 120_000);

  it('refuses a bad --limit or --org naming it', async () => {
    const limit = await cli('audit', '--org', organizationId, '--limit', '0');
    expect(limit.code).not.toBe(0);
    expect(limit.stderr).toContain("option '--limit <n>' argument '0' is invalid");
    const org = await cli('audit', '--org', 'nope');
    expect(org.code).not.toBe(0);
    expect(org.stderr).toContain('--org');
  });
});
