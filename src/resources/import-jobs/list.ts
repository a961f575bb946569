import type { ListDefinition } from '../../lists/types.js';
import { BULK_JOB_STATUSES, EXPORT_FORMATS } from '../../records/export-job.js';
import { IMPORT_RESOURCES } from '../../records/import-job.js';

/**
 * What GET /import-jobs can filter and sort (docs/api.md#import-jobs): an organization's import jobs, newest first,
 * walking bulk_jobs_created_idx. Export jobs share the table and are never listed here.
 */
export const importJobList: ListDefinition = {
  name: 'import jobs',
  from: "(select * from bulk_jobs where type = 'import') j",
  alias: 'j',
  select: 'j.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'j.id' },
    resource: { type: 'enum', column: 'j.resource', enumValues: IMPORT_RESOURCES },
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

/**
 * What GET /import-jobs/{id}/skipped pages through: the job's skipped rows in file order (an order's items in item
 * order), walking bulk_job_skipped_index_idx. The service scopes it to the job.
 */
export const importJobSkippedList: ListDefinition = {
  name: 'skipped rows',
  from: 'bulk_job_skipped s',
  alias: 's',
  select: 's.*',
  joins: {},
  relations: {},
  fields: {
    jobId: { type: 'uuid', column: 's.job_id' },
    index: { type: 'integer', column: 's.row_index' },
    line: { type: 'integer', column: 's.line' },
  },
  sorts: {
    index: { column: 's.row_index', type: 'integer', nullable: false },
  },
  defaultSort: 'index',
  includes: {},
};
