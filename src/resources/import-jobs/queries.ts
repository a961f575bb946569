import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { BulkJobRow } from '../../records/export-job.js';
import type { ImportOptions } from '../../records/import-job.js';
import type { Skipped } from '../../resource-kit/imports.js';
import { uuidv7 } from '../../util/ids.js';

/** Where a run stopped (bulk_jobs.position): the index of the first row no committed batch has written. */
export interface ImportPosition {
  next: number;
}

export const findImportJob = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('bulk_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', 'import')
    .executeTakeFirst();

export const lockImportJob = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('bulk_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', 'import')
    .forUpdate()
    .executeTakeFirst();

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

/**
 * Stages rows of the file, each element `[index, line, row, problem]` of one JSON array text: one parameter for a
 * whole chunk, split by the database.
 */
export async function stageRows(trx: Executor, organizationId: string, jobId: string, json: string): Promise<void> {
  await sql`
    insert into bulk_job_rows (organization_id, job_id, row_index, line, data, problem)
    select ${organizationId}::uuid, ${jobId}::uuid, (e->>0)::int, (e->>1)::int, e->2, e->>3
    from jsonb_array_elements(${json}::jsonb) as e`.execute(trx);
}

export interface StagedRow {
  row_index: number;
  line: number;
  data: Record<string, unknown> | null;
  problem: string | null;
}

/** The next batch of staged rows from `from` on, in file order. */
export const stagedRows = (db: Executor, organizationId: string, jobId: string, from: number, limit: number) =>
  db
    .selectFrom('bulk_job_rows')
    .select(['row_index', 'line', 'data', 'problem'])
    .where('organization_id', '=', organizationId)
    .where('job_id', '=', jobId)
    .where('row_index', '>=', from)
    .orderBy('row_index')
    .limit(limit)
    .execute() as Promise<StagedRow[]>;

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
