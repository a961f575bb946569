import type { LoyaltyRulesTable } from '../../../db/schema.js';
import type { Executor } from '../../../db/executor.js';

/** A rule in configuration; a deleted one is 404 here (rewards still reach it by id). */
export const findLiveRule = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_rules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

/**
 * The live, active rules of a program's sections, e.g. every earning rule on an order (earning and claiming use
 * it), in creation order.
 */
export const activeRules = (
  db: Executor,
  organizationId: string,
  programId: string,
  sections: LoyaltyRulesTable['section'] | readonly LoyaltyRulesTable['section'][],
) =>
  db
    .selectFrom('loyalty_rules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('loyalty_program_id', '=', programId)
    .where('section', 'in', typeof sections === 'string' ? [sections] : sections)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
