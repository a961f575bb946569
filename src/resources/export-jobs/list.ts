import type { ListDefinition } from '../../lists/types.js';
import { BULK_JOB_STATUSES, EXPORT_FORMATS, EXPORT_RESOURCES } from '../../records/export-job.js';

/**
 * What GET /export-jobs can filter and sort (docs/api.md#export-jobs): an organization's export jobs, newest first,
 * walking bulk_jobs_created_idx.
 */
export const exportJobList: ListDefinition = {
  name: 'export jobs',
  // Import jobs share the table, and an expired export is gone even before retention prunes it
  // (docs/api.md#export-jobs); the planner inlines the subquery into the index walk.
  from: "(select * from bulk_jobs where type = 'export' and (expires_at is null or expires_at > now())) j",
  alias: 'j',
  select: 'j.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'j.id' },
    resource: { type: 'enum', column: 'j.resource', enumValues: EXPORT_RESOURCES },
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
