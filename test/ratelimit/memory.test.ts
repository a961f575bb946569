import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { BucketSpec } from '../../src/ratelimit/types.js';

const org = (capacity = 600, refillPerSecond = 10): BucketSpec => ({ key: 'org:1', capacity, refillPerSecond });
const endpoint = (capacity = 5, refillPerSecond = 1): BucketSpec => ({
  key: 'ep:1:loyalty-events',
  capacity,
  refillPerSecond,
});

describe('MemoryRateLimiter', () => {
  let now: number;
  let limiter: MemoryRateLimiter;

  beforeEach(() => {
    now = 0;
    limiter = new MemoryRateLimiter({ now: () => now });
  });
  afterEach(async () => {
    await limiter.close();
  });

  async function drain(spec: BucketSpec, times: number, cost = 1): Promise<void> {
    for (let i = 0; i < times; i++) {
      const d = await limiter.charge([spec], cost);
      expect(d.allowed).toBe(true);
    }
  }

  it("takes a bucket's own cost when it has one: an endpoint bucket counts requests while the org pays the cost", async () => {
    const perRequest: BucketSpec = { ...endpoint(3), cost: 1 };
    for (let i = 0; i < 3; i++) expect((await limiter.charge([org(100), perRequest], 10)).allowed).toBe(true);
    const refused = await limiter.charge([org(100), perRequest], 10);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets.map((bucket) => Math.round(bucket.tokens))).toEqual([70, 0]);
  });

  it('starts an unknown bucket full: 600 of cost 1 allowed, the 601st refused', async () => {
    const first = await limiter.charge([org()], 1);
    expect(first).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      buckets: [{ key: 'org:1', capacity: 600, tokens: 599, secondsUntilFull: 1 }],
    });
    await drain(org(), 598);
    const last = await limiter.charge([org()], 1);
    expect(last.allowed).toBe(true);
    expect(last.buckets[0]).toEqual({ key: 'org:1', capacity: 600, tokens: 0, secondsUntilFull: 60 });

    const refused = await limiter.charge([org()], 1);
    expect(refused).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      buckets: [{ key: 'org:1', capacity: 600, tokens: 0, secondsUntilFull: 60 }],
    });
  });

  it('refills continuously: exactly 1 token after 100 ms at 10/s', async () => {
    await drain(org(), 600);
    now += 50;
    const half = await limiter.charge([org()], 1);
    expect(half.allowed).toBe(false);
    expect(half.buckets[0]!.tokens).toBe(0.5);
    // deficit of 0.5 token at 10/s is 0.05 s, reported as a whole second
    expect(half.retryAfterSeconds).toBe(1);

    now += 50;
    const one = await limiter.charge([org()], 1);
    expect(one.allowed).toBe(true);
    expect(one.buckets[0]!.tokens).toBe(0);
    expect((await limiter.charge([org()], 1)).allowed).toBe(false);
  });

  it('never refills beyond the ceiling', async () => {
    await drain(org(), 10);
    now += 3_600_000;
    const d = await limiter.charge([org()], 1);
    expect(d.buckets[0]!.tokens).toBe(599);
    expect(d.buckets[0]!.secondsUntilFull).toBe(1);
  });

  it('charges cost 5: 120 allowed out of 600, then retry after 1 s', async () => {
    await drain(org(), 120, 5);
    const d = await limiter.charge([org()], 5);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterSeconds).toBe(1); // 5 tokens at 10/s = 0.5 s
    expect(d.buckets[0]!.tokens).toBe(0);
  });

  it('charges cost 10 at 2/s: two allowed, then 5 s to wait, and 1 s when 0.2 short', async () => {
    const spec = org(20, 2);
    await drain(spec, 2, 10);
    const d = await limiter.charge([spec], 10);
    expect(d).toEqual({
      allowed: false,
      retryAfterSeconds: 5,
      buckets: [{ key: 'org:1', capacity: 20, tokens: 0, secondsUntilFull: 10 }],
    });
    now += 4_900;
    const almost = await limiter.charge([spec], 10);
    expect(almost.allowed).toBe(false);
    expect(almost.buckets[0]!.tokens).toBeCloseTo(9.8, 12);
    expect(almost.retryAfterSeconds).toBe(1);
    now += 100;
    const ok = await limiter.charge([spec], 10);
    expect(ok.allowed).toBe(true);
    expect(ok.buckets[0]!.tokens).toBe(0);
  });

  it('rounds retryAfter up to whole seconds, never below 1, and not past exact seconds', async () => {
    const spec = org(10, 3);
    await drain(spec, 1, 10);
    expect((await limiter.charge([spec], 10)).retryAfterSeconds).toBe(4); // 10/3 = 3.33 s
    expect((await limiter.charge([spec], 6)).retryAfterSeconds).toBe(2); // exactly 2 s
    expect((await limiter.charge([spec], 3)).retryAfterSeconds).toBe(1); // exactly 1 s
    expect((await limiter.charge([spec], 0.01)).retryAfterSeconds).toBe(1); // 3.3 ms

    const slow = { key: 'org:slow', capacity: 1, refillPerSecond: 0.5 };
    await drain(slow, 1);
    expect((await limiter.charge([slow], 1)).retryAfterSeconds).toBe(2);
  });

  it('charges two buckets atomically: when the second cannot afford it the first is not charged', async () => {
    const both = [org(), endpoint()];
    for (let i = 1; i <= 5; i++) {
      const d = await limiter.charge(both, 1);
      expect(d.allowed).toBe(true);
      expect(d.buckets.map((b) => b.tokens)).toEqual([600 - i, 5 - i]);
    }
    const refused = await limiter.charge(both, 1);
    expect(refused).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      buckets: [
        { key: 'org:1', capacity: 600, tokens: 595, secondsUntilFull: 1 },
        { key: 'ep:1:loyalty-events', capacity: 5, tokens: 0, secondsUntilFull: 5 },
      ],
    });
    // the org bucket alone shows it was left untouched by the refusal
    expect((await limiter.charge([org()], 1)).buckets[0]!.tokens).toBe(594);

    // retryAfter is the slowest bucket: 3 tokens at 1/s
    now += 500; // endpoint at 0.5, org refilled to 599
    const slowest = await limiter.charge(both, 3);
    expect(slowest.allowed).toBe(false);
    expect(slowest.retryAfterSeconds).toBe(3);
    expect(slowest.buckets.map((b) => b.tokens)).toEqual([599, 0.5]);
  });

  it('refuses cost above capacity without charging, retryAfter = time to full', async () => {
    const spec = org(10, 2);
    const d = await limiter.charge([spec], 11);
    expect(d).toEqual({
      allowed: false,
      retryAfterSeconds: 5,
      buckets: [{ key: 'org:1', capacity: 10, tokens: 10, secondsUntilFull: 0 }],
    });
    expect((await limiter.charge([spec], 1)).buckets[0]!.tokens).toBe(9);

    const both = [{ key: 'org:2', capacity: 600, refillPerSecond: 10 }, endpoint(10, 3)];
    const d2 = await limiter.charge(both, 11);
    expect(d2.allowed).toBe(false);
    expect(d2.retryAfterSeconds).toBe(4); // ceil(10 / 3)
    expect(d2.buckets.map((b) => b.tokens)).toEqual([600, 10]);
  });

  it('clamps stored tokens when capacity is lowered, and does not resurrect them when raised', async () => {
    await drain(org(), 1, 100);
    const lowered = await limiter.charge([org(100)], 1);
    expect(lowered.allowed).toBe(true);
    expect(lowered.buckets[0]).toEqual({ key: 'org:1', capacity: 100, tokens: 99, secondsUntilFull: 1 });

    const raised = await limiter.charge([org(600)], 0);
    expect(raised.allowed).toBe(true);
    expect(raised.buckets[0]).toEqual({ key: 'org:1', capacity: 600, tokens: 99, secondsUntilFull: 51 });

    // clamped even when the call is refused
    await limiter.charge([org(600)], 99);
    now += 1_000;
    await limiter.charge([org(5)], 6);
    const after = await limiter.charge([org(600)], 0);
    expect(after.buckets[0]!.tokens).toBe(5);
  });

  it('reports secondsUntilFull rounded up, 0 when full', async () => {
    expect((await limiter.charge([org()], 0)).buckets[0]!.secondsUntilFull).toBe(0);
    expect((await limiter.charge([org()], 10)).buckets[0]!.secondsUntilFull).toBe(1); // exactly 1 s
    expect((await limiter.charge([org()], 1)).buckets[0]!.secondsUntilFull).toBe(2); // 1.1 s
    const slow = { key: 'org:slow', capacity: 10, refillPerSecond: 0.5 };
    expect((await limiter.charge([slow], 3)).buckets[0]).toEqual({
      key: 'org:slow',
      capacity: 10,
      tokens: 7,
      secondsUntilFull: 6,
    });
    now += 6_000;
    expect((await limiter.charge([slow], 0)).buckets[0]).toEqual({
      key: 'org:slow',
      capacity: 10,
      tokens: 10,
      secondsUntilFull: 0,
    });
  });

  it('forgets buckets once they are full again', async () => {
    await limiter.charge([org()], 10);
    await limiter.charge([endpoint()], 1);
    expect(limiter.size).toBe(2);
    now += 999;
    expect(limiter.sweep()).toBe(0);
    now += 1; // org full after 1 s, endpoint too
    expect(limiter.sweep()).toBe(2);
    expect(limiter.size).toBe(0);
    expect((await limiter.charge([org()], 1)).buckets[0]!.tokens).toBe(599);

    // charging nothing from an unknown (full) bucket stores nothing
    await limiter.charge([endpoint()], 0);
    expect(limiter.size).toBe(1);
    now += 100;
    await limiter.charge([org()], 0);
    expect(limiter.sweep()).toBe(1);
    expect(limiter.size).toBe(0);
  });

  it('rejects malformed charges', async () => {
    await expect(limiter.charge([org(), org()], 1)).rejects.toThrow(/duplicate bucket key/);
    await expect(limiter.charge([org()], -1)).rejects.toThrow(RangeError);
    await expect(limiter.charge([org(600, 0)], 1)).rejects.toThrow(/refillPerSecond/);
    await expect(limiter.charge([org(0)], 1)).rejects.toThrow(/capacity/);
  });

  it('works with the default clock and an unref-ed sweep timer', async () => {
    const real = new MemoryRateLimiter();
    const d = await real.charge([org()], 1);
    expect(d.allowed).toBe(true);
    expect(d.buckets[0]!.tokens).toBeGreaterThanOrEqual(599);
    await real.close();
  });
});
