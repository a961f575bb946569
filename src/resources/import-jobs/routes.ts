import type { Readable } from 'node:stream';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { ImportJob, ImportJobSkippedRow } from '../../records/import-job.js';
import { importJobList, importJobSkippedList } from './list.js';
import { ImportJobQuery } from './schemas.js';
import { encodingOf, formatOf, ImportJobService, type ImportSources } from './service.js';

const tags = ['import-jobs'];

/**
 * The permission is the imported resource's write permission (docs/api.md#import-jobs), which depends on the query or
 * the job, so the routes admit any valid key and the service checks the resource's permission (403 without it).
 */
const PERMISSION_NOTE =
  "Needs the write permission of the job's resource (e.g. orders:write for resource orders; reviews:write for product-questions; loyalty:write for loyalty-memberships and loyalty-history); a key without it is 403.";

/** What the document shows as the upload's body: the file itself, in either format. */
const FILE_BODY = {
  description:
    "The file: CSV with a header row (columns named after the import row's fields) or JSON Lines (one import row per line); gzip with Content-Encoding: gzip. At most 100,000 rows and 100 MiB.",
  content: {
    'text/csv': { schema: { type: 'string', maxLength: 104_857_600 } },
    'application/x-ndjson': { schema: { type: 'string', maxLength: 104_857_600 } },
  },
  tooLarge: 'the file has more than 100,000 rows or 100 MiB (sent, or once inflated).',
  unsupported: 'send the file as text/csv or application/x-ndjson in UTF-8, as it is or with Content-Encoding: gzip.',
};

export function importJobRoutes(sources: ImportSources) {
  return async (app: PatronApp, { db, config }: PlatformServices): Promise<void> => {
    const importJobs = new ImportJobService(db, sources, config.importBatchRows);
    const read = { permission: 'any', cost: 1 };

    // The upload is read as a stream, in a scope of its own so that every other route keeps taking JSON only.
    await app.register(async (uploads: PatronApp) => {
      uploads.removeAllContentTypeParsers();
      uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      uploads.post(
        '/import-jobs',
        {
          config: { permission: 'any', cost: 10, documentedBody: FILE_BODY },
          // Where a JSON body's media type is checked (before the query is validated), so a file of another type
          // is 415 whatever else is wrong, as on every other route (docs/api.md#order-of-checks).
          preValidation: (request, _reply, done) => {
            try {
              formatOf(request.headers['content-type']);
              encodingOf(request.headers['content-encoding']);
              done();
            } catch (error) {
              done(error as Error);
            }
          },
          schema: {
            operationId: 'createImportJob',
            summary:
              "Import a CSV or JSON Lines file of up to 100,000 rows in the background, row by row as the resource's synchronous import does",
            description: PERMISSION_NOTE,
            tags,
            querystring: ImportJobQuery,
            response: { 202: ImportJob },
          },
        },
        async (request, reply) => {
          const length = Number(request.headers['content-length']);
          const job = await importJobs.create(authOf(request), {
            query: request.query,
            contentType: request.headers['content-type'],
            contentEncoding: request.headers['content-encoding'],
            contentLength: Number.isFinite(length) ? length : undefined,
            body: (request.body as Readable | undefined) ?? emptyBody(),
          });
          return reply.code(202).send(job);
        },
      );
    });

    app.get(
      '/import-jobs',
      {
        config: read,
        schema: {
          operationId: 'listImportJobs',
          summary: 'List import jobs of the resources the key may write, newest first',
          description: PERMISSION_NOTE,
          tags,
          querystring: listQuerySchema(importJobList),
          response: { 200: listEnvelope(ImportJob) },
        },
      },
      async (request) => importJobs.list(authOf(request), request.query),
    );

    app.get(
      '/import-jobs/:id',
      {
        config: read,
        schema: {
          operationId: 'getImportJob',
          summary: 'One import job: its status, rows processed and counts so far',
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          response: { 200: ImportJob },
        },
      },
      async (request) => importJobs.get(authOf(request), request.params.id),
    );

    app.get(
      '/import-jobs/:id/skipped',
      {
        config: read,
        schema: {
          operationId: 'listImportJobSkippedRows',
          summary: "The rows an import job skipped and why, in the file's order (one entry per order item at fault)",
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          querystring: listQuerySchema(importJobSkippedList),
          response: { 200: listEnvelope(ImportJobSkippedRow) },
        },
      },
      async (request) => importJobs.skipped(authOf(request), request.params.id, request.query),
    );

    app.post(
      '/import-jobs/:id/cancel',
      {
        config: read,
        schema: {
          operationId: 'cancelImportJob',
          summary:
            'Cancel a queued or running import: it stops before its next batch; rows already written stay (a finished job is answered as it is)',
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          response: { 200: ImportJob },
        },
      },
      async (request) => importJobs.cancel(authOf(request), request.params.id),
    );
  };
}

const emptyBody = () => (async function* () {})() as unknown as Readable;
