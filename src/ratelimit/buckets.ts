import type { BucketSpec } from './types.js';
import { type Plan } from './types.js';

/** A separate per-endpoint bucket (service.md Limits), charged together with the organization bucket. */
export interface EndpointBucket {
  name: string;
  capacity(plan: Plan): number;
  refillPerSecond(plan: Plan): number;
}

/**
 * The organization-wide bucket: ceiling = apiRequestsPerMinute, refilled at ceiling/60 per second
 * (docs/api.md#token-buckets).
 */
export function organizationBucket(organizationId: string, plan: Plan): BucketSpec {
  return {
    key: `org:${organizationId}`,
    capacity: plan.apiRequestsPerMinute,
    refillPerSecond: plan.apiRequestsPerMinute / 60,
  };
}

/**
 * An endpoint bucket counts requests: each takes 1 token, whatever the request costs the organization bucket, so
 * POST /loyalty-history (cost 10) gets a burst of 30 requests and 1 per second, as service.md's table reads.
 */
export function endpointBucket(organizationId: string, plan: Plan, bucket: EndpointBucket): BucketSpec {
  return {
    key: `ep:${organizationId}:${bucket.name}`,
    capacity: bucket.capacity(plan),
    refillPerSecond: bucket.refillPerSecond(plan),
    cost: 1,
  };
}

export const ENDPOINT_BUCKETS = {
  /** POST /loyalty-events: 120 burst, 2/s, following loyaltyEventsPerMinute. */
  loyaltyEvents: {
    name: 'loyalty-events',
    capacity: (plan) => plan.loyaltyEventsPerMinute,
    refillPerSecond: (plan) => plan.loyaltyEventsPerMinute / 60,
  },
  /** POST /loyalty-stamps: 120 burst, 2/s, following loyaltyStampsPerMinute. */
  loyaltyStamps: {
    name: 'loyalty-stamps',
    capacity: (plan) => plan.loyaltyStampsPerMinute,
    refillPerSecond: (plan) => plan.loyaltyStampsPerMinute / 60,
  },
  /** POST /loyalty-history: 30 burst, 1/s; service.md names no plan allowance for it. */
  loyaltyHistory: { name: 'loyalty-history', capacity: () => 30, refillPerSecond: () => 1 },
} as const satisfies Record<string, EndpointBucket>;
