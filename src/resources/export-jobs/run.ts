import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { DB } from '../../db/schema.js';
import { serializeRecord } from '../../events/serialize.js';
import { recordEvents } from '../../events/outbox.js';
import { ContinueLater, type JobContext, type JobDefinition } from '../../core/job-definition.js';
import { compileSelection, listPage, listRecords, listWalk, parseIncludes } from '../../lists/engine.js';
import { copyOutPages, withLiteralParameters } from '../../db/copy-out.js';
import type { ListParams } from '../../lists/query.js';
import { CsvFlattener, type ExportSource, type MetadataKeys } from '../../resource-kit/export-csv.js';
import { GZIP_START, gzipSegment } from '../../util/gzip-segments.js';
import { exportJobEvent, type BulkJobRow, type ExportResource } from '../../records/export-job.js';
import {
  countSelection,
  lockExportJob,
  updateExportJob,
  insertChunk,
  type ExportParameters,
  type ExportPosition,
} from './queries.js';
import { EXPORT_JOB_NAME, EXPORT_KEPT_MS, type ExportSources } from './service.js';

export interface ExportJobOptions {
  sources: ExportSources;
  /** The most rows one export writes (EXPORT_MAX_ROWS). */
  maxRows: number;
  /** Records per page of the walk, and so per chunk of the file. */
  pageRows: number;
  /** Records per page when the database writes the lines. */
  linePageRows: number;
  /** PostgreSQL's address when Patron runs on it: lines the database writes are then streamed by COPY. */
  databaseUrl?: string | undefined;
}

/** Why a run stopped without finishing: the job was cancelled, or another runner took it over. */
class Stopped extends Error {}

/**
 * Writes one export job's file (docs/api.md#export-jobs): counts the selection, then walks it with the list engine a
 * page at a time, each page one gzip chunk committed with the job's position and rowsProcessed in one transaction.
 * A crash loses at most the page in flight; the next run (this job row claimed again once its lease lapsed) goes on
 * from the committed position, and a chunk is written under the job's row lock only at the position it expects, so
 * two runners never write one twice. A cancel, committed under the same lock, stops the run before its next chunk.
 */
export function exportJob(options: ExportJobOptions): JobDefinition {
  return {
    name: EXPORT_JOB_NAME,
    async run(context) {
      try {
        return await runExport(options, context);
      } catch (error) {
        if (error instanceof Stopped) return { rows: 0 };
        // The runner retries; once no retry follows, the job says so instead of staying "running" for ever.
        if (context.finalAttempt) await failJob(context.db, context.organizationId, context.runKey, internalError);
        throw error;
      }
    },
  };
}

const internalError = 'The export stopped on an unexpected error; start it again, and quote its id if it recurs.';

async function runExport(
  options: ExportJobOptions,
  context: JobContext,
): Promise<Record<string, number> | ContinueLater> {
  const { db, organizationId, runKey: jobId } = context;
  let job = await start(options, context);
  if (!job) return { rows: 0 };
  const source = options.sources[job.resource as ExportResource]!;
  const parameters = job.parameters as ExportParameters;
  const params = listParams(parameters, options.pageRows);
  const flattener =
    job.format === 'csv' ? new CsvFlattener(source, parseIncludes(source.list, parameters.include)) : undefined;
  let position = (job.position as ExportPosition | null) ?? {
    phase: flattener ? 'columns' : 'rows',
    cursor: null,
    seq: 0,
  };

  // A CSV's header names every metadata key of the selection: one query per metadata field collects them, or, when
  // an extra carries metadata, a first walk of the records (writing nothing).
  if (position.phase === 'columns' && flattener) {
    const columns = flattener.metadataColumns();
    const metadataKeys = columns
      ? await metadataKeysOf(db, source, organizationId, params, columns)
      : await walkMetadataKeys(db, source, flattener, organizationId, jobId, params);
    const next: ExportPosition = { phase: 'rows', cursor: null, seq: 0, metadataKeys };
    job = await commitPage(db, job, position, next, undefined, 0, options.maxRows);
    position = next;
  }
  // Without extras, the database writes the CSV lines (docs/api.md#export-jobs).
  const sqlLine = flattener?.sqlLine(position.metadataKeys ?? {});

  const keys = position.metadataKeys ?? {};
  const pages =
    sqlLine && options.databaseUrl
      ? copiedPages(db, source, organizationId, { ...params, cursor: position.cursor ?? undefined }, sqlLine, {
          databaseUrl: options.databaseUrl,
          pageRows: options.linePageRows,
        })
      : readPages(position.cursor, (cursor) => {
          const pageParams = { ...params, cursor: cursor ?? undefined };
          if (sqlLine)
            return readLines(db, source, organizationId, { ...pageParams, limit: options.linePageRows }, sqlLine);
          return readPage(db, source, organizationId, pageParams, flattener, keys);
        });
  // Three stages at once: the next page is read while one is compressed (zlib's thread) and the one before it is
  // committed; the commits stay in order, each from the position the one before it left.
  let written = 0;
  let from = position;
  let committing: Promise<void> | undefined;
  for await (const page of pages) {
    const header = flattener && from.seq === 0 ? [Buffer.from(flattener.header(keys))] : [];
    const bytes = Buffer.concat([
      ...header,
      ...page.pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece)),
    ]);
    // Every page is a chunk, an empty selection's too, and the chunks in order are one gzip file.
    const { data, progress } = gzipSegment(bytes, from.gzip ?? GZIP_START, {
      first: from.seq === 0,
      last: !page.nextCursor,
    });
    data.catch(() => {}); // awaited below; a failure must not be unhandled meanwhile
    const to: ExportPosition = { ...from, cursor: page.nextCursor, seq: from.seq + 1, gzip: progress };
    if (committing) await committing;
    const at = from;
    committing = data.then(async (chunkData) => {
      const chunk = { data: chunkData, rows: page.count };
      job = await commitPage(db, job!, at, to, chunk, page.count, options.maxRows, !page.nextCursor);
    });
    committing.catch(() => {}); // awaited before the next commit or the end
    written += page.count;
    from = to;
    if (!page.nextCursor) {
      await committing;
      return { rows: written };
    }
    // A long export lets other organizations' due jobs run between its turns (docs/api.md#job-runner).
    if (context.turnOver()) {
      await committing;
      return new ContinueLater({ rows: written });
    }
    // The embedded engine runs its queries on this thread without waiting for I/O: without a turn of the event loop
    // between pages, an export would hold back every request of the process until it ends.
    await nextTurn();
  }
  throw new Error('The export ended without its last page');
}

/** A page of the file: its records' text in pieces (see linePieces), how many records, the cursor after it. */
interface FilePage {
  pieces: (string | Buffer)[];
  count: number;
  nextCursor: string | null;
}

/**
 * The pages of a paged walk, each read while the one before is compressed and committed: the database, zlib's
 * thread and this one work at once.
 */
async function* readPages(
  cursor: string | null,
  read: (cursor: string | null) => Promise<FilePage>,
): AsyncGenerator<FilePage> {
  const ahead = (from: string | null) => {
    const reading = read(from);
    reading.catch(() => {}); // a page read ahead and never used must not be an unhandled rejection
    return reading;
  };
  let reading = ahead(cursor);
  for (;;) {
    const page = await reading;
    if (page.nextCursor) reading = ahead(page.nextCursor);
    yield page;
    if (!page.nextCursor) return;
  }
}

/**
 * The pages of a walk streamed by COPY on PostgreSQL (docs/api.md#export-jobs): each range of the sort is one COPY
 * (one snapshot), its lines the database's bytes as they arrive, cut into pages of `pageRows` lines, each page's
 * cursor the keyset position of its last line, so a run that stops goes on from the last committed page. The next
 * page streams in while one is compressed and committed.
 */
async function* copiedPages(
  db: Kysely<DB>,
  source: ExportSource,
  organizationId: string,
  params: ListParams,
  line: RawBuilder<string>,
  options: { databaseUrl: string; pageRows: number },
): AsyncGenerator<FilePage> {
  const walk = await listWalk(db, source.list, organizationId, params, line);
  const statements = walk.statements.map((statement) => withLiteralParameters(statement.compile(db)));
  async function* pages(): AsyncGenerator<FilePage> {
    for await (const page of copyOutPages(options.databaseUrl, statements, options.pageRows)) {
      const nextCursor = page.last || !page.lastId ? null : walk.cursorAfter(page.lastSort, page.lastId);
      yield { pieces: page.pieces, count: page.count, nextCursor };
    }
  }
  const stream = pages();
  try {
    let next = stream.next();
    for (;;) {
      const result = await next;
      if (result.done) return;
      if (result.value.nextCursor) {
        next = stream.next();
        next.catch(() => {}); // read ahead; a failure surfaces when awaited
      }
      yield result.value;
    }
  } finally {
    await stream.return(undefined).catch(() => {});
  }
}

/**
 * A page's lines as text in pieces of LINES_PER_PIECE lines, each line ending in a newline. A page's text in one
 * string (a megabyte or more) would be allocated in V8's large-object space, which only a full collection frees, so
 * an export's pages would pile up there between collections; pieces stay small and die young.
 */
function linePieces(lines: readonly string[]): string[] {
  const pieces: string[] = [];
  for (let from = 0; from < lines.length; from += LINES_PER_PIECE)
    pieces.push(`${lines.slice(from, from + LINES_PER_PIECE).join('\n')}\n`);
  return pieces;
}

const LINES_PER_PIECE = 200;

/** The job's selection as the list engine takes it, its quick filter as it was when the export was made. */
function listParams(parameters: ExportParameters, pageRows: number): ListParams {
  return {
    limit: pageRows,
    filter: parameters.filter ? JSON.stringify(parameters.filter) : undefined,
    search: parameters.search,
    include: parameters.include,
    sort: parameters.sort,
    saved: parameters.saved ? { ...parameters.saved, path: 'quickFilter' } : undefined,
  };
}

/**
 * One page of the list, as its endpoint answers it: each record serialized with the list's record schema (the JSON
 * the list returns, byte for byte), and for a CSV parsed back and flattened, so both formats read exactly what the
 * API shows.
 */
async function readPage(
  db: Kysely<DB>,
  source: ExportSource,
  organizationId: string,
  params: ListParams,
  flattener?: CsvFlattener,
  keys: MetadataKeys = {},
): Promise<FilePage> {
  const { lines, nextCursor } = await serializedPage(db, source, organizationId, params);
  const pieces = flattener
    ? flattener.body(
        lines.map((line) => JSON.parse(line) as unknown),
        keys,
      )
    : linePieces(lines);
  return { pieces, count: lines.length, nextCursor };
}

/** One page of records serialized as the list endpoint writes them. */
async function serializedPage(db: Kysely<DB>, source: ExportSource, organizationId: string, params: ListParams) {
  const page = await listRecords(db, source.list, organizationId, params, source.toRecord as (row: never) => object);
  return { lines: page.data.map((record) => serializeRecord(source.record, record)), nextCursor: page.nextCursor };
}

/** One page of CSV lines written by the database, in the list's order and keyset-walked like any page of it. */
async function readLines(
  db: Kysely<DB>,
  source: ExportSource,
  organizationId: string,
  params: ListParams,
  line: RawBuilder<string>,
): Promise<FilePage> {
  const page = await listPage<{ id: string; line: string }>(
    db,
    source.list,
    organizationId,
    params,
    sql`${line} as line`,
  );
  return { pieces: linePieces(page.rows.map((row) => row.line)), count: page.rows.length, nextCursor: page.nextCursor };
}

/** The metadata keys of the selection, one query per metadata field (each sorted, as the header names them). */
async function metadataKeysOf(
  db: Kysely<DB>,
  source: ExportSource,
  organizationId: string,
  params: ListParams,
  columns: Map<string, string>,
): Promise<MetadataKeys> {
  const selection = compileSelection(source.list, organizationId, params);
  const keys: MetadataKeys = {};
  for (const [path, column] of columns) {
    const { rows } = await sql<{ key: string }>`
      select distinct jsonb_object_keys(${sql.raw(column)}) as key
      from ${sql.raw(source.list.from)} ${selection.joins} where ${selection.where}`.execute(db);
    keys[path] = rows.map((row) => row.key).sort();
  }
  return keys;
}

/** The metadata keys of every record of the selection, walked page by page (stopping when the job is cancelled). */
async function walkMetadataKeys(
  db: Kysely<DB>,
  source: ExportSource,
  flattener: CsvFlattener,
  organizationId: string,
  jobId: string,
  params: ListParams,
): Promise<MetadataKeys> {
  const keys = new Map<string, Set<string>>();
  let cursor: string | null = null;
  do {
    const page = await serializedPage(db, source, organizationId, { ...params, cursor: cursor ?? undefined });
    flattener.collect(
      page.lines.map((line) => JSON.parse(line) as unknown),
      keys,
    );
    cursor = page.nextCursor;
    await checkRunning(db, organizationId, jobId);
  } while (cursor);
  return Object.fromEntries([...keys].map(([path, set]) => [path, [...set].sort()]));
}

/**
 * Claims the job for this run: a queued job becomes running with its selection counted (more than maxRows fails it
 * at once); a running one (a resumed run) goes on; any other is left alone.
 */
async function start(options: ExportJobOptions, context: JobContext): Promise<BulkJobRow | undefined> {
  const { db, organizationId, runKey: jobId } = context;
  return db.transaction().execute(async (trx) => {
    const job = await lockExportJob(trx, organizationId, jobId);
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return undefined;
    if (job.status === 'running') return job;
    const source = options.sources[job.resource as ExportResource];
    if (!source) {
      await finish(trx, job, { status: 'failed', error: `Patron has no ${job.resource} list to export.` });
      return undefined;
    }
    const params = listParams(job.parameters as ExportParameters, options.pageRows);
    const selection = compileSelection(source.list, organizationId, params);
    const total = await countSelection(trx, source.list.from, selection.joins, selection.where);
    if (total > options.maxRows) {
      await finish(trx, job, { status: 'failed', error: tooMany(total, options.maxRows), rowsTotal: total });
      return undefined;
    }
    return updateExportJob(trx, organizationId, jobId, {
      status: 'running',
      started_at: new Date(),
      rows_total: total,
    });
  });
}

const tooMany = (rows: number, maxRows: number) =>
  `The selection holds ${rows} records, more than the ${maxRows} one export may write (EXPORT_MAX_ROWS); narrow it with a filter or a search.`;

/**
 * Commits one page: the chunk, the position after it and rowsProcessed in one transaction, under the job's row lock,
 * and only from the position this run expects (otherwise another runner has moved on, and this one stops). The last
 * page also finishes the job and records exportJob.completed, last in the same transaction.
 */
async function commitPage(
  db: Kysely<DB>,
  job: BulkJobRow,
  from: ExportPosition,
  to: ExportPosition,
  chunk: { data: Uint8Array; rows: number } | undefined,
  rows: number,
  maxRows: number,
  last = false,
): Promise<BulkJobRow> {
  return db.transaction().execute(async (trx) => {
    const locked = await lockExportJob(trx, job.organization_id, job.id);
    const stored = (locked?.position as ExportPosition | null) ?? null;
    if (!locked || locked.status !== 'running') throw new Stopped();
    if ((stored?.phase ?? from.phase) !== from.phase || (stored?.seq ?? 0) !== from.seq) throw new Stopped();
    const processed = locked.rows_processed + rows;
    if (processed > maxRows) {
      // Records added since the count: the file would hold more than an export may.
      await finish(trx, locked, { status: 'failed', error: tooMany(processed, maxRows) });
      throw new Stopped();
    }
    if (chunk) {
      await insertChunk(trx, {
        organizationId: job.organization_id,
        jobId: job.id,
        seq: from.seq,
        data: chunk.data,
        rows: chunk.rows,
      });
    }
    const updated = await updateExportJob(trx, job.organization_id, job.id, {
      position: to,
      rows_processed: processed,
    });
    return last ? finish(trx, updated, { status: 'succeeded' }) : updated;
  });
}

/**
 * The job's final status; a finished job (succeeded or failed) announces itself with exportJob.completed, recorded
 * last in the transaction (docs/api.md#events-and-the-outbox). Its file is kept EXPORT_KEPT_MS.
 */
async function finish(
  trx: Executor,
  job: BulkJobRow,
  outcome: { status: 'succeeded' } | { status: 'failed'; error: string; rowsTotal?: number },
): Promise<BulkJobRow> {
  const now = new Date();
  const row = await updateExportJob(trx, job.organization_id, job.id, {
    status: outcome.status,
    finished_at: now,
    ...(outcome.status === 'succeeded'
      ? { expires_at: new Date(now.getTime() + EXPORT_KEPT_MS), error: null }
      : { error: outcome.error, ...(outcome.rowsTotal !== undefined ? { rows_total: outcome.rowsTotal } : {}) }),
  });
  if (outcome.status === 'failed') {
    await trx
      .deleteFrom('bulk_job_chunks')
      .where('organization_id', '=', job.organization_id)
      .where('job_id', '=', job.id)
      .execute();
  }
  await recordEvents(trx, [exportJobEvent(job.organization_id, row)]);
  return row;
}

/** Stops the collecting walk of a cancelled job within a page. */
async function checkRunning(db: Kysely<DB>, organizationId: string, jobId: string): Promise<void> {
  const row = await db
    .selectFrom('bulk_jobs')
    .select('status')
    .where('organization_id', '=', organizationId)
    .where('id', '=', jobId)
    .executeTakeFirst();
  if (row?.status !== 'running') throw new Stopped();
}

/** Marks a job failed after the runner's last attempt failed (a run that cannot go on). */
async function failJob(db: Kysely<DB>, organizationId: string, jobId: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const job = await lockExportJob(trx, organizationId, jobId);
    if (job && (job.status === 'queued' || job.status === 'running'))
      await finish(trx, job, { status: 'failed', error });
  });
}
