import Type, { type Static } from 'typebox';
import { NullableTimestamp, Timestamp, Uuid } from '../../../records/common.js';
import { dataBody } from '../body.js';

/**
 * A membership: service.md's embedded membership (every field, same order) plus the points balance and lifetime
 * points (D31).
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

export const JoinBody = dataBody(
  {
    customerId: Uuid,
    loyaltyProgramId: Type.String({
      format: 'uuid',
      description: 'Optional while the organization has one program (D34).',
    }),
  },
  'customerId required. Send the fields inside data, or at the top level, not both.',
);
export type JoinBody = Static<typeof JoinBody>;
export type JoinFields = NonNullable<JoinBody['data']>;

export const MembershipPatchBody = dataBody({
  loyaltyTierId: Type.String({
    format: 'uuid',
    description: 'Pins the member to this tier of their program (tierAssignedManually becomes true).',
  }),
  tierAssignedManually: Type.Boolean({
    description: 'false unpins and recalculates the tier; true pins the current tier.',
  }),
});
export type MembershipPatchBody = Static<typeof MembershipPatchBody>;
export type MembershipPatchFields = NonNullable<MembershipPatchBody['data']>;

/** D34 membership import row. */
export const MembershipImportRow = Type.Object(
  {
    customer: Type.String({ minLength: 1, maxLength: 320, description: 'Customer id or email (case-insensitive).' }),
    loyaltyProgramId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Optional while the organization has one program.' }),
    ),
    pointsBalance: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'The balance to hold; the difference is written to the ledger as an adjustment.',
      }),
    ),
    loyaltyTierId: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'The tier to hold (not pinned); null removes it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MembershipImportRow = Static<typeof MembershipImportRow>;

export const MembershipImportBody = Type.Object(
  {
    data: Type.Array(MembershipImportRow, { description: 'At most 1,000 rows.' }),
    strict: Type.Optional(
      Type.Boolean({
        description: 'true: a row naming a missing customer, program or tier fails the whole import (422).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MembershipImportBody = Static<typeof MembershipImportBody>;
