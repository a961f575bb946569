/** The loyalty rule record: its response shape, the columns it is read from, the row→record mapping, its events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyRulesTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from '../common.js';
import { documentedAs, documentedComponent } from '../documented.js';
import { ruleConfigSchema } from './rule-config.js';

/** The section a rule belongs to; a rule's body names it too. */
export const RuleSection = Type.Union(
  [Type.Literal('rules'), Type.Literal('rewards'), Type.Literal('offers'), Type.Literal('stampCards')],
  {
    description: 'rules (earning) | rewards (claimable for points) | offers (time-boxed) | stampCards.',
  },
);

/** A rule of one of service.md's four sections, with its section's config (docs/api.md#rule-sections-and-configs). */
export const LoyaltyRule = Type.Object(
  {
    id: Uuid,
    loyaltyProgramId: Uuid,
    section: RuleSection,
    name: Type.String(),
    config: ruleConfigSchema(
      'The section\'s config, with its defaults written out (docs/api.md, "Rule sections and configs").',
    ),
    isActive: Type.Boolean(),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'LoyaltyRule', additionalProperties: false },
);
export type LoyaltyRule = Static<typeof LoyaltyRule>;

const SNAPSHOT_DESCRIPTION =
  'The issuing rule as it was at issue time ({ id, name, section, config }); null when issued by hand.';

/**
 * A reward's `ruleSnapshot` (docs/api.md#reward-records): the issuing rule's id, name, section and config when the
 * reward was issued, or null. Written as stored; documented as that shape, its config the union of section configs.
 */
export const RuleSnapshot = documentedAs(
  Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: SNAPSHOT_DESCRIPTION }),
  {
    description: SNAPSHOT_DESCRIPTION,
    anyOf: [
      documentedComponent(
        'LoyaltyRuleSnapshot',
        Type.Object(
          {
            id: Uuid,
            name: Type.String(),
            section: RuleSection,
            config: ruleConfigSchema("The rule's config at issue time."),
          },
          { additionalProperties: false, description: 'A rule as a reward issued by it remembers it.' },
        ),
      ),
      Type.Null(),
    ],
  },
);

export type RuleRow = Selectable<LoyaltyRulesTable>;

/** The columns toRule reads. */
export const RULE_COLUMNS = [
  'id',
  'loyalty_program_id',
  'section',
  'name',
  'config',
  'is_active',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof RuleRow)[];
export type LoyaltyRuleFields = Pick<RuleRow, (typeof RULE_COLUMNS)[number]>;

export const toRule = (row: LoyaltyRuleFields): LoyaltyRule => ({
  id: row.id,
  loyaltyProgramId: row.loyalty_program_id,
  section: row.section,
  name: row.name,
  config: row.config,
  isActive: row.is_active,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const ruleEvent = (organizationId: string, name: string, row: LoyaltyRuleFields): EventToRecord => ({
  organizationId,
  name,
  schema: LoyaltyRule,
  record: toRule(row),
});
