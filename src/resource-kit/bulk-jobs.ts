import type { Executor } from '../db/executor.js';
import type { BulkJobType } from '../db/schema.js';
import type { ListDefinition } from '../lists/types.js';
import { BULK_JOB_STATUSES, EXPORT_FORMATS } from '../records/export-job.js';

/**
 * An import or export job of an organization (they share bulk_jobs; docs/api.md#import-jobs, #export-jobs), read
 * as it is, or locked for the transaction that moves it on; another organization's or the other type's is absent.
 */
export const findBulkJob = (
  db: Executor,
  { type, organizationId, id, lock = false }: { type: BulkJobType; organizationId: string; id: string; lock?: boolean },
) => {
  const query = db
    .selectFrom('bulk_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', type);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
};

/**
 * What GET /import-jobs and GET /export-jobs filter and sort: an organization's jobs of one type, newest first,
 * walking bulk_jobs_created_idx; `from` is the subquery that keeps the other type (and anything else the list hides)
 * out, which the planner inlines into the index walk.
 */
export function bulkJobList(name: string, from: string, resources: readonly string[]): ListDefinition {
  return {
    name,
    from: `(${from}) j`,
    alias: 'j',
    select: 'j.*',
    joins: {},
    relations: {},
    fields: {
      id: { type: 'uuid', column: 'j.id' },
      resource: { type: 'enum', column: 'j.resource', enumValues: resources },
      format: { type: 'enum', column: 'j.format', enumValues: EXPORT_FORMATS },
      status: { type: 'enum', column: 'j.status', enumValues: BULK_JOB_STATUSES },
      createdAt: { type: 'timestamp', column: 'j.created_at' },
    },
    sorts: {
      createdAt: { column: 'j.created_at', type: 'timestamp', nullable: false },
    },
    defaultSort: '-createdAt',
    includes: {},
  };
}
