import Type, { type Static } from 'typebox';
import { importRows, MetadataInput, SkippedRow, Timestamp, Uuid } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { LoyaltyReward } from '../../../records/loyalty/reward.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';
import { Referral } from '../../../records/loyalty/referral.js';
import { StampCard } from '../../../records/loyalty/stamp-card.js';

/** Who earns: a membership, or a customer (id or email) and their membership of the program. */
const memberFields = {
  loyaltyMembershipId: Type.String({ format: 'uuid', description: 'The member; or send customer instead.' }),
  customer: Type.String({
    minLength: 1,
    maxLength: 320,
    description: 'Customer id or email (case-insensitive); their membership of the program earns.',
  }),
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'With customer: the program; optional while there is one.',
  }),
};

/** Idempotency of one earning: the same key never credits twice for the same member. */
const Key = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'Visible ASCII, 1..200.',
});

export const LoyaltyEventBody = dataBody(
  {
    ...memberFields,
    event: Type.String({
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_.:-]{0,63}$',
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

export const RuleOutcome = Type.Object(
  {
    loyaltyRuleId: Uuid,
    outcome: Type.Union([Type.Literal('earned'), Type.Literal('alreadyEarned')], {
      description: "alreadyEarned: the rule's frequency or the key had already credited this member.",
    }),
    points: Type.Integer({ minimum: 0, description: 'Credited now (0 when alreadyEarned).' }),
    loyaltyTransactionId: Type.Union([Uuid, Type.Null()], {
      description: 'The credit: this one, or the earlier one when alreadyEarned.',
    }),
  },
  { additionalProperties: false },
);

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

export const HISTORY_KINDS = ['earned', 'spent', 'adjusted', 'expired'] as const;

export const LoyaltyHistoryRow = Type.Object(
  {
    loyaltyMembershipId: Type.Optional(memberFields.loyaltyMembershipId),
    customer: Type.Optional(memberFields.customer),
    loyaltyProgramId: Type.Optional(memberFields.loyaltyProgramId),
    kind: Type.Union(HISTORY_KINDS.map((kind) => Type.Literal(kind))),
    points: Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Signed: earned > 0; spent and expired < 0; adjusted either, never 0.',
    }),
    createdAt: Type.String({
      format: 'date-time',
      description: 'When it happened in the old system; not in the future.',
    }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    eventName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    expiresAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: "A credit's expiry; default the program's points expiry counted from createdAt; null never.",
      }),
    ),
    key: Type.Optional(Key),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);
export type LoyaltyHistoryRow = Static<typeof LoyaltyHistoryRow>;

export const LoyaltyHistoryBody = Type.Object(
  {
    data: importRows(LoyaltyHistoryRow, 'At most 1,000 rows (more is 413), applied in createdAt order.'),
    strict: Type.Optional(
      Type.Boolean({ description: 'true: a row naming a missing member fails the whole import (422).' }),
    ),
  },
  { additionalProperties: false },
);
export type LoyaltyHistoryBody = Static<typeof LoyaltyHistoryBody>;

export const LoyaltyHistoryResult = Type.Object({
  data: Type.Array(LoyaltyTransaction, { description: 'The ledger entries written, in the order applied.' }),
  skipped: Type.Array(SkippedRow),
});

/** loyaltyPoints.expiringSoon: a member's credits that start to lapse within the organization's expiringSoonDays. */
export const LoyaltyPointsExpiringSoon = Type.Object(
  {
    loyaltyMembershipId: Uuid,
    customerId: Uuid,
    points: Type.Integer({ minimum: 1, description: 'What is left of the credits below, in all.' }),
    expiresAt: Timestamp,
    pointsBalance: Type.Integer({ minimum: 0 }),
    credits: Type.Array(
      Type.Object(
        { loyaltyTransactionId: Uuid, points: Type.Integer({ minimum: 1 }), expiresAt: Timestamp },
        { additionalProperties: false },
      ),
      { description: 'Each credit is announced once; expiresAt above is the earliest of them.' },
    ),
  },
  { $id: 'LoyaltyPointsExpiringSoon', additionalProperties: false },
);
export type LoyaltyPointsExpiringSoon = Static<typeof LoyaltyPointsExpiringSoon>;
