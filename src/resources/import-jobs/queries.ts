import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { findBulkJob } from '../../resource-kit/bulk-jobs.js';
import type { BulkJobRow } from '../../records/export-job.js';
import type { ImportOptions } from '../../records/import-job.js';
import type { Skipped } from '../../resource-kit/imports.js';
import { uuidv7 } from '../../util/ids.js';

/** Where a run stopped (bulk_jobs.position): the index of the first row no committed batch has written. */
export interface ImportPosition {
  next: number;
}

export const findImportJob = (db: Executor, organizationId: string, id: string) =>
  findBulkJob(db, { type: 'import', organizationId, id });

export const lockImportJob = (trx: Executor, organizationId: string, id: string) =>
  findBulkJob(trx, { type: 'import', organizationId, id, lock: true });

export const insertImportJob = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    resource: string;
    format: 'csv' | 'jsonl';
    options: ImportOptions;
    rowsTotal: number;
    failed?: string;
  },
) =>
  trx
    .insertInto('bulk_jobs')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      type: 'import',
      resource: values.resource,
      format: values.format,
      parameters: JSON.stringify(values.options),
      rows_total: values.rowsTotal,
      ...(values.failed !== undefined
        ? { status: 'failed', error: values.failed, finished_at: new Date() }
        : { position: JSON.stringify({ next: 0 } satisfies ImportPosition) }),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export const updateImportJob = (
  trx: Executor,
  organizationId: string,
  id: string,
  values: Partial<{
    status: BulkJobRow['status'];
    started_at: Date;
    finished_at: Date;
    error: string | null;
    position: ImportPosition;
    rows_processed: number;
    created: number;
    updated: number;
    unchanged: number;
    skipped: number;
  }>,
) => {
  const { position, ...rest } = values;
  return trx
    .updateTable('bulk_jobs')
    .set({ ...rest, ...(position ? { position: JSON.stringify(position) } : {}) })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
};

/** Stages one batch of the file's rows: a JSON array text of `[index, line, row, problem]` elements. */
export async function stageBatch(
  trx: Executor,
  {
    organizationId,
    jobId,
    firstIndex,
    json,
  }: { organizationId: string; jobId: string; firstIndex: number; json: string },
): Promise<void> {
  await sql`
    insert into bulk_job_rows (organization_id, job_id, first_index, rows)
    values (${organizationId}::uuid, ${jobId}::uuid, ${firstIndex}, ${json}::jsonb)`.execute(trx);
}

export interface StagedRow {
  row_index: number;
  line: number;
  data: Record<string, unknown> | null;
  problem: string | null;
}

/** The first staged batch from `from` on: its rows in file order (empty when none is left). */
export async function nextStagedBatch(
  db: Executor,
  organizationId: string,
  jobId: string,
  from: number,
): Promise<{ firstIndex: number; rows: StagedRow[] } | undefined> {
  const batch = await db
    .selectFrom('bulk_job_rows')
    .select(['first_index', 'rows'])
    .where('organization_id', '=', organizationId)
    .where('job_id', '=', jobId)
    .where('first_index', '>=', from)
    .orderBy('first_index')
    .limit(1)
    .executeTakeFirst();
  if (!batch) return undefined;
  const rows = (batch.rows as [number, number, Record<string, unknown> | null, string | null][]).map(
    ([row_index, line, data, problem]) => ({ row_index, line, data, problem }),
  );
  return { firstIndex: batch.first_index, rows };
}

/** Removes a batch once written, in the transaction that writes it. */
export const deleteStagedBatch = (trx: Executor, organizationId: string, jobId: string, firstIndex: number) =>
  trx
    .deleteFrom('bulk_job_rows')
    .where('organization_id', '=', organizationId)
    .where('job_id', '=', jobId)
    .where('first_index', '=', firstIndex)
    .execute();

export const deleteStagedRows = (trx: Executor, organizationId: string, jobId: string) =>
  trx.deleteFrom('bulk_job_rows').where('organization_id', '=', organizationId).where('job_id', '=', jobId).execute();

/** Records what a batch skipped, with each entry's row index in the file and its line. */
export async function insertSkipped(
  trx: Executor,
  organizationId: string,
  jobId: string,
  entries: readonly (Skipped & { line: number })[],
): Promise<void> {
  if (entries.length === 0) return;
  await trx
    .insertInto('bulk_job_skipped')
    .values(
      entries.map((entry) => ({
        organization_id: organizationId,
        job_id: jobId,
        id: uuidv7(),
        row_index: entry.index,
        item_index: entry.itemIndex ?? null,
        line: entry.line,
        message: entry.message,
      })),
    )
    .execute();
}
