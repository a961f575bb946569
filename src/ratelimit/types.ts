/** An organization's plan allowances (GET /organization shows them); they size its buckets. */
export interface Plan {
  apiRequestsPerMinute: number;
  loyaltyEventsPerMinute: number;
  loyaltyStampsPerMinute: number;
}

/**
 * A token bucket: `capacity` is the burst ceiling, refilled continuously at `refillPerSecond`.
 * An idle bucket is full. Buckets are identified by `key` (e.g. `org:<uuid>` or `ep:<uuid>:loyalty-events`).
 */
export interface BucketSpec {
  key: string;
  capacity: number;
  refillPerSecond: number;
  /** Tokens this charge takes from this bucket; defaults to the charge's cost. */
  cost?: number;
}

export interface BucketState {
  key: string;
  capacity: number;
  /** Tokens left after this decision (fractional). */
  tokens: number;
  /** Whole seconds until the bucket is full again (0 when full). */
  secondsUntilFull: number;
}

export interface ChargeDecision {
  allowed: boolean;
  /** Whole seconds (>= 1) until the same charge becomes affordable; 0 when allowed. */
  retryAfterSeconds: number;
  /** One entry per requested bucket, in request order. */
  buckets: BucketState[];
}

/**
 * Charges `cost` tokens (or a bucket's own `cost`) from every bucket at once: either all of them can afford it and all are
 * charged, or none is charged. Implementations must be exact under concurrency.
 */
export interface RateLimiter {
  charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision>;
  close(): Promise<void>;
}
