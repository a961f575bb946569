/** The export job record (docs/api.md#export-jobs): its response shape, columns, mapping and event. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { BulkJobsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';
import { QUICK_FILTER_RESOURCES, type QuickFilterResource } from './quick-filter.js';

/** The lists an export job can read: the lists quick filters belong to (docs/api.md#export-jobs). */
export const EXPORT_RESOURCES = QUICK_FILTER_RESOURCES;
export type ExportResource = QuickFilterResource;

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const BULK_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

/** Enums, not unions of literals: generators read them as one string type, and a wrong value names every value. */
export const ExportResourceValue = Type.Unsafe<ExportResource>({
  type: 'string',
  enum: [...EXPORT_RESOURCES],
  description: 'The list exported: its records, filter, search, sort and includes are those of that list.',
});
export const ExportFormatValue = Type.Unsafe<ExportFormat>({
  type: 'string',
  enum: [...EXPORT_FORMATS],
  description: 'jsonl: one record per line, as the list answers it; csv: flattened, one line per nested item.',
});

/** An export job (docs/api.md#export-jobs). */
export const ExportJob = Type.Object(
  {
    id: Uuid,
    type: Type.Unsafe<'export'>({ type: 'string', enum: ['export'] }),
    resource: ExportResourceValue,
    format: ExportFormatValue,
    status: Type.Unsafe<(typeof BULK_JOB_STATUSES)[number]>({
      type: 'string',
      enum: [...BULK_JOB_STATUSES],
      description: 'queued, running, then succeeded, failed (see error) or cancelled.',
    }),
    rowsTotal: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Records the selection holds, counted when the run starts; null until then.',
    }),
    rowsProcessed: Type.Integer({ minimum: 0, description: 'Records written to the file so far.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the job failed; null otherwise.' }),
    downloadUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the file is downloaded (with the same kind of key), once succeeded and until it expires.',
    }),
    expiresAt: NullableTimestamp,
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
    livemode: Type.Boolean({ description: 'False for an export of test data (a test key or a test-mode session).' }),
  },
  { $id: 'ExportJob', additionalProperties: false },
);
export type ExportJob = Static<typeof ExportJob>;

export type BulkJobRow = Selectable<BulkJobsTable>;

/** The columns toExportJob reads. */
export const EXPORT_JOB_COLUMNS = [
  'id',
  'resource',
  'format',
  'status',
  'rows_total',
  'rows_processed',
  'error',
  'expires_at',
  'created_at',
  'started_at',
  'finished_at',
  'livemode',
] as const satisfies readonly (keyof BulkJobRow)[];
export type ExportJobFields = Pick<BulkJobRow, (typeof EXPORT_JOB_COLUMNS)[number]>;

/** The path of a job's file, relative to the API's base address. */
export const exportDownloadPath = (id: string) => `/v1/export-jobs/${id}/download`;

/** The one mapping from a bulk job row of type export to its API shape. */
export const toExportJob = (row: ExportJobFields): ExportJob => ({
  id: row.id,
  type: 'export',
  resource: row.resource as ExportResource,
  format: row.format,
  status: row.status,
  rowsTotal: row.rows_total,
  rowsProcessed: row.rows_processed,
  error: row.error,
  downloadUrl: row.status === 'succeeded' ? exportDownloadPath(row.id) : null,
  expiresAt: row.expires_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  startedAt: row.started_at?.toISOString() ?? null,
  finishedAt: row.finished_at?.toISOString() ?? null,
  livemode: row.livemode,
});

export const exportJobEvent = (organizationId: string, row: ExportJobFields): EventToRecord => ({
  organizationId,
  name: 'exportJob.completed',
  schema: ExportJob,
  record: toExportJob(row),
});
