import type { BucketSpec, ChargeDecision, RateLimiter } from './types.js';

export interface FallbackLogger {
  warn(object: object, message: string): void;
  info(message: string): void;
}

/**
 * Uses `primary` (Redis) and, while it fails, `fallback` (process memory) so an outage of the shared store
 * degrades the limit to per-process instead of refusing traffic. Logs once per outage and once on recovery.
 */
export class FallbackRateLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly primary: RateLimiter,
    private readonly fallback: RateLimiter,
    private readonly log: FallbackLogger,
  ) {}

  async charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision> {
    try {
      const decision = await this.primary.charge(buckets, cost);
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
      return this.fallback.charge(buckets, cost);
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
