import type { Kysely } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import type { JobDefinition } from '../../../../core/job-definition.js';
import { expireAllDueRewards } from '../rewards/transitions.js';
import { announceExpiringPoints, announceExpiringRewards } from './expiring-soon.js';
import { reviewDueTiers } from './tier-review.js';
import { expireDuePoints } from '../ledger.js';
import type { Logger } from '../../../../util/logger.js';

/** When the overnight run starts, on each organization's own clock (organizations.timezone). */
export const OVERNIGHT_LOCAL_TIME = '03:00';
export const OVERNIGHT_BATCH = 1000;

export interface OvernightResult {
  rewardsExpired: number;
  pointsExpired: number;
  membersWithPointsExpired: number;
  rewardsExpiringSoon: number;
  pointsExpiringSoon: number;
  tiersReviewed: number;
  tiersChanged: number;
}

/**
 * One organization's night (docs/api.md#the-overnight-loyalty-job), every step in short batches of its own transactions
 * (API traffic is never blocked for long): expire due rewards and due points, then announce what lapses within
 * expiringSoonDays (once per reward or credit; what just expired is no longer announced), then review rolling tiers.
 */
export async function runOvernight(
  db: Kysely<DB>,
  organizationId: string,
  now: Date,
  logger?: Logger,
): Promise<OvernightResult> {
  const { expiring_soon_days: days } = await db
    .selectFrom('organizations')
    .select('expiring_soon_days')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const rewardsExpired = await expireAllDueRewards(db, organizationId, now, OVERNIGHT_BATCH);
  const points = await expireDuePoints(db, organizationId, now, OVERNIGHT_BATCH);
  const rewardsExpiringSoon = await announceExpiringRewards(db, organizationId, now, days, OVERNIGHT_BATCH, logger);
  const pointsExpiringSoon = await announceExpiringPoints(db, organizationId, now, days, OVERNIGHT_BATCH, logger);
  const tiers = await reviewDueTiers(db, organizationId, now, OVERNIGHT_BATCH);
  return {
    rewardsExpired,
    pointsExpired: points.points,
    membersWithPointsExpired: points.members,
    rewardsExpiringSoon,
    pointsExpiringSoon,
    tiersReviewed: tiers.reviewed,
    tiersChanged: tiers.moved,
  };
}

export const overnightJob: JobDefinition = {
  name: 'loyalty.overnight',
  dailyAt: OVERNIGHT_LOCAL_TIME,
  run: ({ db, organizationId, now, logger }) =>
    runOvernight(db, organizationId, now, logger) as unknown as Promise<Record<string, number>>,
};
