/**
 * `patron --version` prints package.json's version, whether the CLI runs from the sources (tsx) or from the build
 * (dist/, what `npm start` and the package's bin run).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, CLI, ROOT } from '../support/processes.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const BUILT_CLI = join(ROOT, 'dist/src/cli/main.js');

function run(args: string[]) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env: childEnv({}), encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('patron --version', () => {
  it('prints the package version alone, from the sources', () => {
    for (const flag of ['--version', '-V']) {
      expect(run(['--import', 'tsx', CLI, flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it.skipIf(!existsSync(join(ROOT, 'dist/src/cli/version.js')))('prints the package version from the build', () => {
    expect(run([BUILT_CLI, '--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('is listed by --help', () => {
    expect(run([BUILT_CLI, '--help']).stdout).toMatch(/-V, --version\s+print the version/);
  });
});
