import type { BucketSpec, ChargeDecision, RateLimiter } from './types.js';

export interface FallbackLogger {
  warn(object: object, message: string): void;
  info(message: string): void;
}

export interface FallbackOptions {
  /**
   * A charge the primary has not answered within this counts as failed: a store that stops answering without
   * closing its connections (a partition, a frozen server) must not hold up every request.
   */
  timeoutMs?: number;
  /** While degraded, how often one request tries the primary again; the others use the fallback at once. */
  probeEveryMs?: number;
  now?: () => number;
}

/**
 * Uses `primary` (Redis) and, while it fails or does not answer, `fallback` (process memory) so an outage of the
 * shared store degrades the limit to per-process instead of refusing or stalling traffic. Logs once per outage
 * and once on recovery.
 */
export class FallbackRateLimiter implements RateLimiter {
  private degraded = false;
  private probeAt = 0;
  private readonly timeoutMs: number;
  private readonly probeEveryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly primary: RateLimiter,
    private readonly fallback: RateLimiter,
    private readonly log: FallbackLogger,
    options: FallbackOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 500;
    this.probeEveryMs = options.probeEveryMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  async charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision> {
    if (this.degraded) {
      if (this.now() < this.probeAt) return this.fallback.charge(buckets, cost);
      // This request is the probe; the ones arriving while it runs do not wait for it.
      this.probeAt = this.now() + this.probeEveryMs;
    }
    try {
      const decision = await this.withinTimeout(this.primary.charge(buckets, cost));
      if (this.degraded) {
        this.degraded = false;
        this.log.info('rate limiter: Redis is reachable again; buckets are shared across processes once more');
      }
      return decision;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn(
          { err: error },
          'rate limiter: Redis is unreachable; falling back to per-process buckets until it returns',
        );
      }
      this.probeAt = this.now() + this.probeEveryMs;
      return this.fallback.charge(buckets, cost);
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }

  /** The primary's answer, or an error once timeoutMs has passed (a late answer is dropped). */
  private withinTimeout(charge: Promise<ChargeDecision>): Promise<ChargeDecision> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    charge.catch(() => {});
    return Promise.race([charge, timeout]).finally(() => clearTimeout(timer));
  }
}
