import Type, { type Static } from 'typebox';
import { Uuid } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { documentedAs } from '../../../records/documented.js';
import { CouponRewardInput, RewardInput } from '../../../records/loyalty/reward-object.js';

const Reason = Type.String({ minLength: 1, maxLength: 1000, description: "Shown on the member's activity feed." });

/**
 * POST /loyalty-rewards (docs/api.md#issuing-a-reward-by-hand); loyaltyMembershipId and reward are required.
 * Timestamps take any ISO 8601 offset (docs/api.md#timestamps).
 */
export const issueFields = {
  loyaltyMembershipId: Uuid,
  // Validated as every reward type so that points get their own 400 pointing to points adjustments (rule 3,
  // docs/api.md#issuing-a-reward-by-hand); documented as the coupon types only, so a generated client refuses points.
  reward: documentedAs(RewardInput, CouponRewardInput),
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
export const ISSUE_REQUIRED = ['loyaltyMembershipId', 'reward'] as const;
export const IssueCreateBody = requiredOnCreate(IssueBody, ISSUE_REQUIRED);
export type IssueFields = NonNullable<IssueBody['data']>;

/** Redeem by the code shown at checkout (docs/api.md#redeeming-and-revoking-rewards). */
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
