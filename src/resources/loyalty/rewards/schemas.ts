import Type, { type Static } from 'typebox';
import { Metadata, NullableTimestamp, Timestamp, Uuid } from '../../../records/common.js';
import { dataBody } from '../body.js';
import { Fulfillment, RewardInput, RewardOutput } from '../reward-schemas.js';
import { EmbeddedCustomer } from '../../../records/customer.js';

export const REWARD_STATUSES = ['pending', 'redeemed', 'expired', 'revoked'] as const;

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
    code: Type.Union([
      Type.String({ description: 'XXXX-XXXX-XXXX (D18); unique across the organization.' }),
      Type.Null(),
    ]),
    redeemedAt: NullableTimestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When it stops being redeemable; null means never.',
    }),
    revokedAt: NullableTimestamp,
    metadata: Metadata,
    fulfillment: Type.Union([Fulfillment, Type.Null()], { description: 'How the code is honored at checkout.' }),
    ruleSnapshot: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description:
        'The issuing rule as it was at issue time ({ id, name, section, config }); null when issued by hand.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    customer: Type.Optional(EmbeddedCustomer),
    membership: Type.Optional(EmbeddedMembership),
    rule: Type.Optional(Type.Union([RewardRule, Type.Null()])),
  },
  { $id: 'LoyaltyReward', additionalProperties: false },
);
export type LoyaltyReward = Static<typeof LoyaltyReward>;

const Reason = Type.String({ minLength: 1, maxLength: 1000, description: "Shown on the member's activity feed." });

/** D17: POST /loyalty-rewards; loyaltyMembershipId and reward are required. Timestamps take any ISO 8601 offset (D5). */
export const issueFields = {
  loyaltyMembershipId: Uuid,
  reward: RewardInput,
  expiresAt: Type.String({
    format: 'date-time',
    description: 'Overrides reward.expiry and the program default; must be in the future.',
  }),
  reason: Reason,
};

export const IssueBody = dataBody(
  issueFields,
  'service.md: { data: { loyaltyMembershipId, reward, expiresAt?, reason? } }; the same fields at the top level are accepted too, not both.',
);
export type IssueBody = Static<typeof IssueBody>;
export type IssueFields = NonNullable<IssueBody['data']>;

/** D19: redeem by the code shown at checkout. */
export const RedeemBody = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The reward code; case, spaces and dashes are ignored.',
    }),
    orderId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type RedeemBody = Static<typeof RedeemBody>;

export const RevokeBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });
export type RevokeBody = Static<typeof RevokeBody>;

export const ClaimBody = Type.Object(
  {
    loyaltyRuleId: Type.String({
      format: 'uuid',
      description: "An active rule of the rewards section of the member's program.",
    }),
  },
  { additionalProperties: false },
);
export type ClaimBody = Static<typeof ClaimBody>;
