/** The import job record (docs/api.md#import-jobs): its response shape, columns, mapping and event. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { BulkJobSkippedTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';
import { BULK_JOB_STATUSES, EXPORT_FORMATS, type BulkJobRow, type ExportFormat } from './export-job.js';

/** The resources an import job writes: those with a synchronous import (docs/api.md#import-jobs). */
export const IMPORT_RESOURCES = [
  'customers',
  'products',
  'orders',
  'reviews',
  'wishlists',
  'product-questions',
  'loyalty-memberships',
  'loyalty-history',
] as const;
export type ImportResource = (typeof IMPORT_RESOURCES)[number];

/** The options a synchronous import takes, which an import job passes on (each resource takes some of them). */
export const IMPORT_OPTIONS = ['strict', 'mergeMetadata', 'earnLoyalty'] as const;
export type ImportOption = (typeof IMPORT_OPTIONS)[number];
export type ImportOptions = Partial<Record<ImportOption, boolean>>;

/** At most this many rows in one import job's file (docs/api.md#import-jobs). */
export const IMPORT_JOB_MAX_ROWS = 100_000;
/** At most this many bytes in one import job's file, as sent and once inflated (docs/api.md#import-jobs). */
export const IMPORT_JOB_MAX_BYTES = 100 * 1024 * 1024;

/** Enums, not unions of literals: generators read them as one string type, and a wrong value names every value. */
export const ImportResourceValue = Type.Unsafe<ImportResource>({
  type: 'string',
  enum: [...IMPORT_RESOURCES],
  description: "The resource imported: each row is a row of that resource's synchronous import.",
});

/** An import job (docs/api.md#import-jobs). */
export const ImportJob = Type.Object(
  {
    id: Uuid,
    type: Type.Unsafe<'import'>({ type: 'string', enum: ['import'] }),
    resource: ImportResourceValue,
    format: Type.Unsafe<ExportFormat>({
      type: 'string',
      enum: [...EXPORT_FORMATS],
      description: 'csv (Content-Type text/csv) or jsonl (application/x-ndjson): how the file was sent.',
    }),
    options: Type.Object(
      {
        strict: Type.Boolean({ description: 'The job fails at the first row that cannot be imported.' }),
        mergeMetadata: Type.Optional(Type.Boolean()),
        earnLoyalty: Type.Optional(Type.Boolean()),
      },
      {
        additionalProperties: false,
        description: "The synchronous import's options the job was made with (those its resource takes).",
      },
    ),
    status: Type.Unsafe<(typeof BULK_JOB_STATUSES)[number]>({
      type: 'string',
      enum: [...BULK_JOB_STATUSES],
      description: 'queued, running, then succeeded, failed (see error) or cancelled.',
    }),
    rowsTotal: Type.Integer({ minimum: 0, description: 'Rows the file holds, counted when it was uploaded.' }),
    rowsProcessed: Type.Integer({
      minimum: 0,
      description: 'Rows handled so far (created, updated, unchanged or skipped); rises batch by batch.',
    }),
    created: Type.Integer({ minimum: 0, description: 'Rows that created a record.' }),
    updated: Type.Integer({ minimum: 0, description: 'Rows that changed an existing record.' }),
    unchanged: Type.Integer({
      minimum: 0,
      description: 'Rows whose values were already stored: nothing written, updatedAt kept, no event.',
    }),
    skipped: Type.Integer({
      minimum: 0,
      description: 'Rows left out (GET /import-jobs/{id}/skipped says why, one entry per row or order item).',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the job failed; null otherwise.' }),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
  },
  { $id: 'ImportJob', additionalProperties: false },
);
export type ImportJob = Static<typeof ImportJob>;

/** The columns toImportJob reads. */
export const IMPORT_JOB_COLUMNS = [
  'id',
  'resource',
  'format',
  'parameters',
  'status',
  'rows_total',
  'rows_processed',
  'created',
  'updated',
  'unchanged',
  'skipped',
  'error',
  'created_at',
  'started_at',
  'finished_at',
] as const satisfies readonly (keyof BulkJobRow)[];
export type ImportJobFields = Pick<BulkJobRow, (typeof IMPORT_JOB_COLUMNS)[number]>;

/** The one mapping from a bulk job row of type import to its API shape. */
export const toImportJob = (row: ImportJobFields): ImportJob => {
  const options = (row.parameters ?? {}) as ImportOptions;
  return {
    id: row.id,
    type: 'import',
    resource: row.resource as ImportResource,
    format: row.format,
    options: {
      strict: options.strict ?? false,
      ...(options.mergeMetadata !== undefined ? { mergeMetadata: options.mergeMetadata } : {}),
      ...(options.earnLoyalty !== undefined ? { earnLoyalty: options.earnLoyalty } : {}),
    },
    status: row.status,
    rowsTotal: row.rows_total ?? 0,
    rowsProcessed: row.rows_processed,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    skipped: row.skipped,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
};

export const importJobEvent = (organizationId: string, row: ImportJobFields): EventToRecord => ({
  organizationId,
  name: 'importJob.completed',
  schema: ImportJob,
  record: toImportJob(row),
});

/** One row (or one order item) an import job left out, and why (docs/api.md#import-jobs). */
export const ImportJobSkippedRow = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'The row in the file, from 0 (a CSV row may span several lines).' }),
    itemIndex: Type.Optional(
      Type.Integer({ minimum: 0, description: "The item of the row's nested list at fault, when one is." }),
    ),
    line: Type.Integer({ minimum: 1, description: 'The line of the file the row starts on (a CSV header is line 1).' }),
    message: Type.String(),
  },
  { $id: 'ImportJobSkippedRow', additionalProperties: false },
);
export type ImportJobSkippedRow = Static<typeof ImportJobSkippedRow>;

export type ImportJobSkippedFields = Selectable<BulkJobSkippedTable>;

export const toImportJobSkippedRow = (row: ImportJobSkippedFields): ImportJobSkippedRow => ({
  index: row.row_index,
  ...(row.item_index !== null ? { itemIndex: row.item_index } : {}),
  line: row.line,
  message: row.message,
});
