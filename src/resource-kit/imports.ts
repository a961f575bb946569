import { sql, type Kysely, type Transaction } from 'kysely';
import type { Static } from 'typebox';
import { plainArrayLiteral } from '../db/arrays.js';
import { PREPARE, preparedForIds } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import { ApiError, unprocessable, validationError } from '../core/errors.js';
import { MAX_IMPORT_ROWS, type SkippedRow } from '../records/common.js';
import type { ImportProvenance } from './import-source.js';

/** A row an import left out, and why; itemIndex names the order item at fault. */
export type Skipped = Static<typeof SkippedRow>;

/** At most 1,000 rows per import request; more is 413 naming the limit (docs/api.md#import-rows). */
export function checkImportSize(rows: readonly unknown[]): void {
  if (rows.length > MAX_IMPORT_ROWS) {
    throw new ApiError(
      'PAYLOAD_TOO_LARGE',
      `An import takes at most ${MAX_IMPORT_ROWS} rows per request; this one has ${rows.length}. Split it into several requests.`,
    );
  }
}

/**
 * Two rows naming the same record (or two variants of a row with the same slug) are ambiguous: 400 naming the
 * first repeat. `noun` reads in the message ("send each order once"). An undefined value (a row without the field)
 * repeats nothing.
 */
export function refuseDuplicates(
  values: readonly (string | undefined)[],
  field: string,
  options: { path?: string; noun?: string } = {},
): void {
  const path = options.path ?? 'body.data';
  const seen = new Map<string, number>();
  values.forEach((value, index) => {
    if (value === undefined) return;
    const first = seen.get(value);
    if (first !== undefined) {
      throw validationError(
        `Invalid request: ${path}[${index}].${field} repeats ${path}[${first}].${field} "${value}"; send each ${options.noun ? `${options.noun} ` : ''}once.`,
        [{ path: `${path}[${index}].${field}`, message: `repeats ${path}[${first}].${field}` }],
      );
    }
    seen.set(value, index);
  });
}

/**
 * The first row that names the same record as an earlier one by its natural key (rows with a remoteId, and those
 * `keyOf` gives no key, aside): [its index, the earlier one's], for the import's own 400.
 */
export function firstSameRecord<T extends { row: { index: number; remoteId?: string | undefined } }>(
  entries: readonly T[],
  keyOf: (entry: T) => string,
): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (const entry of entries) {
    if (entry.row.remoteId !== undefined) continue;
    const key = keyOf(entry);
    const first = seen.get(key);
    if (first !== undefined) return [entry.row.index, first];
    seen.set(key, entry.row.index);
  }
  return undefined;
}

/**
 * What each matched row did, from the rows the import inserted and those its conditional update wrote: created,
 * updated (its values differed) or unchanged (nothing written; docs/api.md#writes-that-change-nothing). `record` is
 * the record as it now is, for the answer and the events.
 */
export function importOutcomes<R extends { id: string }>(
  plans: readonly { id: string; existing?: R | undefined }[],
  created: readonly R[],
  updated: readonly R[],
): { record: R; action: ImportAction }[] {
  const createdById = new Map(created.map((row) => [row.id, row]));
  const updatedById = new Map(updated.map((row) => [row.id, row]));
  return plans.map((plan) => {
    const createdRow = createdById.get(plan.id);
    if (createdRow) return { record: createdRow, action: 'created' };
    const updatedRow = updatedById.get(plan.id);
    if (updatedRow) return { record: updatedRow, action: 'updated' };
    return { record: plan.existing!, action: 'unchanged' };
  });
}

/** A strict import stops at its first unresolved reference: 422, nothing written (the transaction rolls back). */
export function strictFailure(skipped: Skipped): ApiError {
  const path = `body.data[${skipped.index}]${skipped.itemIndex !== undefined ? `.items[${skipped.itemIndex}]` : ''}`;
  return unprocessable(`Import stopped at row ${skipped.index}: ${skipped.message}`, [
    { path, message: skipped.message },
  ]);
}

/**
 * Records where each imported record came from, for include=importJob: one statement with one array parameter per
 * column, however many rows (a VALUES list of 6 parameters per row cost more to parse and plan than to insert). A
 * row's index is mapped through the provenance (an import job's row in its file).
 */
export async function recordImportRows(
  trx: Transaction<DB>,
  organizationId: string,
  provenance: ImportProvenance,
  rows: readonly { recordId: string; action: 'created' | 'updated'; row: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`${PREPARE}
    insert into import_job_records (organization_id, import_job_id, record_id, type, action, "row")
    select ${organizationId}::uuid, ${provenance.id}::uuid, u.record_id, ${provenance.type}, u.action, u."row"
    from unnest(${plainArrayLiteral(rows.map((row) => row.recordId))}::uuid[], ${rows.map((row) => row.action)}::text[], ${plainArrayLiteral(rows.map((row) => provenance.rowOf(row.row)))}::int[])
      as u(record_id, action, "row")
    on conflict (organization_id, record_id, import_job_id) do update set action = excluded.action, "row" = excluded."row"`.execute(
    trx,
  );
}

const selectLatestImportJobs = preparedForIds((db, organizationId, recordIds) =>
  db
    .selectFrom('import_job_records')
    .select(['record_id', 'import_job_id', 'type', 'action', 'row', 'created_at'])
    .distinctOn('record_id')
    .where('organization_id', '=', organizationId)
    .where('record_id', '=', recordIds)
    .orderBy('record_id')
    .orderBy('created_at', 'desc')
    .orderBy('import_job_id', 'desc'),
);

/** The latest import of each record (include=importJob), one query for the page. */
export async function latestImportJobs(db: Kysely<DB>, organizationId: string, recordIds: readonly string[]) {
  const rows = await selectLatestImportJobs(db, organizationId, recordIds);
  return new Map<string, unknown>(
    rows.map((row) => [
      row.record_id,
      { id: row.import_job_id, type: row.type, action: row.action, row: row.row, createdAt: row.created_at },
    ]),
  );
}

/** What an import row did to its record; an unchanged row wrote nothing (docs/api.md#writes-that-change-nothing). */
export type ImportAction = 'created' | 'updated' | 'unchanged';

/** The import answer's counts (docs/api.md#writes-that-change-nothing): each written row once, by what it did. */
export function importCounts(entries: readonly { action: ImportAction }[]) {
  const count = (action: string) => entries.filter((entry) => entry.action === action).length;
  return { created: count('created'), updated: count('updated'), unchanged: count('unchanged') };
}
