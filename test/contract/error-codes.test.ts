import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, STATUS_OF } from '../../src/core/errors.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { ROOT } from '../support/processes.js';

/**
 * The envelope's `code` is an enum of every code the server answers (docs/api.md#error-envelope), and the headers the
 * document marks required are on the error answers too (docs/api.md#the-openapi-document).
 */
type Json = Record<string, any>;
let t: TestApp;
let tenant: Tenant;
let document: Json;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
  document = (await t.request({ url: '/openapi.json' })).json();
});
afterAll(() => t.close());

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('error codes', () => {
  it('the document lists every code of the registry, and nothing else', () => {
    const code = document.components.schemas.ErrorEnvelope.properties.error.properties.code;
    expect(code).toMatchObject({ type: 'string', enum: Object.keys(STATUS_OF) });
    expect(ERROR_CODES).toEqual(Object.keys(STATUS_OF));
  });

  it('every code the source gives an error is in the registry (a code outside it would not compile either)', async () => {
    const found = new Set<string>();
    // `new ApiError('CODE'`, and the status → code table of the error handler: the two ways an answer gets a code.
    const given = /ApiError\(\s*'([A-Z_]+)'|^\s+\d{3}: '([A-Z_]+)',$/gm;
    for (const file of await sources(join(ROOT, 'src'))) {
      for (const match of (await readFile(file, 'utf8')).matchAll(given)) found.add((match[1] ?? match[2])!);
    }
    expect(found.size).toBeGreaterThanOrEqual(10);
    expect([...found].filter((code) => !(code in STATUS_OF))).toEqual([]);
  });

  it("every documented error response's example names a code of the enum with that status", () => {
    let checked = 0;
    for (const methods of Object.values(document.paths as Record<string, Json>))
      for (const operation of Object.values(methods))
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          const example = response.content?.['application/json']?.example;
          if (!/^[45]/.test(status) || !example) continue;
          expect(STATUS_OF[example.error.code as keyof typeof STATUS_OF], `${operation.operationId} ${status}`).toBe(
            Number(status),
          );
          checked += 1;
        }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('required headers on error answers to a valid key', () => {
  it('X-Request-Id, RateLimit and RateLimit-Policy on 400, 403, 404 and 415 alike', async () => {
    const reader = await t.tenant({ permissions: ['customers:read'] });
    const answers = [
      await t.request({ url: '/v1/customers?limit=0', key: tenant.key }),
      await t.request({ method: 'POST', url: '/v1/sites', key: reader.key, body: { name: 'x' } }),
      await t.request({ url: '/v1/customers/0192f1a0-0000-7000-8000-000000000000', key: tenant.key }),
      await t.request({
        method: 'POST',
        url: '/v1/sites',
        key: tenant.key,
        headers: { 'content-type': 'text/plain' },
        body: 'name=x',
      }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 403, 404, 415]);
    for (const answer of answers) {
      expect(answer.json().error.code).toBe(
        Object.entries(STATUS_OF).find(([, status]) => status === answer.statusCode)![0],
      );
      for (const name of ['x-request-id', 'ratelimit', 'ratelimit-policy'])
        expect(answer.headers[name], `${answer.statusCode} ${name}`).toBeDefined();
    }
  });
});
