import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { ExportJob } from '../../records/export-job.js';
import { QUICK_FILTER_MISSING } from '../quick-filters/index.js';
import { exportJobList } from './list.js';
import { nextChunk } from './queries.js';
import { EXPORT_JOB_REQUIRED, ExportJobCreateBody } from './schemas.js';
import { ExportJobService, type ExportSources } from './service.js';

const tags = ['export-jobs'];

/**
 * The permission is the exported resource's `<resource>:read` (docs/api.md#export-jobs), which depends on the body or
 * the job, so the routes admit any valid key and the service checks the resource's permission (403 without it).
 */
const PERMISSION_NOTE =
  "Needs the read permission of the job's resource (e.g. products:read for resource products); a key without it is 403.";

export function exportJobRoutes(sources: ExportSources) {
  return (app: PatronApp, { db }: PlatformServices): void => {
    const exportJobs = new ExportJobService(db, sources);
    const read = { permission: 'any', cost: 1 };

    app.post(
      '/export-jobs',
      {
        config: {
          permission: 'any',
          cost: 10,
          refusals: { 404: QUICK_FILTER_MISSING },
          checkBody: checkCreateBody(EXPORT_JOB_REQUIRED, 'export job'),
        },
        schema: {
          operationId: 'createExportJob',
          summary:
            "Export a list's records to a CSV or JSON Lines file, written in the background (resource and format required; filter, search, quickFilter, include and sort as that list takes them)",
          description: PERMISSION_NOTE,
          tags,
          body: ExportJobCreateBody,
          response: { 202: ExportJob },
        },
      },
      async (request, reply) => reply.code(202).send(await exportJobs.create(authOf(request), request.body)),
    );

    app.get(
      '/export-jobs',
      {
        config: read,
        schema: {
          operationId: 'listExportJobs',
          summary: 'List export jobs of the resources the key may read, newest first',
          description: PERMISSION_NOTE,
          tags,
          querystring: listQuerySchema(exportJobList),
          response: { 200: listEnvelope(ExportJob) },
        },
      },
      async (request) => exportJobs.list(authOf(request), request.query),
    );

    app.get(
      '/export-jobs/:id',
      {
        config: read,
        schema: {
          operationId: 'getExportJob',
          summary: 'One export job: its status, progress and, once succeeded, where its file is downloaded',
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          response: { 200: ExportJob },
        },
      },
      async (request) => exportJobs.get(authOf(request), request.params.id),
    );

    app.post(
      '/export-jobs/:id/cancel',
      {
        config: read,
        schema: {
          operationId: 'cancelExportJob',
          summary:
            'Cancel a queued or running export: it stops before its next page and keeps no file (a finished job is answered as it is)',
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          response: { 200: ExportJob },
        },
      },
      async (request) => exportJobs.cancel(authOf(request), request.params.id),
    );

    app.get(
      '/export-jobs/:id/download',
      {
        config: { ...read, refusals: { 409: 'the export job has not succeeded (yet)' } },
        schema: {
          operationId: 'downloadExportJob',
          summary: "Download a succeeded export's file (kept 7 days), gzip-encoded when the client accepts gzip",
          description: PERMISSION_NOTE,
          tags,
          params: IdParams,
          response: {
            200: {
              description:
                'The file: CSV with a header row, or one JSON record per line. Content-Encoding: gzip when Accept-Encoding allows it.',
              content: {
                'text/csv': { schema: { type: 'string' } },
                'application/x-ndjson': { schema: { type: 'string' } },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const job = await exportJobs.downloadable(auth, request.params.id);
        reply
          .header('content-type', job.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
          .header('content-disposition', `attachment; filename="${await exportJobs.fileName(auth, job)}"`)
          .header('vary', 'Accept-Encoding');
        const file = Readable.from(chunksOf(db, auth.organizationId, job.id));
        // The chunks in order are one gzip file (src/util/gzip-segments.ts): sent as stored, or inflated on the fly.
        if (acceptsGzip(request.headers['accept-encoding'])) {
          reply.header('content-encoding', 'gzip');
          return sendStream(reply, file);
        }
        return sendStream(reply, file.pipe(createGunzip()));
      },
    );
  };
}

/** A stream as the body: Fastify pipes it and skips the response serializer, which types a body by its schema. */
const sendStream = (reply: FastifyReply, stream: NodeJS.ReadableStream) => reply.send(stream);

/** The stored chunks in order, one read at a time, so a large file never sits in memory whole. */
async function* chunksOf(db: Kysely<DB>, organizationId: string, jobId: string): AsyncGenerator<Buffer> {
  let seq = -1;
  for (;;) {
    const chunk = await nextChunk(db, organizationId, jobId, seq);
    if (!chunk) return;
    seq = chunk.seq;
    yield Buffer.from(chunk.data);
  }
}

/** Whether Accept-Encoding admits gzip (named, or `*`, with a non-zero q). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of value.split(',')) {
    const [coding = '', ...options] = part.trim().toLowerCase().split(';');
    const q = options.map((option) => /^\s*q=([0-9.]+)\s*$/.exec(option)?.[1]).find((found) => found !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (coding.trim() === 'gzip' || coding.trim() === 'x-gzip') gzip = weight;
    else if (coding.trim() === '*') any = weight;
  }
  return (gzip ?? any ?? 0) > 0;
}
