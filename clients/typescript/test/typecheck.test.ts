import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

describe('the client types', () => {
  // Generates the types from the API document, then compiles the client, its examples and test/types.ts, whose
  // `@ts-expect-error` lines must each be refused (an unused one fails the compile). The suites that start the
  // server are typechecked with it, by the root tsconfig.json.
  it('are generated from the document and refuse wrong calls at compile time', { timeout: 240_000 }, async () => {
    await run(process.execPath, ['scripts/generate.mjs'], { cwd: packageDir });
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: packageDir }).catch(
      (error: { stdout: string; stderr: string; code: number }) => error,
    );
    expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
  });
});
