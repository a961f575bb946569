import Type, { type Static } from 'typebox';
import { importRows, Uuid } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';

export const JoinBody = dataBody(
  {
    customerId: Uuid,
    loyaltyProgramId: Type.String({
      format: 'uuid',
      description: 'Optional while the organization has one program.',
    }),
  },
  'customerId required. Send the fields inside data, or at the top level, not both.',
);
export type JoinBody = Static<typeof JoinBody>;
export const JOIN_REQUIRED = ['customerId'] as const;
export const JoinCreateBody = requiredOnCreate(JoinBody, JOIN_REQUIRED);
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

/** A membership import row (docs/api.md#membership-import). */
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
    data: importRows(MembershipImportRow),
    strict: Type.Optional(
      Type.Boolean({
        description: 'true: a row naming a missing customer, program or tier fails the whole import (422).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MembershipImportBody = Static<typeof MembershipImportBody>;

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
export const POINTS_ADJUSTMENT_REQUIRED = ['points', 'reason'] as const;
export const PointsAdjustmentCreateBody = requiredOnCreate(PointsAdjustmentBody, POINTS_ADJUSTMENT_REQUIRED);
export type PointsAdjustmentFields = NonNullable<PointsAdjustmentBody['data']>;
