import Type, { type Static } from 'typebox';
import { Metadata, MetadataInput, Timestamp, Uuid } from '../../../records/common.js';
import { dataBody } from '../body.js';

/** A tier of a program (D31): members whose qualifying points reach thresholdPoints hold it. */
export const LoyaltyTier = Type.Object(
  {
    id: Uuid,
    loyaltyProgramId: Uuid,
    name: Type.String(),
    thresholdPoints: Type.Integer({ minimum: 0, description: 'Qualifying points needed; unique within the program.' }),
    position: Type.Integer({ description: 'Display order.' }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyTier', additionalProperties: false },
);
export type LoyaltyTier = Static<typeof LoyaltyTier>;

export const TierBody = dataBody({
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'Create only; optional while the organization has one program.',
  }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  thresholdPoints: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  position: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default 0.' }),
  metadata: MetadataInput,
});
export type TierBody = Static<typeof TierBody>;
export type TierFields = NonNullable<TierBody['data']>;
