import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { ApiError } from '../../core/errors.js';
import { ContinueLater, type JobContext, type JobDefinition } from '../../core/job-definition.js';
import type { BulkJobRow } from '../../records/export-job.js';
import { importJobEvent, type ImportOptions, type ImportResource } from '../../records/import-job.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import type { Skipped } from '../../resource-kit/imports.js';
import {
  deleteStagedBatch,
  deleteStagedRows,
  insertSkipped,
  lockImportJob,
  nextStagedBatch,
  updateImportJob,
  type ImportPosition,
  type StagedRow,
} from './queries.js';
import { IMPORT_JOB_NAME, type ImportSources } from './service.js';

export interface ImportJobOptions {
  sources: ImportSources;
}

/** Why a run stopped without finishing: the job was cancelled, or another runner took it over. */
class Stopped extends Error {}

/** A row the import refused (a 400 or 409 naming it): the batch runs again without it. */
class RowFault extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

/** What ends the job as failed: a strict job's first row that cannot be imported, or a refusal of the whole batch. */
class JobFailure extends Error {}

/**
 * Runs one import job (docs/api.md#import-jobs): its staged rows in batches, each batch the resource's synchronous
 * import inside one transaction that also records what it skipped and moves the job's position and counts. A crash
 * loses at most the batch in flight: the next run (the job row claimed again once its lease lapsed) starts at the
 * committed position, and a batch commits only at the position its runner expects, under the job's row lock, so no
 * row is ever written twice. A cancel, committed under the same lock, stops the run before its next batch.
 */
export function importJob(options: ImportJobOptions): JobDefinition {
  return {
    name: IMPORT_JOB_NAME,
    async run(context) {
      try {
        return await runImport(options, context);
      } catch (error) {
        if (error instanceof Stopped) return { rows: 0 };
        // The runner retries; once no retry follows, the job says so instead of staying "running" for ever.
        if (context.finalAttempt) await failJob(context.db, context.organizationId, context.runKey, internalError);
        throw error;
      }
    },
  };
}

const internalError = 'The import stopped on an unexpected error; start it again, and quote its id if it recurs.';

async function runImport(
  options: ImportJobOptions,
  context: JobContext,
): Promise<Record<string, number> | ContinueLater> {
  const { db, organizationId, runKey: jobId } = context;
  const job = await start(db, organizationId, jobId);
  if (!job) return { rows: 0 };
  const source = options.sources[job.resource as ImportResource];
  if (!source) {
    await failJob(db, organizationId, jobId, `Patron has no ${job.resource} import.`);
    return { rows: 0 };
  }
  const jobOptions = job.parameters as ImportOptions;
  let position = (job.position as ImportPosition | null)?.next ?? 0;
  // Rows the import refused during this run; a resumed run finds them again, as the batch they are in is re-run.
  const refused = new Map<number, string>();
  let rows = 0;
  for (;;) {
    const staged = await nextStagedBatch(db, organizationId, jobId, position);
    if (!staged) {
      await finishJob(db, organizationId, jobId, position, { status: 'succeeded' });
      return { rows };
    }
    const batch = staged.rows;
    try {
      const transaction = () => commitBatch(db, source, job, jobOptions, position, staged.firstIndex, batch, refused);
      await (source.around ? source.around(transaction) : transaction());
    } catch (error) {
      if (error instanceof RowFault) {
        refused.set(error.index, error.message);
        continue;
      }
      if (error instanceof JobFailure) {
        await finishJob(db, organizationId, jobId, position, { status: 'failed', error: error.message });
        return { rows };
      }
      throw error;
    }
    position = batch.at(-1)!.row_index + 1;
    rows += batch.length;
    // A long import lets other organizations' due jobs run between its turns (docs/api.md#job-runner).
    if (context.turnOver()) return new ContinueLater({ rows });
    // The embedded engine runs its queries on this thread without waiting for I/O: without a turn of the event loop
    // between batches, a job would hold back every request of the process until it ends.
    await nextTurn();
  }
}

/** Claims the job for this run: a queued job becomes running; a running one (a resumed run) goes on. */
async function start(db: Kysely<DB>, organizationId: string, jobId: string): Promise<BulkJobRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const job = await lockImportJob(trx, organizationId, jobId);
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return undefined;
    if (job.status === 'running') return job;
    return updateImportJob(trx, organizationId, jobId, { status: 'running', started_at: new Date() });
  });
}

/**
 * One batch in one transaction, under the job's row lock and only from the position this run expects (the batch is
 * removed from the staged ones in the same transaction): rows that
 * could not be read into a valid row, or that the import refused earlier in this run, are skipped (a strict job
 * fails at the first); the rest go through the resource's import, whose own skipped rows are recorded too.
 */
async function commitBatch(
  db: Kysely<DB>,
  source: ImportSource,
  job: BulkJobRow,
  options: ImportOptions,
  position: number,
  firstIndex: number,
  batch: readonly StagedRow[],
  refused: ReadonlyMap<number, string>,
): Promise<void> {
  const { organization_id: organizationId, id: jobId } = job;
  await db.transaction().execute(async (trx) => {
    const locked = await lockImportJob(trx, organizationId, jobId);
    if (!locked || locked.status !== 'running') throw new Stopped();
    if (((locked.position as ImportPosition | null)?.next ?? 0) !== position) throw new Stopped();

    const skipped: (Skipped & { line: number })[] = [];
    const valid: StagedRow[] = [];
    for (const row of batch) {
      const problem = row.problem ?? refused.get(row.row_index);
      if (problem === undefined || problem === null) {
        valid.push(row);
        continue;
      }
      if (options.strict) throw new JobFailure(atRow(row, problem));
      skipped.push({ index: row.row_index, line: row.line, message: problem });
    }
    const outcome = valid.length
      ? await source
          .run(
            trx,
            organizationId,
            { ...options, data: valid.map((row) => row.data) },
            { id: jobId, type: 'import-job', rowOf: (index) => valid[index]!.row_index },
          )
          .catch((error: unknown) => {
            throw faultOf(error, valid);
          })
      : { data: [], skipped: [] };
    for (const entry of outcome.skipped) {
      const row = valid[entry.index]!;
      skipped.push({ ...entry, index: row.row_index, line: row.line });
    }
    const skippedRows = new Set(skipped.map((entry) => entry.index)).size;
    const importedSkipped = new Set(outcome.skipped.map((entry) => entry.index)).size;
    const created = outcome.created ?? outcome.data.length;
    const updated = outcome.updated ?? 0;
    const unchanged = outcome.unchanged ?? valid.length - importedSkipped - created - updated;
    await insertSkipped(trx, organizationId, jobId, skipped);
    await deleteStagedBatch(trx, organizationId, jobId, firstIndex);
    await updateImportJob(trx, organizationId, jobId, {
      position: { next: batch.at(-1)!.row_index + 1 },
      rows_processed: locked.rows_processed + batch.length,
      created: locked.created + created,
      updated: locked.updated + updated,
      unchanged: locked.unchanged + unchanged,
      skipped: locked.skipped + skippedRows,
    });
  });
}

const ROW_PATH = /body\.data\[(\d+)\]/g;

/**
 * An import's refusal as the job reads it: one naming a row of the batch (400, 409) skips that row, or fails a
 * strict job (a strict import's 422 names its first unresolved row); any other refusal fails the job. The message
 * names rows of the file, not of the batch.
 */
function faultOf(error: unknown, valid: readonly StagedRow[]): unknown {
  if (!(error instanceof ApiError)) return error;
  const rowOf = (index: string) => valid[Number(index)];
  const message = error.message.replace(ROW_PATH, (_match, index: string) => `row ${rowOf(index)?.row_index ?? index}`);
  const named = /^body\.data\[(\d+)\]/.exec(error.details?.[0]?.path ?? '');
  const row = named ? rowOf(named[1]!) : undefined;
  if (!row) return new JobFailure(message);
  if (error.code === 'UNPROCESSABLE') return new JobFailure(atRow(row, message));
  return new RowFault(row.row_index, message);
}

const atRow = (row: StagedRow, message: string) => `Row ${row.row_index} (line ${row.line}): ${message}`;

/**
 * The job's final status, recorded with importJob.completed last in the same transaction
 * (docs/api.md#events-and-the-outbox); its staged rows go. A job finished meanwhile (cancelled) is left alone.
 */
async function finishJob(
  db: Kysely<DB>,
  organizationId: string,
  jobId: string,
  position: number,
  outcome: { status: 'succeeded' } | { status: 'failed'; error: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const job = await lockImportJob(trx, organizationId, jobId);
    if (!job || job.status !== 'running') return;
    if (((job.position as ImportPosition | null)?.next ?? 0) !== position && outcome.status === 'succeeded') return;
    await finish(trx, job, outcome);
  });
}

async function finish(
  trx: Executor,
  job: BulkJobRow,
  outcome: { status: 'succeeded' } | { status: 'failed'; error: string },
): Promise<void> {
  const row = await updateImportJob(trx, job.organization_id, job.id, {
    status: outcome.status,
    finished_at: new Date(),
    error: outcome.status === 'failed' ? outcome.error : null,
  });
  await deleteStagedRows(trx, job.organization_id, job.id);
  await recordEvents(trx, [importJobEvent(job.organization_id, row)]);
}

/** Marks a job failed after the runner's last attempt failed (a run that cannot go on). */
async function failJob(db: Kysely<DB>, organizationId: string, jobId: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const job = await lockImportJob(trx, organizationId, jobId);
    if (job && (job.status === 'queued' || job.status === 'running'))
      await finish(trx, job, { status: 'failed', error });
  });
}
