/**
 * The built CLI names a misspelt flag (docs/api.md#the-clis-commands): commander would report the required option it shadows
 * as missing, which sends the operator looking for the wrong mistake.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, childEnv, ROOT } from '../support/processes.js';

// Nothing below reaches a database; an empty data dir makes sure none is touched if one did.
const dataDir = mkdtempSync(join(tmpdir(), 'patron-cli-options-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [BUILT_CLI, ...args], {
    cwd: ROOT,
    env: childEnv({ PATRON_DATA_DIR: dataDir }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('patron with a misspelt or missing flag', () => {
  it('names a misspelt flag as unknown, with the flag it probably meant, not the required option it shadows', () => {
    const run1 = run('org', 'create', '--nmae', 'Acme');
    expect(run1.code).toBe(1);
    expect(run1.stdout).toBe('');
    expect(run1.stderr).toMatch(/^error: unknown option '--nmae'\n\(Did you mean --name\?\)/);
    expect(run1.stderr).not.toContain('required option');

    const run2 = run('user', 'create', '--org', '0196a000-0000-7000-8000-000000000000', '--emial', 'a@b.c');
    expect(run2.code).toBe(1);
    expect(run2.stderr).toMatch(/^error: unknown option '--emial'\n\(Did you mean --email\?\)/);
  });

  it('still reports a required option that is missing, by name, with the usage', () => {
    const missing = run('org', 'create', '--timezone', 'UTC');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: required option '--name <name>' not specified\n/);
    expect(missing.stderr).toContain('Usage: patron org create [options]');
    const seed = run('seed');
    expect(seed.code).toBe(1);
    expect(seed.stderr).toMatch(/^error: required option '--demo' not specified\n/);
  });
});
