import type { Redis } from 'ioredis';
import { MemoryRateLimiter } from './memory.js';
import { RedisRateLimiter } from './redis.js';
import type { RateLimiter } from './types.js';

export type { BucketSpec, BucketState, ChargeDecision, RateLimiter } from './types.js';
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from './memory.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis.js';

/**
 * Redis when available, so limits hold across every process of the deployment; otherwise
 * per-process memory, which is only exact for a single instance.
 */
export function createRateLimiter(opts: { redis?: Redis }): RateLimiter {
  return opts.redis ? new RedisRateLimiter(opts.redis) : new MemoryRateLimiter();
}
