import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import type { PatronApp } from '../../src/core/types.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { dashboardResource } from '../../src/resources/dashboard/index.js';
import { createSignInLink, createUser } from '../../src/auth/accounts.js';
import { createTenant } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const ANY_KEY = /sk_[0-9A-Za-z]{32,}/;

let testDatabase: TestDatabase;
let app: PatronApp;
let key: string;
let keyId: string;
let organizationId: string;
let logged = '';

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logged += String(chunk);
      callback();
    },
  });
  ({ app } = await buildApp({
    config: { ...loadConfig({}), logLevel: 'info' },
    database: testDatabase.database,
    limiter: new MemoryRateLimiter(),
    resources: [organizationResource, dashboardResource],
    logger: { level: 'trace', stream },
  }));
  const tenant = await createTenant(testDatabase.database.db, { name: 'Logged' });
  organizationId = tenant.organization.id;
  ({ key, keyId } = tenant);
});
afterAll(async () => {
  await app?.close();
  await testDatabase?.drop();
});

const linesOf = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('secret keys and the log', () => {
  it('refuses a key in the query string with 401 naming the Authorization header, and logs only its prefix', async () => {
    logged = '';
    const response = await app.inject({ url: `/v1/organization?api_key=${key}` });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('UNAUTHORIZED');
    expect(response.json().error.message).toMatch(/Authorization header/);
    expect(logged).not.toMatch(ANY_KEY);
    expect(logged).toContain(`api_key=${key.slice(0, 11)}…`);
  });

  it('refuses a key in the query string even when the header carries a valid key', async () => {
    const response = await app.inject({
      url: `/v1/organization?token=${key}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.statusCode).toBe(401);
  });

  it('logs no key and no Authorization header, whether the key is valid, unknown or malformed', async () => {
    logged = '';
    const unknown = `sk_${'Z'.repeat(40)}`;
    for (const authorization of [`Bearer ${key}`, `Bearer ${unknown}`, `Bearer ${key}!`, `Basic ${key}`]) {
      await app.inject({ url: '/v1/organization', headers: { authorization } });
    }
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toMatch(ANY_KEY);
    // No header is logged: neither the Authorization header nor any other.
    expect(linesOf(logged).filter((line) => line.req?.headers !== undefined)).toEqual([]);
  });

  it("labels an authenticated request's log lines with its organization and the key's id and prefix", async () => {
    logged = '';
    const response = await app.inject({ url: '/v1/organization', headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode).toBe(200);
    const completed = linesOf(logged).find((line) => line.msg === 'request completed');
    expect(completed).toMatchObject({ organizationId, keyId, keyPrefix: key.slice(0, 11), reqId: expect.any(String) });
    expect(completed).toMatchObject({ method: 'GET', url: '/v1/organization', statusCode: 200 });
    expect(completed.responseTime).toEqual(expect.any(Number));
  });
});

describe('dashboard sessions and the log', () => {
  it("labels a session's lines with the organization and the user, and logs neither cookie nor token", async () => {
    const user = await createUser(testDatabase.database.db, {
      organizationId,
      email: `logged-${Date.now()}@example.com`,
      role: 'viewer',
    });
    const link = await createSignInLink(testDatabase.database.db, user);
    logged = '';
    const signedIn = await app.inject({ method: 'POST', url: '/v1/session', payload: { signInToken: link.token } });
    expect(signedIn.statusCode).toBe(201);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
    const answer = await app.inject({ url: '/v1/organization', headers: { cookie } });
    expect(answer.statusCode).toBe(200);
    const completed = linesOf(logged).filter((line) => line.msg === 'request completed');
    expect(completed.at(-1)).toMatchObject({ organizationId, userId: user.id });
    expect(completed.at(-1).keyId).toBeUndefined();
    expect(logged).not.toContain(cookie.split('=')[1]);
    expect(logged).not.toContain(link.token);
    expect(logged).not.toContain(signedIn.json().csrfToken);
  });
});
