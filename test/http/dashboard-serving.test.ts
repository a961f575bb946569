/**
 * The dashboard as the server serves it (docs/dashboard.md#serving): a built dashboard in a temporary directory
 * stands in for dashboard/dist, so this runs without building the real one.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../../src/http/dashboard.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

const INDEX = '<!doctype html><html lang="en"><head><title>Patron dashboard</title></head><body>app</body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});\n`;
const ASSET = '/dashboard/assets/index-Abc123.js';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'patron-dashboard-'));
  await mkdir(join(dir, 'assets'));
  await mkdir(join(dir, '.vite'));
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'assets', 'index-Abc123.js'), SCRIPT);
  await writeFile(join(dir, 'assets', 'index-Abc123.js.gz'), gzipSync(SCRIPT));
  await writeFile(join(dir, 'assets', 'index-Abc123.css'), 'body{margin:0}');
  await writeFile(join(dir, '.vite', 'manifest.json'), '{}');
  t = await startTestApp({ resources: [organizationResource], config: { dashboardDir: dir } });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The headers every /dashboard answer carries, whatever its status. */
function expectDashboardHeaders(response: { headers: Record<string, unknown> }): void {
  expect(response.headers['content-security-policy']).toBe(DASHBOARD_CSP);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

describe('serving the built dashboard at /dashboard', () => {
  it('answers with exactly the Content Security Policy of the dashboard contract', () => {
    expect(DASHBOARD_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
  });

  it('answers index.html, never cached, for /dashboard and every path of the app that is not a file', async () => {
    for (const url of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/index.html',
      '/dashboard/sign-in',
      '/dashboard/customers/0190f3c2-6b1e-7cc0-8000-000000000000?tab=orders',
      '/dashboard/settings/',
    ]) {
      const response = await t.request({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.body, url).toBe(INDEX);
      expectDashboardHeaders(response);
    }
  });

  it('serves hashed assets cached for a year as immutable, gzipped when the client takes gzip', async () => {
    const plain = await t.request({ url: ASSET });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expectDashboardHeaders(plain);

    const gzipped = await t.request({ url: ASSET, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(gzipped.statusCode).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(gzipped.headers['vary']).toMatch(/accept-encoding/i);
    expect(gzipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(SCRIPT);

    // Without a .gz beside it, the file itself.
    const css = await t.request({ url: '/dashboard/assets/index-Abc123.css', headers: { 'accept-encoding': 'gzip' } });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.body).toBe('body{margin:0}');
  });

  it('revalidates with the ETag (304)', async () => {
    const first = await t.request({ url: ASSET });
    const again = await t.request({ url: ASSET, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await t.request({ method: 'HEAD', url: '/dashboard/sign-in' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toBe('');
  });

  it('answers 404 for a missing file (an asset of another build), not the app', async () => {
    for (const url of [
      '/dashboard/assets/index-Old999.js',
      '/dashboard/assets/missing.css',
      '/dashboard/favicon.ico',
      '/dashboard/.vite/manifest.json',
      '/dashboard/assets/..%2f..%2fpackage.json',
    ]) {
      const response = await t.request({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toEqual({ error: { code: 'NOT_FOUND', message: 'The file was not found.' } });
      expectDashboardHeaders(response);
    }
  });

  it('never serves a file outside the built directory', async () => {
    for (const url of [
      '/dashboard/%2e%2e/package.json',
      '/dashboard/..%2fpackage.json',
      '/dashboard/assets/%2e%2e/%2e%2e/x.js',
    ]) {
      const response = await t.request({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('"workspaces"');
    }
  });

  it('leaves the API and the other pages alone', async () => {
    const api = await t.request({ url: '/v1/organization' });
    expect(api.statusCode).toBe(401);
    expect(api.headers['content-security-policy']).toBeUndefined();
    const elsewhere = await t.request({ url: '/dashboards' });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.headers['content-security-policy']).toBeUndefined();
  });

  it('answers 503 with a page saying to run `npm run build` while the dashboard is not built', async () => {
    await rm(join(dir, 'index.html'));
    try {
      for (const url of ['/dashboard', '/dashboard/sign-in', ASSET]) {
        const response = await t.request({ url });
        expect(response.statusCode, url).toBe(503);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.body).toContain('The dashboard is not built');
        expect(response.body).toContain('<code>npm run build</code>');
        expectDashboardHeaders(response);
      }
    } finally {
      await writeFile(join(dir, 'index.html'), INDEX);
    }
    // Built while the server runs: served from the next request on, no restart.
    expect((await t.request({ url: '/dashboard' })).statusCode).toBe(200);
  });
});
