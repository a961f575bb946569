/**
 * Once per browser run, after test/support/global-setup.ts has migrated the run's database: seeds the demo world into
 * a data dir with `patron seed --demo` (the same seeding `serve`'s first start does), which every browser suite's
 * `serve` then copies (test/browser/support.ts). Seeding takes seconds on a quiet machine and over a minute on a busy
 * one; each suite did it for itself before.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { BUILT_CLI, childEnv, ROOT } from '../support/processes.js';

/** The origin the seeded sign-in link names; each suite's copy swaps in its own server's. */
export const SEEDED_ORIGIN = 'http://patron-seeded-demo.invalid';

export interface SeededDemo {
  /** A seeded data dir, to copy: nothing may start on it. */
  dataDir: string;
  key: string;
  testKey: string;
  ownerEmail: string;
  /** The owner's one-time sign-in link on SEEDED_ORIGIN: valid once in each copy. */
  signInLink: string;
  password: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    seededDemo: SeededDemo | undefined;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const migrated = project.getProvidedContext().migratedDatabase;
  // The browser suites run on the embedded engine only; on PostgreSQL they are skipped.
  if (migrated?.engine !== 'pglite') {
    project.provide('seededDemo', undefined);
    return undefined;
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'patron-seeded-demo-'));
  await cp(join(migrated.dataDir, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [BUILT_CLI, 'seed', '--demo', '--json', '--url', SEEDED_ORIGIN],
    { cwd: ROOT, env: childEnv({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), maxBuffer: 16 * 1024 * 1024 },
  );
  const seeded = JSON.parse(stdout) as {
    key: string;
    testKey: string;
    owner: { email: string; signInLink: string; password: string };
  };
  project.provide('seededDemo', {
    dataDir,
    key: seeded.key,
    testKey: seeded.testKey,
    ownerEmail: seeded.owner.email,
    signInLink: seeded.owner.signInLink,
    password: seeded.owner.password,
  });
  return () => rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
