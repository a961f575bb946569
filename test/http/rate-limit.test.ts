import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { probeResource, type ProbeState } from '../support/probe-resource.js';

// The HTTP layer is driven on a fake clock so every count is exact; the Redis implementation is proven
// exact by test/ratelimit/redis.test.ts and across processes by test/ratelimit/multiprocess.test.ts.
let now = 1_000_000;
let t: TestApp;
const state: ProbeState = { handled: 0, failNext: false };

beforeAll(async () => {
  t = await startTestApp({
    resources: [organizationResource, probeResource(state)],
    limiter: new MemoryRateLimiter({ now: () => now, sweepIntervalMs: 0 }),
  });
});
afterAll(() => t.close());
beforeEach(() => {
  now += 3_600_000; // every bucket is idle, hence full, at the start of each test
});

const get = (url: string, key: string) => t.request({ url, key });
const remaining = (response: { headers: Record<string, unknown> }) =>
  Number(/r=(\d+)/.exec(String(response.headers['ratelimit']))?.[1]);

async function spend(url: string, key: string, times: number) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await get(url, key)).statusCode);
  return statuses;
}

describe('organization bucket', () => {
  it('allows a burst of exactly 600 cost-1 requests, then 429 with Retry-After and the envelope', async () => {
    const { key } = await t.tenant();
    const statuses = await spend('/v1/probe', key, 600);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await get('/v1/probe', key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/Retry in 1 second/) },
    });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit']).toBe('"org";r=0;t=60');
    expect(refused.headers['ratelimit-policy']).toBe('"org";q=600;w=60');
  });

  it('refills continuously at ceiling/60 per second', async () => {
    const { key } = await t.tenant();
    await spend('/v1/probe', key, 600);
    now += 100; // 10 tokens/s → exactly one token
    expect((await get('/v1/probe', key)).statusCode).toBe(200);
    expect((await get('/v1/probe', key)).statusCode).toBe(429);
    now += 1_000;
    expect(await spend('/v1/probe', key, 11)).toEqual([...Array(10).fill(200), 429]);
  });

  it('charges 5 and 10 tokens for costlier routes and rounds Retry-After up', async () => {
    const { key } = await t.tenant();
    const first = await get('/v1/probe/cost10', key);
    expect(remaining(first)).toBe(590);
    expect(remaining(await get('/v1/probe/cost5', key))).toBe(585);
    await spend('/v1/probe/cost10', key, 58); // 585 - 580 = 5 left
    expect(remaining(await get('/v1/probe/cost5', key))).toBe(0);
    const refused = await get('/v1/probe/cost10', key);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1'); // 10 tokens at 10/s
    now += 1_050;
    expect((await get('/v1/probe/cost10', key)).statusCode).toBe(200);
    expect(refused.json().error.message).toMatch(/costs 10 tokens/);
  });

  it('uses the plan ceiling stored on the organization', async () => {
    const { key } = await t.tenant({ apiRequestsPerMinute: 60 });
    expect(await spend('/v1/probe', key, 61)).toEqual([...Array(60).fill(200), 429]);
    const refused = await get('/v1/probe/cost10', key);
    expect(refused.headers['retry-after']).toBe('10'); // 10 tokens at 1/s
    expect(refused.headers['ratelimit-policy']).toBe('"org";q=60;w=60');
  });

  it('is per organization, shared by all its keys', async () => {
    const a = await t.tenant({ apiRequestsPerMinute: 10 });
    const secondKeyOfA = await t.key(a.organization.id);
    const b = await t.tenant({ apiRequestsPerMinute: 10 });
    expect(await spend('/v1/probe', a.key, 5)).toEqual(Array(5).fill(200));
    expect(await spend('/v1/probe', secondKeyOfA, 6)).toEqual([...Array(5).fill(200), 429]);
    expect(await spend('/v1/probe', b.key, 10)).toEqual(Array(10).fill(200));
  });

  it('reports whole tokens left and seconds until full on every answer to a valid key', async () => {
    const { key } = await t.tenant();
    const response = await get('/v1/organization', key);
    expect(response.headers['ratelimit']).toBe('"org";r=599;t=1');
    await spend('/v1/probe/cost10', key, 30);
    expect((await get('/v1/organization', key)).headers['ratelimit']).toBe('"org";r=298;t=31');
  });
});

describe('charging order (D14)', () => {
  it('charges nothing for a 401', async () => {
    const { key } = await t.tenant({ apiRequestsPerMinute: 10 });
    for (let i = 0; i < 20; i++) expect((await get('/v1/probe', `${key}x`)).statusCode).toBe(401);
    expect(remaining(await get('/v1/probe', key))).toBe(9);
  });

  it('charges a 403, a 400 and a 404 like any other request', async () => {
    const { organization, key } = await t.tenant({ apiRequestsPerMinute: 10 });
    const narrow = await t.key(organization.id, ['orders:read']);
    expect((await get('/v1/probe', narrow)).statusCode).toBe(403);
    expect((await get('/v1/probe?limit=0', key)).statusCode).toBe(400);
    const last = await get('/v1/probe', key);
    expect(remaining(last)).toBe(7);
  });

  it('runs nothing once refused: no validation, no permission check, no handler', async () => {
    const { organization, key } = await t.tenant({ apiRequestsPerMinute: 10 });
    await spend('/v1/probe', key, 10);
    const before = state.handled;
    const narrow = await t.key(organization.id, ['orders:read']);
    expect((await get('/v1/probe?limit=0', key)).statusCode).toBe(429);
    expect((await get('/v1/probe', narrow)).statusCode).toBe(429);
    expect((await get('/v1/probe', key)).statusCode).toBe(429);
    expect(state.handled).toBe(before);
  });
});

describe('per-endpoint buckets', () => {
  const post = (key: string) => t.request({ method: 'POST', url: '/v1/probe/loyalty-events', key });

  it('allows 120 then refuses, at 2 per second, while the organization bucket still has tokens', async () => {
    const { key } = await t.tenant();
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await post(key)).statusCode);
    expect(statuses).toEqual([...Array(120).fill(200), 429]);
    const refused = await post(key);
    expect(refused.json().error.message).toMatch(/endpoint "loyalty-events"/);
    expect(refused.headers['retry-after']).toBe('1');
    now += 500; // 2/s → one token
    expect((await post(key)).statusCode).toBe(200);
    expect((await post(key)).statusCode).toBe(429);
    // Other endpoints still work: the organization bucket has 600 - 121 tokens.
    expect((await get('/v1/probe', key)).statusCode).toBe(200);
  });

  it('charges both buckets or neither: an endpoint refusal leaves the organization bucket untouched', async () => {
    const { key } = await t.tenant();
    for (let i = 0; i < 120; i++) await post(key);
    for (let i = 0; i < 5; i++) expect((await post(key)).statusCode).toBe(429);
    // 600 - 120 spent by the allowed calls - 1 for this GET; the five refusals spent nothing.
    expect(remaining(await get('/v1/organization', key))).toBe(479);
  });

  it('applies the organization bucket to endpoint-bucket routes too', async () => {
    const { key } = await t.tenant({ apiRequestsPerMinute: 10 });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await post(key)).statusCode);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect((await post(key)).json().error.message).toMatch(/for this organization/);
  });
});
