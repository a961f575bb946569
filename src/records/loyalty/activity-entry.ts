/**
 * The member activity feed entry (GET /loyalty-memberships/{id}/activity): its response shape, the columns it is read
 * from and the row→record mapping. It has no event: the changes it records send their own
 * (docs/api.md#member-activity-feed).
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyActivityTable } from '../../db/schema.js';
import { Timestamp, Uuid } from '../common.js';

/** Every kind of change of a member's standing that the feed records (docs/api.md#member-activity-feed). */
export const ACTIVITY_KINDS = [
  'joined',
  'left',
  'rejoined',
  'pointsEarned',
  'pointsSpent',
  'pointsAdjusted',
  'pointsExpired',
  'rewardIssued',
  'rewardRedeemed',
  'rewardRevoked',
  'rewardExpired',
  'stampAdded',
  'stampCardCompleted',
  'tierChanged',
  'referralAttributed',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The feed entry of each ledger kind: a points movement is also a feed entry. */
export const POINTS_ACTIVITY_KIND = {
  earned: 'pointsEarned',
  spent: 'pointsSpent',
  adjusted: 'pointsAdjusted',
  expired: 'pointsExpired',
} as const satisfies Record<string, ActivityKind>;

export const LoyaltyActivityEntry = Type.Object(
  {
    id: Uuid,
    kind: Type.Union(
      [
        Type.Literal('joined'),
        Type.Literal('left'),
        Type.Literal('rejoined'),
        Type.Literal('pointsEarned'),
        Type.Literal('pointsSpent'),
        Type.Literal('pointsAdjusted'),
        Type.Literal('pointsExpired'),
        Type.Literal('rewardIssued'),
        Type.Literal('rewardRedeemed'),
        Type.Literal('rewardRevoked'),
        Type.Literal('rewardExpired'),
        Type.Literal('stampAdded'),
        Type.Literal('stampCardCompleted'),
        Type.Literal('tierChanged'),
        Type.Literal('referralAttributed'),
      ],
      { description: "What changed in the member's standing." },
    ),
    occurredAt: Timestamp,
    points: Type.Union([Type.Integer(), Type.Null()], {
      description: 'For points entries: the points moved, signed (credits positive, debits negative); else null.',
    }),
    loyaltyTransactionId: Type.Union([Uuid, Type.Null()], { description: 'The ledger entry behind it.' }),
    loyaltyRewardId: Type.Union([Uuid, Type.Null()], { description: 'The reward it concerns.' }),
    stampCardId: Type.Union([Uuid, Type.Null()], { description: 'The stamp card it concerns.' }),
    loyaltyTierId: Type.Union([Uuid, Type.Null()], { description: 'For tierChanged: the tier reached (null: none).' }),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason given with the change (an adjustment, a reward issued by hand, a revoke…).',
    }),
  },
  { $id: 'LoyaltyActivityEntry', additionalProperties: false },
);
export type LoyaltyActivityEntry = Static<typeof LoyaltyActivityEntry>;

export type ActivityRow = Selectable<LoyaltyActivityTable>;

/** The columns toActivityEntry reads. */
export const ACTIVITY_COLUMNS = [
  'id',
  'type',
  'created_at',
  'points',
  'loyalty_transaction_id',
  'loyalty_reward_id',
  'stamp_card_id',
  'loyalty_tier_id',
  'reason',
] as const satisfies readonly (keyof ActivityRow)[];
export type ActivityFields = Pick<ActivityRow, (typeof ACTIVITY_COLUMNS)[number]>;

export const toActivityEntry = (row: ActivityFields): LoyaltyActivityEntry => ({
  id: row.id,
  kind: row.type as ActivityKind,
  occurredAt: row.created_at.toISOString(),
  points: row.points === null ? null : Number(row.points),
  loyaltyTransactionId: row.loyalty_transaction_id,
  loyaltyRewardId: row.loyalty_reward_id,
  stampCardId: row.stamp_card_id,
  loyaltyTierId: row.loyalty_tier_id,
  reason: row.reason,
});
