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
