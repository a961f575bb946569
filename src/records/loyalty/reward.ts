/**
 * The loyalty reward record: its response shape (with the customer, membership and rule a request may include), the
 * columns it is read from, the row→record mapping, its events.
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyRewardsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { Metadata, NullableTimestamp, Timestamp, Uuid } from '../common.js';
import { EmbeddedCustomer } from '../customer.js';
import { EmbeddedMembership } from './membership.js';
import { Fulfillment, RewardOutput } from './reward-object.js';
import { RuleSnapshot } from './rule.js';

export const REWARD_STATUSES = ['pending', 'redeemed', 'expired', 'revoked'] as const;

/** include=rule: the rule that issued the reward (also once the rule has been deleted from configuration). */
export const RewardRule = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    section: Type.Union([
      Type.Literal('rules'),
      Type.Literal('rewards'),
      Type.Literal('offers'),
      Type.Literal('stampCards'),
    ]),
  },
  { additionalProperties: false },
);
export type RewardRule = Static<typeof RewardRule>;

/** service.md "Loyalty reward": the sixteen fields always present, the three extras only when included. */
export const LoyaltyReward = Type.Object(
  {
    id: Uuid,
    loyaltyMembershipId: Uuid,
    loyaltyRuleId: Type.Union([Uuid, Type.Null()], { description: 'Rule that issued it; null when issued by hand.' }),
    stampCardId: Type.Union([Uuid, Type.Null()], { description: 'Stamp card that produced it, when one did.' }),
    loyaltyTransactionId: Type.Union([Uuid, Type.Null()], {
      description: 'Points entry the member paid with when claiming; null for a reward that cost nothing.',
    }),
    reward: RewardOutput,
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('redeemed'),
      Type.Literal('expired'),
      Type.Literal('revoked'),
    ]),
    code: Type.Union([Type.String({ description: 'XXXX-XXXX-XXXX; unique across the organization.' }), Type.Null()]),
    redeemedAt: NullableTimestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When it stops being redeemable; null means never.',
    }),
    revokedAt: NullableTimestamp,
    metadata: Metadata,
    fulfillment: Type.Union([Fulfillment, Type.Null()], { description: 'How the code is honored at checkout.' }),
    ruleSnapshot: RuleSnapshot,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    customer: Type.Optional(EmbeddedCustomer),
    membership: Type.Optional(EmbeddedMembership),
    rule: Type.Optional(Type.Union([RewardRule, Type.Null()])),
  },
  { $id: 'LoyaltyReward', additionalProperties: false },
);
export type LoyaltyReward = Static<typeof LoyaltyReward>;

export type RewardRow = Selectable<LoyaltyRewardsTable>;

/** The columns toReward reads. */
export const REWARD_COLUMNS = [
  'id',
  'loyalty_membership_id',
  'loyalty_rule_id',
  'stamp_card_id',
  'loyalty_transaction_id',
  'reward',
  'status',
  'code',
  'redeemed_at',
  'expires_at',
  'revoked_at',
  'metadata',
  'fulfillment',
  'rule_snapshot',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof RewardRow)[];
export type LoyaltyRewardFields = Pick<RewardRow, (typeof REWARD_COLUMNS)[number]>;

/** The one mapping from a reward row to its API shape (the sixteen fields, no extras). */
export const toReward = (row: LoyaltyRewardFields): LoyaltyReward => ({
  id: row.id,
  loyaltyMembershipId: row.loyalty_membership_id,
  loyaltyRuleId: row.loyalty_rule_id,
  stampCardId: row.stamp_card_id,
  loyaltyTransactionId: row.loyalty_transaction_id,
  reward: row.reward as LoyaltyReward['reward'],
  status: row.status,
  code: row.code,
  redeemedAt: row.redeemed_at?.toISOString() ?? null,
  expiresAt: row.expires_at?.toISOString() ?? null,
  revokedAt: row.revoked_at?.toISOString() ?? null,
  metadata: row.metadata,
  fulfillment: row.fulfillment as LoyaltyReward['fulfillment'],
  ruleSnapshot: row.rule_snapshot,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/**
 * A loyaltyReward.* event: the reward's sixteen fields, as GET /loyalty-rewards/{id} returns it without include;
 * embeds given are left out. The nightly expiry sends one per reward by the hundred thousand, and embedded copies
 * of the customer and membership would more than double what each event costs to load, serialize and store.
 */
export function rewardEvent(organizationId: string, name: string, reward: LoyaltyReward): EventToRecord {
  const { customer: _customer, membership: _membership, rule: _rule, ...record } = reward;
  return { organizationId, name, schema: LoyaltyReward, record };
}
