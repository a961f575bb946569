import Type, { type Static } from 'typebox';
import { Metadata, MetadataInput, Timestamp, Uuid } from '../../../records/common.js';
import { dataBody } from '../body.js';

const Section = Type.Union(
  [Type.Literal('rules'), Type.Literal('rewards'), Type.Literal('offers'), Type.Literal('stampCards')],
  {
    description: 'rules (earning) | rewards (claimable for points) | offers (time-boxed) | stampCards.',
  },
);

/** A rule of one of service.md's four sections (D31), with its section's config. */
export const LoyaltyRule = Type.Object(
  {
    id: Uuid,
    loyaltyProgramId: Uuid,
    section: Section,
    name: Type.String(),
    config: Type.Object(
      {},
      { additionalProperties: true, description: 'The section\'s configuration (see docs/api.md "Loyalty").' },
    ),
    isActive: Type.Boolean(),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyRule', additionalProperties: false },
);
export type LoyaltyRule = Static<typeof LoyaltyRule>;

export const RuleBody = dataBody({
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'Create only; optional while the organization has one program.',
  }),
  section: Section,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  config: Type.Object(
    {},
    { additionalProperties: true, description: 'Checked against the section; replaced wholesale on PATCH.' },
  ),
  isActive: Type.Boolean({ description: 'Default true; inactive rules neither earn nor issue.' }),
  metadata: MetadataInput,
});
export type RuleBody = Static<typeof RuleBody>;
export type RuleFields = NonNullable<RuleBody['data']>;
