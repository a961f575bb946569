import type { ResourceModule } from '../../core/types.js';
import { ExportJob } from '../../records/export-job.js';
import { exportJob } from './run.js';
import { exportJobRoutes } from './routes.js';
import type { ExportSources } from './service.js';

/**
 * Export jobs (docs/api.md#export-jobs). The composition root hands in each list resource's export source (its list,
 * record schema, mapper, permission and CSV lines), so this folder reads no other resource's files.
 */
export function exportJobsResource(sources: ExportSources): ResourceModule {
  return {
    name: 'export-jobs',
    description:
      "Export jobs: a list's records, as its filter, search, quick filter, include and sort select them, written in the background to a CSV or JSON Lines file kept 7 days for download.",
    routes: exportJobRoutes(sources),
    jobs: ({ config }) => [
      exportJob({
        sources,
        maxRows: config.exportMaxRows,
        pageRows: config.exportPageRows,
        linePageRows: config.exportLinePageRows,
        databaseUrl: config.databaseUrl,
      }),
    ],
    // The record the event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
    events: [
      {
        names: ['exportJob.completed'],
        schema: ExportJob,
        firesWhen:
          'An export job started by POST /export-jobs has succeeded (its file can be downloaded) or failed, with the job as data.',
      },
    ],
  };
}

export { EXPORT_JOB_NAME, type ExportSources } from './service.js';
