import type { FastifyContextConfig, FastifyReply } from 'fastify';
import { endpointBucket, organizationBucket } from '../ratelimit/buckets.js';
import type { ChargeDecision, RateLimiter } from '../ratelimit/types.js';
import { ApiError } from '../core/errors.js';
import type { Metrics } from './metrics.js';
import type { AuthContext } from '../core/types.js';

/**
 * Second of the checks (docs/api.md#order-of-checks): charge the route's cost from the organization bucket and any
 * endpoint buckets, all or nothing. Unaffordable → 429 with Retry-After, and nothing else runs.
 */
export async function chargeRequest(
  limiter: RateLimiter,
  metrics: Metrics,
  auth: AuthContext,
  config: FastifyContextConfig,
  reply: FastifyReply,
): Promise<void> {
  const cost = config.cost ?? 1;
  const buckets = [
    organizationBucket(auth.organizationId, auth.plan),
    ...(config.buckets ?? []).map((bucket) => endpointBucket(auth.organizationId, auth.plan, bucket)),
  ];
  const decision = await limiter.charge(buckets, cost);
  setRateLimitHeaders(reply, decision);
  if (decision.allowed) return;

  const takeFrom = (i: number) => buckets[i]!.cost ?? cost;
  const starvedIndex = Math.max(
    0,
    decision.buckets.findIndex((bucket, i) => bucket.tokens < takeFrom(i)),
  );
  const starved = decision.buckets[starvedIndex]!;
  const take = takeFrom(starvedIndex);
  const scope = starved.key.startsWith('org:') ? 'organization' : `endpoint "${starved.key.split(':')[2]}"`;
  metrics.rateLimitRejections.inc({ bucket: starved.key.startsWith('org:') ? 'org' : starved.key.split(':')[2] });
  throw new ApiError(
    'TOO_MANY_REQUESTS',
    `Rate limit exceeded for this ${scope}: the request costs ${take} token${take === 1 ? '' : 's'} and ` +
      `${Math.floor(starved.tokens)} ${Math.floor(starved.tokens) === 1 ? 'is' : 'are'} left. ` +
      `Retry in ${decision.retryAfterSeconds} second${decision.retryAfterSeconds === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(decision.retryAfterSeconds) },
  );
}

/**
 * The rate-limit headers (docs/api.md#rate-limit-headers), describing the organization bucket (always the first one
 * charged).
 */
function setRateLimitHeaders(reply: FastifyReply, decision: ChargeDecision): void {
  const org = decision.buckets[0];
  if (!org) return;
  reply.header('ratelimit-policy', `"org";q=${org.capacity};w=60`);
  reply.header('ratelimit', `"org";r=${Math.max(0, Math.floor(org.tokens))};t=${org.secondsUntilFull}`);
}
