import type { ResourceModule } from '../../core/types.js';
import { ImportJob } from '../../records/import-job.js';
import { importJob } from './run.js';
import { importJobRoutes } from './routes.js';
import type { ImportSources } from './service.js';

/**
 * Import jobs (docs/api.md#import-jobs). The composition root hands in each resource's import source (its
 * synchronous import, row schema, record and CSV lines), so this folder reads no other resource's files.
 */
export function importJobsResource(sources: ImportSources): ResourceModule {
  return {
    name: 'import-jobs',
    description:
      "Import jobs: a CSV or JSON Lines file of up to 100,000 rows, imported in the background in batches by the resource's synchronous import, with progress, skipped rows and cancel.",
    routes: importJobRoutes(sources),
    jobs: () => [importJob({ sources })],
    // The record the event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
    events: [
      {
        names: ['importJob.completed'],
        schema: ImportJob,
        firesWhen:
          'An import job started by POST /import-jobs has succeeded or failed (not when cancelled), with the job and its counts as data.',
      },
    ],
  };
}

export { IMPORT_JOB_NAME, type ImportSources } from './service.js';
