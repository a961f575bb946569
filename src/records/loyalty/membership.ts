/**
 * The loyalty membership record: its response shapes (the membership, and the embedded membership of a reward), the
 * columns it is read from, the row→record mappings, its events.
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyMembershipsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { NullableTimestamp, Timestamp, Uuid } from '../common.js';

/**
 * A membership: service.md's embedded membership (every field, same order) plus the points balance and lifetime
 * points (docs/api.md#memberships).
 */
export const LoyaltyMembership = Type.Object(
  {
    id: Uuid,
    customerId: Uuid,
    loyaltyProgramId: Uuid,
    loyaltyTierId: Type.Union([Uuid, Type.Null()], { description: 'Current tier, if the program uses tiers.' }),
    tierAssignedManually: Type.Boolean({
      description: 'True when an admin pinned the tier; recalculation leaves it alone until unpinned.',
    }),
    tierAttainedAt: NullableTimestamp,
    tierReviewAt: Type.Union([Timestamp, Type.Null()], {
      description:
        'Next downgrade review of a rolling-window tier; null for lifetime tiers, pinned tiers and members without a tier.',
    }),
    leftAt: Type.Union([Timestamp, Type.Null()], {
      description: 'Null while an active member; a member who left keeps the row so rejoining restores balances.',
    }),
    referralCode: Type.String({ description: 'Shareable code, stable for the life of the membership.' }),
    pointsBalance: Type.Integer({ minimum: 0, description: 'Points available to spend; never below 0.' }),
    lifetimePoints: Type.Integer({
      minimum: 0,
      description: 'Every point ever credited (earned or added by adjustment); spending and expiry do not lower it.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyMembership', additionalProperties: false },
);
export type LoyaltyMembership = Static<typeof LoyaltyMembership>;

const NullableUuid = Type.Union([Uuid, Type.Null()]);

/** service.md "Embedded membership": every field always present. */
export const EmbeddedMembership = Type.Object(
  {
    id: Uuid,
    customerId: Uuid,
    loyaltyProgramId: Uuid,
    loyaltyTierId: NullableUuid,
    tierAssignedManually: Type.Boolean(),
    tierAttainedAt: NullableTimestamp,
    tierReviewAt: NullableTimestamp,
    leftAt: NullableTimestamp,
    referralCode: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'EmbeddedLoyaltyMembership', additionalProperties: false },
);
export type EmbeddedMembership = Static<typeof EmbeddedMembership>;

export type MembershipRow = Selectable<LoyaltyMembershipsTable>;

/** The columns toMembership reads (toEmbeddedMembership reads all but the two point counts). */
export const MEMBERSHIP_COLUMNS = [
  'id',
  'customer_id',
  'loyalty_program_id',
  'loyalty_tier_id',
  'tier_assigned_manually',
  'tier_attained_at',
  'tier_review_at',
  'left_at',
  'referral_code',
  'points_balance',
  'lifetime_points',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof MembershipRow)[];
export type LoyaltyMembershipFields = Pick<MembershipRow, (typeof MEMBERSHIP_COLUMNS)[number]>;

export const toMembership = (row: LoyaltyMembershipFields): LoyaltyMembership => ({
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

export const toEmbeddedMembership = (row: LoyaltyMembershipFields): EmbeddedMembership => ({
  id: row.id,
  customerId: row.customer_id,
  loyaltyProgramId: row.loyalty_program_id,
  loyaltyTierId: row.loyalty_tier_id,
  tierAssignedManually: row.tier_assigned_manually,
  tierAttainedAt: row.tier_attained_at?.toISOString() ?? null,
  tierReviewAt: row.tier_review_at?.toISOString() ?? null,
  leftAt: row.left_at?.toISOString() ?? null,
  referralCode: row.referral_code,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const membershipEvent = (organizationId: string, name: string, row: LoyaltyMembershipFields): EventToRecord => ({
  organizationId,
  name,
  schema: LoyaltyMembership,
  record: toMembership(row),
});
