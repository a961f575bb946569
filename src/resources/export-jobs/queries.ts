import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { findBulkJob } from '../../resource-kit/bulk-jobs.js';
import type { BulkJobRow } from '../../records/export-job.js';
import type { GzipProgress } from '../../util/gzip-segments.js';

/** What an export job was asked for (bulk_jobs.parameters): the list selection, as the list engine takes it. */
export interface ExportParameters {
  filter?: Record<string, unknown>;
  search?: string;
  include?: string;
  sort?: string;
  /** The quick filter named at POST, as it was then (its filter, search, sort and version). */
  saved?: { filter: Record<string, unknown>; search: string | null; sort: string | null; version: string };
}

/**
 * Where a run stopped (bulk_jobs.position), committed with each chunk (docs/api.md#export-jobs). A CSV export first
 * walks the selection for its metadata keys (`columns`), then writes (`rows`) from `cursor`, the list engine's.
 */
export interface ExportPosition {
  phase: 'columns' | 'rows';
  cursor: string | null;
  /** The next chunk's number. */
  seq: number;
  metadataKeys?: Record<string, string[]>;
  /** The file's CRC-32 and length so far, which its last chunk's gzip trailer carries. */
  gzip?: GzipProgress;
}

export const findExportJob = (db: Executor, organizationId: string, id: string) =>
  findBulkJob(db, { type: 'export', organizationId, id });

export const lockExportJob = (trx: Executor, organizationId: string, id: string) =>
  findBulkJob(trx, { type: 'export', organizationId, id, lock: true });

export const insertExportJob = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    resource: string;
    format: 'csv' | 'jsonl';
    parameters: object;
    livemode: boolean;
  },
) =>
  trx
    .insertInto('bulk_jobs')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      type: 'export',
      resource: values.resource,
      format: values.format,
      parameters: JSON.stringify(values.parameters),
      livemode: values.livemode,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export const updateExportJob = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: {
    status?: BulkJobRow['status'];
    rows_total?: number;
    rows_processed?: number;
    error?: string | null;
    position?: ExportPosition;
    started_at?: Date;
    finished_at?: Date;
    expires_at?: Date;
  },
) => {
  const { position, ...columns } = changes;
  return trx
    .updateTable('bulk_jobs')
    .set({ ...columns, ...(position ? { position: JSON.stringify(position) } : {}) })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
};

export const insertChunk = (
  trx: Executor,
  values: { organizationId: string; jobId: string; seq: number; data: Uint8Array; rows: number },
) =>
  trx
    .insertInto('bulk_job_chunks')
    .values({
      organization_id: values.organizationId,
      job_id: values.jobId,
      seq: values.seq,
      data: values.data,
      rows: values.rows,
    })
    .execute();

/** One chunk after `afterSeq`, in order: the download reads the file a chunk at a time. */
export const nextChunk = (db: Executor, organizationId: string, jobId: string, afterSeq: number) =>
  db
    .selectFrom('bulk_job_chunks')
    .select(['seq', 'data'])
    .where('organization_id', '=', organizationId)
    .where('job_id', '=', jobId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();

/** The records a selection holds (its WHERE compiled by the list engine), counted once when a run starts. */
export async function countSelection(
  db: Executor,
  from: string,
  joins: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
): Promise<number> {
  const { rows } = await sql<{ count: string | number }>`
    select count(*) as count from ${sql.raw(from)} ${joins} where ${where}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}
