import Type, { type Static } from 'typebox';
import { MetadataInput } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';

/** The highest position a tier takes; a tier placed after one there stays there. */
export const MAX_POSITION = 1_000_000;

export const TierBody = dataBody({
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'Create only; optional while the organization has one program.',
  }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  thresholdPoints: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  position: Type.Integer({
    minimum: 0,
    maximum: MAX_POSITION,
    description: "On create, default: after the program's tiers (their highest position + 1, or 0 for its first tier).",
  }),
  metadata: MetadataInput,
});
export type TierBody = Static<typeof TierBody>;
export const TIER_REQUIRED = ['name', 'thresholdPoints'] as const;
export const TierCreateBody = requiredOnCreate(TierBody, TIER_REQUIRED);
export type TierFields = NonNullable<TierBody['data']>;
