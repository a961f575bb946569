import type { ListDefinition } from '../../lists/types.js';
import { bulkJobList } from '../../resource-kit/bulk-jobs.js';
import { IMPORT_RESOURCES } from '../../records/import-job.js';

/**
 * What GET /import-jobs can filter and sort (docs/api.md#import-jobs). Export jobs share the table and are never
 * listed here.
 */
export const importJobList = bulkJobList(
  'import jobs',
  "select * from bulk_jobs where type = 'import'",
  IMPORT_RESOURCES,
);

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
