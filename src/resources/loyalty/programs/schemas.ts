import Type, { type Static } from 'typebox';
import { MetadataInput } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { discriminated } from '../../../records/discriminated.js';
import { EXPIRY_DAYS, ExpiryInput } from '../../../records/loyalty/reward-object.js';

export const PointsExpiryInput = discriminated(
  [
    Type.Object({ type: Type.Literal('never') }, { additionalProperties: false }),
    Type.Object(
      { type: Type.Literal('daysAfterEarning'), days: Type.Integer(EXPIRY_DAYS) },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'never | daysAfterEarning { days 1..3650 }: each credit of points lapses that many days after it was earned.',
  },
);
export type PointsExpiry = Static<typeof PointsExpiryInput>;

export const TIER_WINDOW_MONTHS = { minimum: 1, maximum: 120 } as const;
export const TierWindowInput = discriminated(
  [
    Type.Object({ type: Type.Literal('lifetime') }, { additionalProperties: false }),
    Type.Object(
      { type: Type.Literal('rolling'), months: Type.Integer(TIER_WINDOW_MONTHS) },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'lifetime (tiers follow lifetime points, never reviewed) | rolling { months 1..120 } (points earned in the last months; reviewed at tierReviewAt).',
  },
);
export type TierWindow = Static<typeof TierWindowInput>;

export const programFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  pointsName: Type.String({ minLength: 1, maxLength: 50, description: 'Default "points".' }),
  defaultRewardExpiry: ExpiryInput,
  pointsExpiry: PointsExpiryInput,
  tierWindow: TierWindowInput,
  metadata: MetadataInput,
};

export const ProgramBody = dataBody(programFields);
/** What a new program must name (the rest has defaults). */
export const PROGRAM_REQUIRED = ['name'] as const;
export const ProgramCreateBody = requiredOnCreate(ProgramBody, PROGRAM_REQUIRED);
export type ProgramBody = Static<typeof ProgramBody>;
export type ProgramFields = NonNullable<ProgramBody['data']>;
