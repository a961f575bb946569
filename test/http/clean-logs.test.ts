/**
 * No error-level log line for a request answered 2xx or 3xx (docs/api.md#request-logs): an operator's alert on error
 * lines must not fire on ordinary traffic. The app logs through a captured pino stream and answers real HTTP on
 * loopback (the dashboard's files are streamed, which an injected request does not exercise the same way).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import type { PatronApp } from '../../src/core/types.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { dashboardResource } from '../../src/resources/dashboard/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/webhooks.js';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(20_000))});\n`;

let testDatabase: TestDatabase;
let app: PatronApp;
let dir: string;
let origin: string;
let logged = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'patron-clean-logs-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><html><body>app</body></html>');
  await writeFile(join(dir, 'assets', 'index-Abc123.js'), SCRIPT);
  await writeFile(join(dir, 'assets', 'index-Abc123.js.gz'), gzipSync(SCRIPT));
  await writeFile(join(dir, 'assets', 'index-Abc123.css'), 'body{margin:0}');
  testDatabase = await createTestDatabase();
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logged += String(chunk);
      callback();
    },
  });
  ({ app } = await buildApp({
    config: { ...loadConfig({}), logLevel: 'info', dashboardDir: dir },
    database: testDatabase.database,
    limiter: new MemoryRateLimiter(),
    resources: [organizationResource, dashboardResource],
    logger: { level: 'trace', stream },
  }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  await testDatabase?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const lines = () =>
  logged
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string; statusCode?: number; url?: string });

describe('the log of requests answered 2xx and 3xx', () => {
  it('has no error-level line for the dashboard and its assets', async () => {
    logged = '';
    const requests: [string, RequestInit][] = [
      ['/dashboard/assets/index-Abc123.js', {}],
      ['/dashboard/assets/index-Abc123.js', { headers: { 'accept-encoding': 'gzip' } }],
      ['/dashboard/assets/index-Abc123.js', { headers: { 'accept-encoding': 'identity' } }],
      ['/dashboard/assets/index-Abc123.css', {}],
      ['/dashboard/assets/index-Abc123.js', { method: 'HEAD' }],
      ['/dashboard/assets/index-Abc123.js', { headers: { range: 'bytes=0-99', 'accept-encoding': 'identity' } }],
      ['/dashboard/', {}],
      ['/dashboard/customers', {}],
    ];
    let count = 0;
    for (const [path, init] of requests) {
      const response = await fetch(`${origin}${path}`, init);
      const etag = response.headers.get('etag');
      const lastModified = response.headers.get('last-modified');
      await response.arrayBuffer();
      expect(response.status, path).toBeLessThan(400);
      count++;
      // The browser's revalidation: 304.
      if (etag || lastModified) {
        const again = await fetch(`${origin}${path}`, {
          ...init,
          headers: {
            ...(init.headers as object),
            ...(etag ? { 'if-none-match': etag } : {}),
            ...(lastModified ? { 'if-modified-since': lastModified } : {}),
          },
        });
        await again.arrayBuffer();
        expect(again.status, `${path} again`).toBeLessThan(400);
        count++;
      }
    }
    await until(async () => lines().filter((line) => line.msg === 'request completed').length >= count);
    const errors = lines().filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });
});
