import { bulkJobList } from '../../resource-kit/bulk-jobs.js';
import { EXPORT_RESOURCES } from '../../records/export-job.js';

/**
 * What GET /export-jobs can filter and sort (docs/api.md#export-jobs). Import jobs share the table, and an expired
 * export is gone even before retention prunes it.
 */
export const exportJobList = bulkJobList(
  'export jobs',
  "select * from bulk_jobs where type = 'export' and (expires_at is null or expires_at > now())",
  EXPORT_RESOURCES,
);
