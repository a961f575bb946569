import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app.js';

/**
 * The package as a shop's developer gets it (README.md, "Getting it"): `npm pack` builds the tarball, which installs
 * in an empty project, and the README's first call, run there with node against a running server, answers. The
 * install is offline: the package's dependencies come as tarballs packed from this repository's node_modules (what a
 * registry would serve), so nothing is fetched.
 */
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const rootModules = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

/** `npm pack --json`'s answer, after whatever its prepack script printed. */
const packResult = (stdout: string) =>
  JSON.parse(stdout.slice(stdout.search(/^\[/m))) as { filename: string; files: { path: string }[] }[];

let t: TestApp;
let baseUrl: string;
let tenant: Tenant;
let project: string;

beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  tenant = await t.tenant({ name: 'Corner Shop' });
  project = await mkdtemp(join(tmpdir(), 'patron-client-project-'));
});
afterAll(async () => {
  await t?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the packed client', () => {
  it(
    "installs offline in an empty project, and the README's first call answers there",
    { timeout: 300_000 },
    async () => {
      // prepack builds it first: the types from the committed document, then the compile.
      const packed = packResult((await npm(['pack', '--json', '--pack-destination', project], packageDir)).stdout);
      const files = packed[0]!.files.map((file) => file.path).sort();
      expect(files).toEqual(
        expect.arrayContaining([
          'README.md',
          'package.json',
          'dist/src/index.js',
          'dist/src/index.d.ts',
          'dist/src/browser.js',
          'dist/src/generated/schema.d.ts',
        ]),
      );
      expect(
        files.filter((path) => !path.startsWith('dist/src/') && !['README.md', 'package.json'].includes(path)),
      ).toEqual([]);
      const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
        private?: boolean;
        dependencies: Record<string, string>;
      };
      expect(manifest.private).toBeUndefined();

      const dependencies: string[] = [];
      for (const name of Object.keys(manifest.dependencies)) {
        const [dependency] = packResult(
          (await npm(['pack', '--json', '--pack-destination', project], join(rootModules, name))).stdout,
        );
        dependencies.push(`./${dependency!.filename}`);
      }
      await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'a-shop', private: true, type: 'module' }));
      await npm(['install', '--offline', `./${packed[0]!.filename}`, ...dependencies], project);

      // The README's first block, as a file of the project.
      const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
      const firstCall = /^## A first call\n[\s\S]*?^```js\n([\s\S]*?)^```$/m.exec(readme)?.[1];
      expect(firstCall).toContain("from '@patron/client'");
      await writeFile(join(project, 'first-call.mjs'), firstCall!);
      const answer = await run(process.execPath, ['first-call.mjs'], {
        cwd: project,
        env: { PATH: process.env.PATH, PATRON_URL: baseUrl, PATRON_KEY: tenant.key },
      });
      expect(answer.stdout).toBe(`Signed in to Corner Shop (${tenant.organization.id})\n`);
      expect(answer.stderr).toBe('');
    },
  );
});
