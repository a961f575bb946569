import Type, { type Static } from 'typebox';
import { MetadataInput } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { RuleSection } from '../../../records/loyalty/rule.js';

export const RuleBody = dataBody({
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'Create only; optional while the organization has one program.',
  }),
  section: RuleSection,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  config: Type.Object(
    {},
    { additionalProperties: true, description: 'Checked against the section; replaced wholesale on PATCH.' },
  ),
  isActive: Type.Boolean({ description: 'Default true; inactive rules neither earn nor issue.' }),
  metadata: MetadataInput,
});
export type RuleBody = Static<typeof RuleBody>;
export const RULE_REQUIRED = ['section', 'name', 'config'] as const;
export const RuleCreateBody = requiredOnCreate(RuleBody, RULE_REQUIRED);
export type RuleFields = NonNullable<RuleBody['data']>;
