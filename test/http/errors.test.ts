import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { openDatabase } from '../../src/db/engine.js';
import { buildApp, MAX_BODY_DEPTH } from '../../src/http/app.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource, type ProbeState } from '../support/probe-resource.js';

let t: TestApp;
let tenant: Tenant;
const state: ProbeState = { handled: 0, failNext: false };

beforeAll(async () => {
  t = await startTestApp({ resources: [organizationResource, probeResource(state)] });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const envelope = (code: string) => ({ error: expect.objectContaining({ code, message: expect.any(String) }) });

describe('D3/D4 errors', () => {
  it('answers an unknown route with NOT_FOUND, with or without a key', async () => {
    for (const key of [undefined, tenant.key]) {
      const response = await t.request({ method: 'POST', url: '/v1/no-such-thing', key });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(envelope('NOT_FOUND'));
    }
  });

  it('answers a path that is not valid percent-encoding, or an over-long path parameter, with VALIDATION_ERROR', async () => {
    // Both are refused by the router before any hook: Fastify's own answers were a bare 400 and a 414.
    for (const url of ['/v1/probe/things/%E0%A4%A', `/v1/probe/things/${'a'.repeat(101)}`]) {
      const response = await t.request({ url, key: tenant.key });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.any(String),
          details: [{ path: 'path', message: expect.any(String) }],
        },
      });
      expect(response.headers['x-request-id']).toBeTruthy();
    }
    const justShorter = await t.request({ url: `/v1/probe/things/${'a'.repeat(100)}`, key: tenant.key });
    expect(justShorter.statusCode).toBe(400);
    expect(justShorter.json().error.details[0].path).toBe('path.id');
  });

  it('refuses malformed JSON with VALIDATION_ERROR and runs nothing', async () => {
    const before = state.handled;
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(envelope('VALIDATION_ERROR'));
    expect(response.json().error.message).toMatch(/not valid JSON/);
    expect(state.handled).toBe(before);
  });

  it('refuses half a surrogate pair in a JSON string, and runs nothing', async () => {
    // Found by the bad-input fuzzer: in a jsonb value (metadata) PostgreSQL refused it with a 500; in text the
    // driver would have stored U+FFFD instead of what was sent.
    const before = state.handled;
    for (const body of ['{"name":"a\\ud800"}', '{"name":"\\udc00b"}', '{"name":"x","\\ud83d":"y"}']) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/probe/things',
        key: tenant.key,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode, body).toBe(400);
      expect(response.json()).toEqual(envelope('VALIDATION_ERROR'));
    }
    expect(state.handled).toBe(before);
    // A whole pair is text like any other.
    const paired = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: '{"name":"\\ud83d\\ude00"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(paired.statusCode).toBe(201);
    expect(paired.json().name).toBe('😀');
  });

  it(`refuses a body nested more than ${MAX_BODY_DEPTH} levels deep, and runs nothing`, async () => {
    const nested = (depth: number) => `{"name":"x","count":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const before = state.handled;
    const tooDeep = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: nested(MAX_BODY_DEPTH + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().error.message).toMatch(/nested more than 64 levels/);
    // At the limit the body is parsed and validated like any other (count is not an array).
    const atLimit = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: nested(MAX_BODY_DEPTH),
      headers: { 'content-type': 'application/json' },
    });
    expect(atLimit.statusCode).toBe(400);
    expect(atLimit.json().error.details).toEqual([{ path: 'body.count', message: 'must be an integer' }]);
    expect(state.handled).toBe(before);
  });

  it('refuses prototype pollution in JSON', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: '{"name":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a body that is not JSON with UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/probe/things',
        key: tenant.key,
        body: 'name=x',
        headers: { 'content-type': contentType },
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual(envelope('UNSUPPORTED_MEDIA_TYPE'));
    }
  });

  it('refuses a body over 10 MiB with PAYLOAD_TOO_LARGE', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) });
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(envelope('PAYLOAD_TOO_LARGE'));
    expect(response.json().error.message).toContain('10 MiB');
  });

  it('names unknown body fields, missing fields and wrong types in details', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: { count: 'three', colour: 'red' },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: 'body.colour', message: 'is not a known field' },
        { path: 'body.name', message: 'is required' },
        { path: 'body.count', message: 'must be an integer' },
      ]),
    );
    expect(error.message).toMatch(/^Invalid request: body\./);
  });

  it('never coerces body types: "1" is not an integer', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: { name: 'x', count: '1' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([{ path: 'body.count', message: 'must be an integer' }]);
  });

  it('refuses unknown query parameters, even on routes that take none', async () => {
    const none = await t.request({ url: '/v1/organization?expand=all', key: tenant.key });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details).toEqual([{ path: 'query.expand', message: 'is not a known field' }]);
    const some = await t.request({ url: '/v1/probe?limit=5&sort=x', key: tenant.key });
    expect(some.statusCode).toBe(400);
    expect(some.json().error.details).toEqual([{ path: 'query.sort', message: 'is not a known field' }]);
  });

  it('checks query values: range, type, and timestamps without an offset', async () => {
    expect((await t.request({ url: '/v1/probe?limit=5', key: tenant.key })).json()).toEqual({ ok: true, limit: 5 });
    for (const query of ['limit=0', 'limit=251', 'limit=abc', 'limit=1.5', 'limit=99999999999999999999']) {
      const response = await t.request({ url: `/v1/probe?${query}`, key: tenant.key });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.details[0].path).toBe('query.limit');
    }
    const noOffset = await t.request({ url: '/v1/probe?at=2026-01-01T10:00:00', key: tenant.key });
    expect(noOffset.statusCode).toBe(400);
    expect(noOffset.json().error.details[0]).toEqual({
      path: 'query.at',
      message: expect.stringMatching(/time-zone offset/),
    });
    const withOffset = await t.request({ url: '/v1/probe?at=2026-01-01T10:00:00%2B02:00', key: tenant.key });
    expect(withOffset.statusCode).toBe(200);
  });

  it('refuses date-times that cannot be stored: a leap second, year 0, past year 9999 (UTC), over 40 characters', async () => {
    // Found by the bad-input fuzzer: RFC 3339 allows them, and they failed later with a 500 (Invalid Date in
    // JavaScript, "out of range" in PostgreSQL).
    for (const at of [
      '2016-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:30:00%2B01:00',
      '9999-12-31T23:00:00-05:00',
      // Longer than the documented 40 characters (a fraction of 20 digits).
      '2026-06-30T23:59:59.12345678901234567890Z',
    ]) {
      const response = await t.request({ url: `/v1/probe?at=${at}`, key: tenant.key });
      expect(response.statusCode, at).toBe(400);
      expect(response.json().error.details[0]).toEqual({
        path: 'query.at',
        message: expect.stringMatching(/0001 to 9999/),
      });
    }
    for (const at of [
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2026-06-30T23:59:59.123456789Z',
      '2026-06-30T23:59:59.123456789%2B05:30',
    ]) {
      expect((await t.request({ url: `/v1/probe?at=${at}`, key: tenant.key })).statusCode, at).toBe(200);
    }
  });

  it('accepts an empty body sent with a JSON content type on routes that take none', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/loyalty-events',
      key: tenant.key,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers an unexpected exception with INTERNAL_ERROR, the request id and no internals', async () => {
    const response = await t.request({ url: '/v1/probe/boom', key: tenant.key });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(body).toEqual(envelope('INTERNAL_ERROR'));
    expect(body.error.message).toContain(response.headers['x-request-id']);
    expect(response.body).not.toMatch(/secret_table|SELECT|at .*\.ts|stack/i);
  });
});

describe('a write referring to a record that is gone', () => {
  it('answers 409 CONFLICT (a foreign key refused it), not an internal error', async () => {
    const response = await t.request({ method: 'POST', url: '/v1/probe/dangling', key: tenant.key });
    expect(response.statusCode, response.body).toBe(409);
    expect(response.json()).toEqual(envelope('CONFLICT'));
    expect(response.json().error.message).toMatch(/no longer exists/);
  });
});

describe('database unavailable', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, and /readyz says not ready', async () => {
    // A real connection attempt to a port where nothing listens: the pool reports ECONNREFUSED.
    const database = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: 'memory://' });
    const config = { ...loadConfig({}), logLevel: 'silent' };
    const { app } = await buildApp({
      config,
      database,
      limiter: new MemoryRateLimiter(),
      resources: [organizationResource],
      logger: false,
    });
    try {
      const response = await app.inject({
        url: '/v1/organization',
        headers: { authorization: `Bearer sk_${'B'.repeat(40)}` },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual(envelope('SERVICE_UNAVAILABLE'));
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const ready = await app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('text PostgreSQL cannot store', () => {
  it('answers a NUL character in a body with VALIDATION_ERROR and writes nothing', async () => {
    const before = await t.testDatabase.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: { name: 'a\u0000b' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/NUL/),
      details: [{ path: 'body', message: expect.any(String) }],
    });
    const after = await t.testDatabase.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
