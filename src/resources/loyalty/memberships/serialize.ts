import type { Selectable } from 'kysely';
import type { LoyaltyMembershipsTable } from '../../../db/schema.js';
import { LoyaltyMembership } from './schemas.js';

export type MembershipRow = Selectable<LoyaltyMembershipsTable>;

export const toMembership = (row: MembershipRow): LoyaltyMembership => ({
  id: row.id,
  customerId: row.customer_id,
  loyaltyProgramId: row.loyalty_program_id,
  loyaltyTierId: row.loyalty_tier_id,
  tierAssignedManually: row.tier_assigned_manually,
  tierAttainedAt: row.tier_attained_at?.toISOString() ?? null,
  tierReviewAt: row.tier_review_at?.toISOString() ?? null,
  leftAt: row.left_at?.toISOString() ?? null,
  referralCode: row.referral_code,
  pointsBalance: row.points_balance,
  lifetimePoints: row.lifetime_points,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const membershipEvent = (organizationId: string, name: string, row: MembershipRow) => ({
  organizationId,
  name,
  schema: LoyaltyMembership,
  record: toMembership(row),
});
