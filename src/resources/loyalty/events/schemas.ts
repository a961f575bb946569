import Type, { type Static } from 'typebox';
import { EVENT_NAME_PATTERN } from '../../../core/pattern-message.js';
import { MetadataInput, SkippedRow, Timestamp, Uuid } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { Key, memberFields, RuleOutcome } from '../engine/schemas.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { LoyaltyReward } from '../../../records/loyalty/reward.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';
import { Referral } from '../../../records/loyalty/referral.js';
import { StampCard } from '../../../records/loyalty/stamp-card.js';

export const LoyaltyEventBody = dataBody(
  {
    ...memberFields,
    event: Type.String({
      maxLength: 64,
      ...EVENT_NAME_PATTERN,
      description: 'The named event, e.g. signup, birthday, review.',
    }),
    key: Key,
    occurredAt: Type.String({
      format: 'date-time',
      description: 'When it happened (default now): decides offers and the year of oncePerYear rules.',
    }),
    referralCode: Type.String({
      minLength: 1,
      maxLength: 32,
      description: "Another member's referral code: records that they referred this member.",
    }),
    metadata: MetadataInput,
  },
  'event and the member (loyaltyMembershipId, or customer) required. Send the fields inside data, or at the top level, not both.',
);
export type LoyaltyEventBody = Static<typeof LoyaltyEventBody>;
export const LOYALTY_EVENT_REQUIRED = ['event'] as const;
export const LoyaltyEventCreateBody = requiredOnCreate(LoyaltyEventBody, LOYALTY_EVENT_REQUIRED);
export type LoyaltyEventFields = NonNullable<LoyaltyEventBody['data']>;

export const LoyaltyEventResult = Type.Object(
  {
    event: Type.String(),
    loyaltyMembershipId: Uuid,
    occurredAt: Timestamp,
    pointsEarned: Type.Integer({ minimum: 0 }),
    rules: Type.Array(RuleOutcome, {
      description: 'Every active earning rule of the program for this event, in creation order.',
    }),
    transactions: Type.Array(LoyaltyTransaction, { description: 'The ledger entries this request wrote.' }),
    membership: LoyaltyMembership,
    referral: Type.Union([Referral, Type.Null()], { description: 'With referralCode: the referral.' }),
  },
  { additionalProperties: false },
);
export type LoyaltyEventResult = Static<typeof LoyaltyEventResult>;

export const LoyaltyStampBody = dataBody(
  {
    ...memberFields,
    stampCardRuleId: Type.String({
      format: 'uuid',
      description: "A stampCards rule of the member's program; optional while there is one.",
    }),
    stamps: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Default 1. Stamps beyond a full card start the next one.',
    }),
    key: Key,
  },
  'The member (loyaltyMembershipId, or customer) required. Send the fields inside data, or at the top level, not both.',
);
export type LoyaltyStampBody = Static<typeof LoyaltyStampBody>;
export type LoyaltyStampFields = NonNullable<LoyaltyStampBody['data']>;

export const LoyaltyStampResult = Type.Object(
  {
    loyaltyMembershipId: Uuid,
    loyaltyRuleId: Uuid,
    stampsAdded: Type.Integer({ minimum: 0, description: '0 when the key had already been used.' }),
    duplicate: Type.Boolean({ description: 'true: this key had already stamped this member; nothing changed.' }),
    stampCards: Type.Array(StampCard, {
      description: 'The cards this request stamped, oldest first; the last is the open one.',
    }),
    rewards: Type.Array(LoyaltyReward, { description: 'Rewards issued by cards this request completed.' }),
    transactions: Type.Array(LoyaltyTransaction, { description: 'Points credited by cards whose reward is points.' }),
  },
  { additionalProperties: false },
);
export type LoyaltyStampResult = Static<typeof LoyaltyStampResult>;

export const LoyaltyHistoryResult = Type.Object({
  data: Type.Array(LoyaltyTransaction, { description: 'The ledger entries written, in the order applied.' }),
  skipped: Type.Array(SkippedRow),
});
