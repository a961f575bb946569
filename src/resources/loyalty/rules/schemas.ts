import Type, { type Static } from 'typebox';
import { MetadataInput } from '../../../records/common.js';
import { requiredOnCreate } from '../../../resource-kit/body.js';
import { dataBody } from '../body.js';
import { RuleSection } from '../../../records/loyalty/rule.js';
import { ruleConfigSchema } from '../../../records/loyalty/rule-config.js';

export const RuleBody = dataBody({
  loyaltyProgramId: Type.String({
    format: 'uuid',
    description: 'Create only; optional while the organization has one program.',
  }),
  section: RuleSection,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  config: ruleConfigSchema(
    'The section\'s config (docs/api.md, "Rule sections and configs"), checked against the section: on create the one the body names, on PATCH the rule\'s own. Replaced wholesale on PATCH.',
  ),
  isActive: Type.Boolean({ description: 'Default true; inactive rules neither earn nor issue.' }),
  metadata: MetadataInput,
});
export type RuleBody = Static<typeof RuleBody>;
export const RULE_REQUIRED = ['section', 'name', 'config'] as const;
export const RuleCreateBody = requiredOnCreate(RuleBody, RULE_REQUIRED);
export type RuleFields = NonNullable<RuleBody['data']>;
