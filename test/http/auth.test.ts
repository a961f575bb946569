import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/auth/keys.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource } from '../support/probe-resource.js';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ resources: [organizationResource, probeResource()] });
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('authentication (401)', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a scheme other than Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { authorization: 'Bearer ' }],
    ['a key without the sk_ prefix', { authorization: 'Bearer pk_0123456789012345678901234567890123' }],
    ['a key that is too short', { authorization: 'Bearer sk_short' }],
    ['a well-formed key nobody issued', { authorization: `Bearer sk_${'A'.repeat(40)}` }],
  ];
  it.each(cases)('refuses %s with the UNAUTHORIZED envelope', async (_name, headers) => {
    const response = await t.request({ url: '/v1/organization', headers });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(response.headers['x-request-id']).toBeTruthy();
    // A 401 is answered before the rate limit: it carries no bucket headers.
    expect(response.headers['ratelimit']).toBeUndefined();
  });

  it('accepts the scheme case-insensitively', async () => {
    const response = await t.request({ url: '/v1/organization', headers: { authorization: `bearer ${tenant.key}` } });
    expect(response.statusCode).toBe(200);
  });

  it('refuses a revoked key at once', async () => {
    const own = await t.tenant();
    expect((await t.request({ url: '/v1/organization', key: own.key })).statusCode).toBe(200);
    const [row] = await t.testDatabase.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', own.organization.id)
      .execute();
    await revokeKey(t.testDatabase.database.db, row!.id);
    const response = await t.request({ url: '/v1/organization', key: own.key });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toMatch(/revoked/);
  });

  it('stores only a hash of the key', async () => {
    const rows = await t.testDatabase.database.db.selectFrom('api_keys').selectAll().execute();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(tenant.key);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash) && row.prefix.length < 16)).toBe(true);
  });
});

describe('permissions (403)', () => {
  it('names the missing permission', async () => {
    const reader = await t.key(tenant.organization.id, ['orders:read']);
    const response = await t.request({ url: '/v1/probe', key: reader });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: { code: 'FORBIDDEN', message: expect.stringContaining('"products:read"') },
    });
  });

  it('lets a key with the permission through, and "all" grants everything', async () => {
    const reader = await t.key(tenant.organization.id, ['products:read']);
    expect((await t.request({ url: '/v1/probe', key: reader })).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/probe', key: tenant.key })).statusCode).toBe(200);
  });

  it('serves permission "any" routes to any valid key', async () => {
    const narrow = await t.key(tenant.organization.id, ['webhooks:read']);
    const response = await t.request({ url: '/v1/organization', key: narrow });
    expect(response.statusCode).toBe(200);
    expect(response.json().id).toBe(tenant.organization.id);
  });

  it('checks the permission before validating the request (D14)', async () => {
    const reader = await t.key(tenant.organization.id, ['orders:read']);
    const response = await t.request({ url: '/v1/probe?limit=abc', key: reader });
    expect(response.statusCode).toBe(403);
  });
});

describe('request ids', () => {
  it('puts X-Request-Id on every response, success or error, inside /v1 or not', async () => {
    const responses = await Promise.all([
      t.request({ url: '/v1/organization', key: tenant.key }),
      t.request({ url: '/v1/organization' }),
      t.request({ url: '/v1/nowhere' }),
      t.request({ url: '/healthz' }),
      t.request({ url: '/openapi.json' }),
    ]);
    const ids = responses.map((response) => response.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const echoed = await t.request({ url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await t.request({ url: '/healthz', headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
