import type { Executor } from '../db/executor.js';
import type { BulkJobType } from '../db/schema.js';

/**
 * An import or export job of an organization (they share bulk_jobs; docs/api.md#import-jobs, #export-jobs), read
 * as it is, or locked for the transaction that moves it on; another organization's or the other type's is absent.
 */
export const findBulkJob = (db: Executor, type: BulkJobType, organizationId: string, id: string, lock = false) => {
  const query = db
    .selectFrom('bulk_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', type);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
};
