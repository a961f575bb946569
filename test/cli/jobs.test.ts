/**
 * `patron jobs run` (src/cli/jobs.ts) as a real child process on an embedded data directory of its own (a copy of the
 * run's migrated one), or a PostgreSQL database of its own when DATABASE_URL is set.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, migratedDataDir, type TestDatabase } from '../support/database.js';
import { BUILT_CLI } from '../support/processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'PATRON_DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'LOG_LEVEL',
  'PATRON_SECRET_KEY',
];

let dataDir: string;
let testDatabase: TestDatabase | undefined;
let env: Record<string, string>;
beforeAll(async () => {
  dataDir = await migratedDataDir('patron-jobs-cli-');
  if (process.env.DATABASE_URL) {
    testDatabase = await createTestDatabase();
    await testDatabase.database.close();
    env = { DATABASE_URL: testDatabase.url!, PATRON_DATA_DIR: dataDir };
  } else {
    env = { PATRON_DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  await testDatabase?.drop().catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of CONFIG_VARIABLES) if (name !== 'LOG_LEVEL') delete base[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: { ...base, ...env },
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

describe('patron jobs run', () => {
  it('runs the overnight job for one organization at the given time and prints its outcome', async () => {
    const created = await cli(['org', 'create', '--name', 'Night shop', '--timezone', 'Europe/Berlin', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };

    const run = await cli(['jobs', 'run', 'loyalty.overnight', '--org', id, '--now', '2026-01-01T03:00:00+01:00']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      name: 'loyalty.overnight',
      organizationId: id,
      runKey: 'manual:2026-01-01T02:00:00.000Z',
      status: 'succeeded',
      error: null,
      result: { rewardsExpired: 0, pointsExpired: 0, rewardsExpiringSoon: 0, pointsExpiringSoon: 0, tiersReviewed: 0 },
    });

    const badTime = await cli(['jobs', 'run', 'loyalty.overnight', '--org', id, '--now', '2026-01-01T03:00:00']);
    expect(badTime.code).toBe(1);
    expect(badTime.stderr).toContain('--now must be an ISO 8601 timestamp with an offset');
    const unknownJob = await cli(['jobs', 'run', 'nightly', '--org', id]);
    expect(unknownJob.code).toBe(1);
    expect(unknownJob.stderr).toContain('No job is named nightly');
  }, 120_000);
});
