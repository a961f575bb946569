/**
 * FallbackRateLimiter: Redis failing or not answering degrades to per-process buckets (one log line), tried again
 * once per probe interval, and shared again once it answers.
 */
import { describe, expect, it } from 'vitest';
import { FallbackRateLimiter } from '../../src/ratelimit/fallback.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import type { BucketSpec, ChargeDecision, RateLimiter } from '../../src/ratelimit/types.js';

const BUCKET: BucketSpec[] = [{ key: 'org:test', capacity: 600, refillPerSecond: 10 }];
const ALLOWED: ChargeDecision = {
  allowed: true,
  retryAfterSeconds: 0,
  buckets: [{ key: 'org:test', capacity: 600, tokens: 42, secondsUntilFull: 56 }],
};

/** A stand-in for the Redis limiter whose behaviour the test switches: answer, fail, or never answer. */
function primary() {
  const state = { mode: 'answer' as 'answer' | 'fail' | 'silent', calls: 0 };
  const limiter: RateLimiter = {
    charge: () => {
      state.calls += 1;
      if (state.mode === 'fail') return Promise.reject(new Error('Stream is not writeable'));
      if (state.mode === 'silent') return new Promise<never>(() => {});
      return Promise.resolve(ALLOWED);
    },
    close: () => Promise.resolve(),
  };
  return { limiter, state };
}

function logger() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      warn: (_: object, message: string) => lines.push(`warn ${message}`),
      info: (message: string) => lines.push(`info ${message}`),
    },
  };
}

describe('FallbackRateLimiter', () => {
  it('falls back when Redis fails, tries it once per probe interval, and goes back when it answers', async () => {
    const { limiter, state } = primary();
    const { lines, log } = logger();
    const clock = { now: 1_000 };
    // The process's own buckets on a stopped clock: no refill, so their levels count the charges exactly.
    const fallback = new MemoryRateLimiter({ sweepIntervalMs: 0, now: () => 0 });
    const limiterUnderTest = new FallbackRateLimiter(limiter, fallback, log, {
      probeEveryMs: 1_000,
      now: () => clock.now,
    });

    expect(await limiterUnderTest.charge(BUCKET, 1)).toBe(ALLOWED);
    state.mode = 'fail';
    const degraded = await limiterUnderTest.charge(BUCKET, 1);
    expect(degraded.buckets[0]!.tokens).toBe(599); // the process's own bucket
    expect(limiterUnderTest.isDegraded).toBe(true);
    for (let i = 0; i < 10; i++) await limiterUnderTest.charge(BUCKET, 1);
    expect(state.calls).toBe(2); // no Redis call within the probe interval
    clock.now += 1_000;
    await limiterUnderTest.charge(BUCKET, 1);
    expect(state.calls).toBe(3); // one probe, failed
    state.mode = 'answer';
    expect((await limiterUnderTest.charge(BUCKET, 1)).buckets[0]!.tokens).toBe(587); // before the next probe
    expect(state.calls).toBe(3);
    clock.now += 1_000;
    expect(await limiterUnderTest.charge(BUCKET, 1)).toBe(ALLOWED);
    expect(limiterUnderTest.isDegraded).toBe(false);
    expect(lines).toEqual([
      'warn rate limiter: Redis is unreachable; falling back to per-process buckets until it returns',
      'info rate limiter: Redis is reachable again; buckets are shared across processes once more',
    ]);
  });

  it('does not let a Redis that stops answering hold requests up beyond the time-out', async () => {
    const { limiter, state } = primary();
    const { lines, log } = logger();
    const limiterUnderTest = new FallbackRateLimiter(limiter, new MemoryRateLimiter({ sweepIntervalMs: 0 }), log, {
      timeoutMs: 50,
      probeEveryMs: 10_000,
    });
    state.mode = 'silent';
    const started = performance.now();
    const first = await limiterUnderTest.charge(BUCKET, 1);
    expect(performance.now() - started).toBeLessThan(500);
    expect(first.allowed).toBe(true);
    const rest = performance.now();
    await Promise.all(Array.from({ length: 100 }, () => limiterUnderTest.charge(BUCKET, 1)));
    expect(performance.now() - rest).toBeLessThan(50);
    expect(state.calls).toBe(1);
    expect(lines).toHaveLength(1);
  });
});
