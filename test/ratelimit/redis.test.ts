import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisRateLimiter } from '../../src/ratelimit/redis.js';
import type { BucketSpec } from '../../src/ratelimit/types.js';

const REDIS_URL = process.env.REDIS_URL;
const runPrefix = `patron:rl:test:${randomUUID()}:`;

// Refill so slow (0.001 token/s) that the few hundred milliseconds of a test add < 0.001 token.
const SLOW = 0.001;
const org = (capacity = 600, refillPerSecond = SLOW): BucketSpec => ({ key: 'org:1', capacity, refillPerSecond });
const endpoint = (capacity = 5, refillPerSecond = SLOW): BucketSpec => ({
  key: 'ep:1:loyalty-events',
  capacity,
  refillPerSecond,
});

/** The Redis server's clock (TIME), in milliseconds. */
async function serverMs(redis: Redis): Promise<number> {
  const [seconds, microseconds] = await redis.time();
  return Number(seconds) * 1000 + Number(microseconds) / 1000;
}

async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return calls;
}

describe.skipIf(!REDIS_URL)('RedisRateLimiter', () => {
  let a: Redis;
  let b: Redis;
  let limiter: RedisRateLimiter;
  let prefix: string;

  beforeAll(() => {
    a = new Redis(REDIS_URL!);
    b = new Redis(REDIS_URL!);
  });
  beforeEach(() => {
    prefix = `${runPrefix}${randomUUID()}:`;
    limiter = new RedisRateLimiter(a, { keyPrefix: prefix });
  });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of a.scanStream({ match: `${runPrefix}*`, count: 1000 })) keys.push(...(batch as string[]));
    if (keys.length > 0) await a.del(...keys);
    await limiter.close(); // must leave the shared connection usable
    expect(await a.ping()).toBe('PONG');
    await Promise.all([a.quit(), b.quit()]);
  });

  it("takes a bucket's own cost when it has one: an endpoint bucket counts requests while the org pays the cost", async () => {
    const perRequest: BucketSpec = { ...endpoint(3), cost: 1 };
    for (let i = 0; i < 3; i++) expect((await limiter.charge([org(100), perRequest], 10)).allowed).toBe(true);
    const refused = await limiter.charge([org(100), perRequest], 10);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets.map((bucket) => Math.round(bucket.tokens))).toEqual([70, 0]);
  });

  it('starts an unknown bucket full: 600 of cost 1 allowed, the 601st refused', async () => {
    const startedMs = await serverMs(a);
    const first = await limiter.charge([org()], 1);
    expect(first).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      buckets: [{ key: 'org:1', capacity: 600, tokens: 599, secondsUntilFull: 1000 }],
    });
    for (let i = 0; i < 599; i++) expect((await limiter.charge([org()], 1)).allowed).toBe(true);
    const refused = await limiter.charge([org()], 1);
    // Nothing but the slow refill since the first charge: a fraction of a token however long the 601 charges took on
    // a busy machine (on the Redis server's clock, the one the bucket refills by).
    const refilled = (SLOW * ((await serverMs(a)) - startedMs)) / 1000;
    expect(refused.allowed).toBe(false);
    expect(refused.buckets[0]!.tokens).toBeLessThanOrEqual(refilled);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(Math.floor((1 - refilled) / SLOW));
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(1000);
    expect(refused.buckets[0]!.secondsUntilFull).toBeGreaterThan(599_000);
  });

  it('stores the key under the prefix with a TTL of time-to-full plus a margin', async () => {
    await limiter.charge([org(600, 10)], 100); // 10 s to refill
    const ttl = await a.pttl(`${prefix}org:1`);
    expect(ttl).toBeGreaterThan(10_000);
    expect(ttl).toBeLessThanOrEqual(70_000);
    // an unknown bucket that stays full is never written
    await limiter.charge([{ key: 'org:untouched', capacity: 5, refillPerSecond: 1 }], 0);
    expect(await a.exists(`${prefix}org:untouched`)).toBe(0);
  });

  it('keeps fractional tokens exact across the Lua boundary', async () => {
    const d = await limiter.charge([{ key: 'org:1', capacity: 10, refillPerSecond: 1e-9 }], 2.25);
    expect(d.buckets[0]!.tokens).toBe(7.75);
    const d2 = await limiter.charge([{ key: 'org:1', capacity: 10, refillPerSecond: 1e-9 }], 0.5);
    expect(d2.buckets[0]!.tokens).toBeCloseTo(7.25, 6);
    expect(d2.buckets[0]!.tokens).not.toBe(Math.trunc(d2.buckets[0]!.tokens));
  });

  it('refills continuously with server time, never beyond the ceiling', async () => {
    const fast = org(5, 50);
    for (let i = 0; i < 5; i++) expect((await limiter.charge([fast], 1)).allowed).toBe(true);
    // 7.5 tokens worth of refill: the bucket refills on the Redis server's clock, so that is the clock waited on.
    const emptiedAt = await serverMs(a);
    await vi.waitFor(async () => expect(await serverMs(a)).toBeGreaterThanOrEqual(emptiedAt + 150), { interval: 10 });
    const full = await limiter.charge([fast], 0);
    expect(full.buckets[0]).toEqual({ key: 'org:1', capacity: 5, tokens: 5, secondsUntilFull: 0 });
    const all = await limiter.charge([fast], 5);
    expect(all.allowed).toBe(true);
    expect(all.buckets[0]!.tokens).toBe(0);
  });

  it('rounds retryAfter up, at least 1, and refuses cost above capacity without charging', async () => {
    // A slow refill: at 100/s a loaded machine let a whole token refill between the two calls and the charge passed.
    const spec = org(10, 1);
    await limiter.charge([spec], 10);
    const short = await limiter.charge([spec], 1); // up to 1 token short at 1/s: 1 s to wait
    expect(short.allowed).toBe(false);
    expect(short.retryAfterSeconds).toBe(1);

    const never = await limiter.charge([{ key: 'org:2', capacity: 10, refillPerSecond: 3 }], 11);
    expect(never).toEqual({
      allowed: false,
      retryAfterSeconds: 4, // ceil(10 / 3): time to full
      buckets: [{ key: 'org:2', capacity: 10, tokens: 10, secondsUntilFull: 0 }],
    });

    const cost10 = { key: 'org:3', capacity: 20, refillPerSecond: SLOW };
    expect((await limiter.charge([cost10], 10)).allowed).toBe(true);
    expect((await limiter.charge([cost10], 10)).allowed).toBe(true);
    const d = await limiter.charge([cost10], 10);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(9_999); // 10 tokens at 0.001/s
    expect(d.retryAfterSeconds).toBeLessThanOrEqual(10_000);
  });

  it('charges two buckets atomically: when the second cannot afford it the first is not charged', async () => {
    const both = [org(), endpoint()];
    for (let i = 1; i <= 5; i++) {
      const d = await limiter.charge(both, 1);
      expect(d.allowed).toBe(true);
      expect(d.buckets[0]!.tokens).toBeCloseTo(600 - i, 2);
      expect(d.buckets[1]!.tokens).toBeCloseTo(5 - i, 2);
    }
    const refused = await limiter.charge(both, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(999);
    expect(refused.buckets.map((s) => s.key)).toEqual(['org:1', 'ep:1:loyalty-events']);
    expect(refused.buckets[0]!.tokens).toBeCloseTo(595, 2);
    expect(refused.buckets[1]!.tokens).toBeLessThan(0.01);
    expect((await limiter.charge([org()], 1)).buckets[0]!.tokens).toBeCloseTo(594, 2);
  });

  it('clamps stored tokens when capacity is lowered', async () => {
    await limiter.charge([org()], 100);
    const lowered = await limiter.charge([org(100)], 1);
    expect(lowered.allowed).toBe(true);
    expect(lowered.buckets[0]).toEqual({ key: 'org:1', capacity: 100, tokens: 99, secondsUntilFull: 1000 });
    const raised = await limiter.charge([org(600)], 0);
    expect(raised.buckets[0]!.tokens).toBeCloseTo(99, 2);
  });

  it('is exact under concurrency: 1,000 charges from two connections, capacity 600 -> 600 allowed', async () => {
    const other = new RedisRateLimiter(b, { keyPrefix: prefix });
    const spec = org(600, SLOW);
    const decisions = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? limiter : other).charge([spec], 1)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds >= 1)).toBe(true);
  });

  it('takes exactly one round trip (one EVALSHA) per decision', async () => {
    const both = [org(), endpoint(1000)];
    await limiter.charge(both, 1); // first use on a socket sends EVAL with the script body
    const addr = /addr=(\S+)/.exec(String(await a.call('CLIENT', 'INFO')))![1]!;
    const fromClient: string[] = [];
    const marker = `rl-marker-${randomUUID()}`;
    // MONITOR on a plain socket of its own: ioredis's monitor mode could lose its command queue's state when the
    // stream began under load ("Command queue state error"). Each line is `+<time> [<db> <addr>] "<cmd>" "<arg>"…`.
    const monitor = await openMonitor(REDIS_URL!);
    let markerSeen!: () => void;
    const seen = new Promise<void>((resolve) => (markerSeen = resolve));
    monitor.onLine((line) => {
      const match = /^\+\S+ \[\d+ (\S+)\] "([^"]*)"(?: "([^"]*)")?/.exec(line);
      if (!match) return;
      if (match[1] === addr) fromClient.push(match[2]!.toLowerCase());
      if (match[3] === marker) markerSeen();
    });
    try {
      const before = await commandCalls(b);
      for (let i = 0; i < 100; i++) await limiter.charge(both, 1);
      const after = await commandCalls(b);
      await b.echo(marker); // MONITOR streams in execution order: once this shows, all is in
      await seen;

      expect(fromClient).toEqual(Array(100).fill('evalsha'));
      const delta = (cmd: string) => (after.get(cmd) ?? 0) - (before.get(cmd) ?? 0);
      // commandstats is server-wide, so other clients could only add to it.
      expect(delta('evalsha') + delta('eval')).toBeGreaterThanOrEqual(100);
    } finally {
      monitor.close();
    }
  });
});

/** A MONITOR stream on its own connection, read line by line; resolves once Redis has said OK to MONITOR. */
async function openMonitor(url: string): Promise<{ onLine(handle: (line: string) => void): void; close(): void }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port || 6379) });
  socket.setEncoding('utf8');
  let handle: (line: string) => void = () => {};
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (line === '+OK') resolve();
        else handle(line);
      }
    });
    socket.write('MONITOR\r\n');
  });
  return { onLine: (next) => (handle = next), close: () => socket.destroy() };
}
