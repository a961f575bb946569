import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ApiError, unprocessable } from '../../http/errors.js';
import { MAX_IMPORT_ROWS } from './schemas.js';

export interface Skipped {
  index: number;
  message: string;
  itemIndex?: number;
}

/** Issue 3: at most 1,000 rows per import request; more is 413 naming the limit. */
export function checkImportSize(rows: readonly unknown[]): void {
  if (rows.length > MAX_IMPORT_ROWS) {
    throw new ApiError(
      'PAYLOAD_TOO_LARGE',
      `An import takes at most ${MAX_IMPORT_ROWS} rows per request; this one has ${rows.length}. Split it into several requests.`,
    );
  }
}

/** A strict import stops at its first unresolved reference: 422, nothing written (the transaction rolls back). */
export function strictFailure(skipped: Skipped): ApiError {
  const path = `body.data[${skipped.index}]${skipped.itemIndex !== undefined ? `.items[${skipped.itemIndex}]` : ''}`;
  return unprocessable(`Import stopped at row ${skipped.index}: ${skipped.message}`, [{ path, message: skipped.message }]);
}

/** Records where each imported record came from, for include=importJob. */
export async function recordImportRows(
  trx: Transaction<DB>,
  organizationId: string,
  importJobId: string,
  type: string,
  rows: readonly { recordId: string; action: 'created' | 'updated'; row: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('import_job_records')
    .values(
      rows.map((row) => ({
        organization_id: organizationId,
        import_job_id: importJobId,
        record_id: row.recordId,
        type,
        action: row.action,
        row: row.row,
      })),
    )
    .onConflict((oc) => oc.columns(['organization_id', 'record_id', 'import_job_id']).doUpdateSet((eb) => ({ action: eb.ref('excluded.action'), row: eb.ref('excluded.row') })))
    .execute();
}

/** The latest import of each record (include=importJob), one query for the page. */
export async function latestImportJobs(db: Kysely<DB>, organizationId: string, recordIds: readonly string[]) {
  const rows = await db
    .selectFrom('import_job_records')
    .select(['record_id', 'import_job_id', 'type', 'action', 'row', 'created_at'])
    .distinctOn('record_id')
    .where('organization_id', '=', organizationId)
    .where('record_id', 'in', [...recordIds])
    .orderBy('record_id')
    .orderBy('created_at', 'desc')
    .orderBy('import_job_id', 'desc')
    .execute();
  return new Map<string, unknown>(
    rows.map((row) => [
      row.record_id,
      { id: row.import_job_id, type: row.type, action: row.action, row: row.row, createdAt: row.created_at },
    ]),
  );
}
