import type { BucketSpec, BucketState, ChargeDecision, RateLimiter } from './types.js';

interface Entry {
  tokens: number;
  updatedAtMs: number;
  /** When the bucket is full again at the rate it was last charged with; lets the sweep evict without the spec. */
  fullAtMs: number;
}

export interface MemoryRateLimiterOptions {
  /** Clock in milliseconds; injectable so tests can drive time. */
  now?: () => number;
  /** How often idle (refilled) buckets are dropped; 0 disables the timer (call `sweep()` yourself). */
  sweepIntervalMs?: number;
}

// Absorbs floating-point noise so e.g. a deficit of exactly 2 s never rounds up to 3.
const EPSILON = 1e-9;

const defaultNow = (): number => performance.timeOrigin + performance.now();

/**
 * Single-process token buckets. A missing entry means "full", so the sweep drops buckets that have
 * refilled to their ceiling: memory stays proportional to recently active buckets.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.now = options.now ?? defaultNow;
    const interval = options.sweepIntervalMs ?? 60_000;
    if (interval > 0) {
      this.timer = setInterval(() => this.sweep(), interval);
      // A limiter must never keep the process alive on its own.
      this.timer.unref();
    }
  }

  /** Number of buckets currently stored; a bucket that is not stored counts as full. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every bucket that has refilled to its ceiling; returns how many were dropped. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.fullAtMs <= now) {
        this.entries.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision> {
    try {
      return Promise.resolve(this.decide(buckets, cost));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    return Promise.resolve();
  }

  private decide(buckets: readonly BucketSpec[], cost: number): ChargeDecision {
    checkCharge(buckets, cost);
    const now = this.now();
    const n = buckets.length;
    const states: BucketState[] = [];
    let retryAfter = 0;

    // Pass 1: refill (into the result objects, so no scratch arrays) and find the slowest bucket.
    for (let i = 0; i < n; i++) {
      const spec = buckets[i]!;
      const { capacity, refillPerSecond } = spec;
      const take = spec.cost ?? cost;
      const entry = this.entries.get(spec.key);
      let tokens = capacity;
      if (entry !== undefined) {
        const elapsedMs = now > entry.updatedAtMs ? now - entry.updatedAtMs : 0;
        // Multiplying before dividing keeps e.g. 100 ms at 10/s exactly 1 token.
        // min() also clamps a bucket whose capacity was lowered since the last call.
        tokens = Math.min(capacity, entry.tokens + (elapsedMs * refillPerSecond) / 1000);
      }
      let wait = 0;
      if (take > capacity)
        wait = capacity / refillPerSecond; // can never succeed: report time to full
      else if (tokens < take) wait = (take - tokens) / refillPerSecond;
      if (wait > 0) retryAfter = Math.max(retryAfter, Math.ceil(wait - EPSILON), 1);
      states.push({ key: spec.key, capacity, tokens, secondsUntilFull: 0 });
    }

    const allowed = retryAfter === 0;
    // Pass 2: commit. Denied calls also store the refilled/clamped level (equivalent state), so a
    // capacity raised soon after a clamp does not resurrect the clamped tokens; only once the
    // sweep has dropped an idle bucket does it start over at the (new) ceiling.
    for (let i = 0; i < n; i++) {
      const spec = buckets[i]!;
      const state = states[i]!;
      if (allowed) state.tokens -= spec.cost ?? cost;
      const deficit = spec.capacity - state.tokens;
      const entry = this.entries.get(spec.key);
      // An unknown bucket is full anyway: don't allocate an entry just to say so.
      if (deficit <= 0 && entry === undefined) continue;
      const toFullSeconds = deficit > 0 ? deficit / spec.refillPerSecond : 0;
      if (deficit > 0) state.secondsUntilFull = Math.max(1, Math.ceil(toFullSeconds - EPSILON));
      const fullAtMs = now + toFullSeconds * 1000;
      if (entry === undefined) {
        this.entries.set(spec.key, { tokens: state.tokens, updatedAtMs: now, fullAtMs });
      } else {
        entry.tokens = state.tokens;
        entry.updatedAtMs = now;
        entry.fullAtMs = fullAtMs;
      }
    }
    return { allowed, retryAfterSeconds: retryAfter, buckets: states };
  }
}

/** Rejects input that has no meaningful token-bucket answer; shared by both implementations. */
export function checkCharge(buckets: readonly BucketSpec[], cost: number): void {
  if (!(cost >= 0 && Number.isFinite(cost))) throw new RangeError(`invalid cost: ${cost}`);
  for (let i = 0; i < buckets.length; i++) {
    const spec = buckets[i]!;
    if (spec.cost !== undefined && !(spec.cost >= 0 && Number.isFinite(spec.cost))) {
      throw new RangeError(`invalid cost for ${spec.key}: ${spec.cost}`);
    }
    if (!(spec.capacity > 0 && Number.isFinite(spec.capacity))) {
      throw new RangeError(`invalid capacity for ${spec.key}: ${spec.capacity}`);
    }
    if (!(spec.refillPerSecond > 0 && Number.isFinite(spec.refillPerSecond))) {
      throw new RangeError(`invalid refillPerSecond for ${spec.key}: ${spec.refillPerSecond}`);
    }
    for (let j = 0; j < i; j++) {
      // Charging one bucket twice in a single all-or-nothing decision would be ambiguous.
      if (buckets[j]!.key === spec.key) throw new RangeError(`duplicate bucket key: ${spec.key}`);
    }
  }
}
