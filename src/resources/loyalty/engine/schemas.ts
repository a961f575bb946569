import Type, { type Static } from 'typebox';
import { VISIBLE_ASCII_PATTERN } from '../../../core/pattern-message.js';
import { importRows, MetadataInput, Uuid } from '../../../records/common.js';

/**
 * The shapes the engine takes and answers that the API folders' bodies and results are built from: who earns, an
 * earning's key and rule outcomes, and a history import's rows (docs/api.md#loyalty-history-import).
 */

/** Who earns: a membership, or a customer (id or email) and their membership of the program. */
export const memberFields = {
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
export const Key = Type.String({
  minLength: 1,
  maxLength: 200,
  ...VISIBLE_ASCII_PATTERN,
  description: 'Visible ASCII, 1..200.',
});

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

export type RuleOutcome = Static<typeof RuleOutcome>;

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
