import Type, { type Static } from 'typebox';
import { Metadata, Timestamp, Uuid } from '../../../records/common.js';
import { dataBody } from '../body.js';

export const TRANSACTION_KINDS = ['earned', 'spent', 'adjusted', 'expired'] as const;

/** One entry of a member's points ledger (D31): earned, spent, adjusted or expired. */
export const LoyaltyTransaction = Type.Object(
  {
    id: Uuid,
    loyaltyMembershipId: Uuid,
    customerId: Uuid,
    kind: Type.Union([
      Type.Literal('earned'),
      Type.Literal('spent'),
      Type.Literal('adjusted'),
      Type.Literal('expired'),
    ]),
    points: Type.Integer({ description: 'Signed: positive credits, negative debits; never 0.' }),
    balanceAfter: Type.Integer({ minimum: 0, description: "The member's balance right after this entry." }),
    reason: Type.Union([Type.String(), Type.Null()]),
    loyaltyRuleId: Type.Union([Uuid, Type.Null()], {
      description: 'The earning rule (or claimed rewards rule) behind it.',
    }),
    loyaltyRewardId: Type.Union([Uuid, Type.Null()], { description: 'The reward paid for with these points.' }),
    orderId: Type.Union([Uuid, Type.Null()], { description: 'The order that earned these points.' }),
    eventName: Type.Union([Type.String(), Type.Null()], {
      description: 'The named event that earned them (POST /loyalty-events).',
    }),
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'For credits: when what is left of them lapses; null = never.',
    }),
    metadata: Metadata,
    createdAt: Timestamp,
  },
  { $id: 'LoyaltyTransaction', additionalProperties: false },
);
export type LoyaltyTransaction = Static<typeof LoyaltyTransaction>;

export const PointsAdjustmentBody = dataBody(
  {
    points: Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Signed, never 0: positive adds, negative removes (a balance never goes below 0: 409).',
    }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept on the ledger entry.' }),
  },
  'points and reason required. Send the fields inside data, or at the top level, not both.',
);
export type PointsAdjustmentBody = Static<typeof PointsAdjustmentBody>;
export type PointsAdjustmentFields = NonNullable<PointsAdjustmentBody['data']>;
