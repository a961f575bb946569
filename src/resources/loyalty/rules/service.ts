import { sql, type Kysely } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { notFound, validationError } from '../../../core/errors.js';
import { listRecords } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { updateIfChanged } from '../../../resource-kit/changes.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields, requireSomeField } from '../body.js';
import { resolveProgram } from '../engine/programs.js';
import { checkConfig, checkConfigFitsSomeSection } from './config.js';
import { ruleList } from './list.js';
import { findLiveRule } from './queries.js';
import type { RuleBody, RuleFields } from './schemas.js';
import { type LoyaltyRule, ruleEvent, toRule } from '../../../records/loyalty/rule.js';
import { RULE_REQUIRED } from './schemas.js';

/**
 * A create's body as the service takes it: in either form (not both), with the required fields, and its config
 * checked against the section it names and normalised (400 otherwise). Reads nothing but the body, so the route
 * also runs it before the Idempotency-Key claim (`checkBody`, docs/api.md#rule-sections-and-configs): a wrong config
 * is refused like any validation error, claiming no key.
 */
export function readRuleCreate(body: RuleBody | undefined) {
  const { fields, path } = unwrapData<RuleFields>(body, 'loyalty rule');
  requireFields(fields, RULE_REQUIRED, path);
  const config = checkConfig(fields.section!, fields.config, `${path}.config`);
  return { fields, path, config };
}

export class LoyaltyRuleService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: ruleList, organizationId, params, toRecord: toRule });
  }

  async get(organizationId: string, id: string): Promise<LoyaltyRule> {
    const row = await findLiveRule(this.db, organizationId, id);
    if (!row) throw notFound('The loyalty rule');
    return toRule(row);
  }

  async create(organizationId: string, body: RuleBody | undefined): Promise<LoyaltyRule> {
    const { fields, path, config } = readRuleCreate(body);
    return this.db.transaction().execute(async (trx) => {
      const program = await resolveProgram(
        trx,
        organizationId,
        fields.loyaltyProgramId?.toLowerCase(),
        `${path}.loyaltyProgramId`,
      );
      const row = await trx
        .insertInto('loyalty_rules')
        .values({
          organization_id: organizationId,
          id: uuidv7(),
          loyalty_program_id: program.id,
          section: fields.section!,
          name: fields.name!,
          config: JSON.stringify(config),
          ...(fields.isActive !== undefined ? { is_active: fields.isActive } : {}),
          ...(fields.metadata !== undefined ? { metadata: JSON.stringify(fields.metadata) } : {}),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordEvents(trx, [ruleEvent(organizationId, 'loyaltyRule.created', row)]);
      return toRule(row);
    });
  }

  /** name, config (replaced wholesale, checked against the rule's section), isActive, metadata. */
  async update(organizationId: string, id: string, body: RuleBody | undefined): Promise<LoyaltyRule> {
    const { fields, path } = unwrapData<RuleFields>(body, 'loyalty rule');
    requireSomeField(fields, path);
    for (const fixed of ['loyaltyProgramId', 'section'] as const) {
      if (fields[fixed] !== undefined) {
        throw validationError(`Invalid request: ${path}.${fixed} cannot change; create a new rule instead.`, [
          { path: `${path}.${fixed}`, message: 'cannot be changed' },
        ]);
      }
    }
    return this.db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('loyalty_rules')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      if (!before) {
        // A config that fits no section's shape is invalid whatever rule it names, so it is a 400 even here; a rule
        // that exists gets the message of its own section's config, which says more.
        if (fields.config !== undefined) checkConfigFitsSomeSection(fields.config, `${path}.config`);
        throw notFound('The loyalty rule');
      }
      const config =
        fields.config !== undefined ? checkConfig(before.section, fields.config, `${path}.config`) : undefined;
      // config is compared as stored, with its defaults written out, so sending them or leaving them out is the same.
      const row = await updateIfChanged(
        trx,
        { table: 'loyalty_rules', organizationId, id },
        {
          name: fields.name,
          config: config === undefined ? undefined : JSON.stringify(config),
          is_active: fields.isActive,
          metadata: fields.metadata,
        },
      );
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toRule(before);
      await recordEvents(trx, [ruleEvent(organizationId, 'loyaltyRule.updated', row)]);
      return toRule(row);
    });
  }

  /**
   * Removes the rule from configuration: it stops earning and issuing, and answers 404 from now on, but the row stays
   * so rewards it issued keep their loyaltyRuleId and include=rule.
   */
  async delete(organizationId: string, id: string): Promise<LoyaltyRule> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('loyalty_rules')
        .set({ deleted_at: sql<Date>`now()`, is_active: false, updated_at: sql<Date>`now()` })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('The loyalty rule');
      await recordEvents(trx, [ruleEvent(organizationId, 'loyaltyRule.deleted', row)]);
      return toRule(row);
    });
  }
}
