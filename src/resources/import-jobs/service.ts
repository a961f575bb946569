import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline as streamPipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { CsvError, parse } from 'csv-parse';
import type { Kysely } from 'kysely';
import { grants } from '../../auth/permissions.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { ApiError, notFound, validationError } from '../../core/errors.js';
import type { AuthContext } from '../../core/types.js';
import { enqueueMany } from '../../jobs/runner/queue.js';
import { jobsQueued } from '../../jobs/runner/wake.js';
import { listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import type { BulkJobRow } from '../../records/export-job.js';
import {
  IMPORT_JOB_MAX_BYTES,
  IMPORT_JOB_MAX_ROWS,
  IMPORT_OPTIONS,
  importJobEvent,
  toImportJob,
  toImportJobSkippedRow,
  type ImportJob,
  type ImportJobSkippedFields,
  type ImportOptions,
  type ImportResource,
} from '../../records/import-job.js';
import { FileProblem, ImportFileReader, type FileRow } from '../../resource-kit/import-file.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { uuidv7 } from '../../util/ids.js';
import { importJobList, importJobSkippedList } from './list.js';
import {
  deleteStagedRows,
  findImportJob,
  insertImportJob,
  lockImportJob,
  stageBatch,
  updateImportJob,
} from './queries.js';
import type { ImportJobQuery } from './schemas.js';

/** The resources an import job can write, handed in by the composition root (docs/api.md#import-jobs). */
export type ImportSources = Readonly<Partial<Record<ImportResource, ImportSource>>>;

/** The job that writes an import's rows; its run key is the import job's id. */
export const IMPORT_JOB_NAME = 'importJob.run';

/** The file's media types and the format each is read as (docs/api.md#import-jobs). */
const FORMATS: Record<string, 'csv' | 'jsonl'> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
};

/** stream/promises' pipeline, whose overloads do not type a chain of transforms and async generators. */
const pipeline = streamPipeline as unknown as (...stages: unknown[]) => Promise<void>;

/** A line longer than this is no row of any import (each holds at most a few hundred kilobytes). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

export interface Upload {
  query: ImportJobQuery;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  contentLength: number | undefined;
  body: Readable;
}

const forbidden = (permission: string) =>
  new ApiError('FORBIDDEN', `This API key lacks the permission "${permission}" that this import's resource requires.`);

const tooLarge = (what: string) =>
  new ApiError(
    'PAYLOAD_TOO_LARGE',
    `An import job takes at most ${IMPORT_JOB_MAX_ROWS.toLocaleString('en-US')} rows and 100 MiB; ${what}. Split the file into several jobs.`,
  );

export class ImportJobService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly sources: ImportSources,
    /** Rows per staged batch: the run writes one batch per transaction. */
    private readonly batchRows: number,
  ) {}

  /**
   * Receives the uploaded file into a temporary file, reads it into rows (never whole in memory: the rows go to a
   * second temporary file), then
   * stages them with the job and its queued run in one transaction, so a refused upload writes nothing: a file of
   * another type or encoding is 415, one over 100,000 rows or 100 MiB is 413 (docs/api.md#import-jobs). A file that
   * cannot be read (a quote never closed, a line that is not JSON, a column the import does not know) makes a job
   * that failed, naming the line, so the caller reads why in the same place as every other outcome.
   */
  async create(auth: AuthContext, upload: Upload): Promise<ImportJob> {
    const { organizationId } = auth;
    const { resource, ...given } = upload.query;
    const source = this.sources[resource];
    if (!source) {
      throw validationError(`Patron has no ${resource} import.`, [
        { path: 'query.resource', message: 'names an import that does not exist' },
      ]);
    }
    if (!grants(auth.permissions, source.permission)) throw forbidden(source.permission);
    const options = optionsFor(source, resource, given);
    const format = formatOf(upload.contentType);
    const gzip = encodingOf(upload.contentEncoding);
    if (upload.contentLength !== undefined && upload.contentLength > IMPORT_JOB_MAX_BYTES)
      throw tooLarge(`this file has ${upload.contentLength.toLocaleString('en-US')} bytes`);

    const directory = await mkdtemp(join(tmpdir(), 'patron-import-'));
    try {
      const staged = join(directory, 'rows.jsonl');
      const read = await readFile(upload.body, {
        source,
        resource,
        format,
        gzip,
        received: join(directory, 'received'),
        staged,
      });
      const id = uuidv7();
      if (read.problem) {
        const job = await this.db.transaction().execute(async (trx) => {
          const row = await insertImportJob(trx, {
            organizationId,
            id,
            resource,
            format,
            options,
            rowsTotal: read.rows,
            failed: read.problem!.message,
          });
          await recordEvents(trx, [importJobEvent(organizationId, row)]);
          return row;
        });
        return toImportJob(job);
      }
      const job = await this.db.transaction().execute(async (trx) => {
        const row = await insertImportJob(trx, { organizationId, id, resource, format, options, rowsTotal: read.rows });
        await stageFile(staged, this.batchRows, (first, json) => stageBatch(trx, organizationId, id, first, json));
        await enqueueMany(trx, organizationId, IMPORT_JOB_NAME, [id], new Date());
        return row;
      });
      // On the next turn of the event loop, once this answer is on its way: the runner may start at once.
      setImmediate(jobsQueued);
      return toImportJob(job);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /** The organization's import jobs, newest first, of the resources the key may write (docs/api.md#import-jobs). */
  async list(auth: AuthContext, params: ListParams) {
    const writable = this.writable(auth);
    if (writable.length === 0) return { data: [], nextCursor: null };
    return listRecords(
      this.db,
      importJobList,
      auth.organizationId,
      {
        ...params,
        saved: {
          filter: { resource: { $in: writable } },
          search: null,
          sort: null,
          version: writable.join(','),
          path: 'auth',
        },
      },
      (row: BulkJobRow) => toImportJob(row),
    );
  }

  async get(auth: AuthContext, id: string): Promise<ImportJob> {
    return toImportJob(await this.visible(auth, id));
  }

  /** The rows the job skipped, in file order, one entry per row (or per order item at fault). */
  async skipped(auth: AuthContext, id: string, params: ListParams) {
    await this.visible(auth, id);
    return listRecords(
      this.db,
      importJobSkippedList,
      auth.organizationId,
      {
        ...params,
        saved: { filter: { jobId: id }, search: null, sort: null, version: id, path: 'path.id' },
      },
      (row: ImportJobSkippedFields) => toImportJobSkippedRow(row),
    );
  }

  /**
   * Cancels a queued or running import: the run stops before its next batch commits; the rows committed so far stay
   * written (docs/api.md#import-jobs). A finished job is answered as it is, and nothing is written.
   */
  async cancel(auth: AuthContext, id: string): Promise<ImportJob> {
    await this.visible(auth, id);
    return this.db.transaction().execute(async (trx) => {
      const row = await lockImportJob(trx, auth.organizationId, id);
      if (!row) throw notFound('The import job');
      if (row.status !== 'queued' && row.status !== 'running') return toImportJob(row);
      const cancelled = await updateImportJob(trx, auth.organizationId, id, {
        status: 'cancelled',
        finished_at: new Date(),
      });
      await deleteStagedRows(trx, auth.organizationId, id);
      return toImportJob(cancelled);
    });
  }

  private writable(auth: AuthContext): string[] {
    return Object.entries(this.sources)
      .filter(([, source]) => grants(auth.permissions, source!.permission))
      .map(([resource]) => resource)
      .sort();
  }

  /** Another organization's job is 404 like a missing one; one of a resource the key cannot write is 403. */
  private async visible(auth: AuthContext, id: string): Promise<BulkJobRow> {
    const row = await findImportJob(this.db, auth.organizationId, id);
    if (!row) throw notFound('The import job');
    const source = this.sources[row.resource as ImportResource];
    if (source && !grants(auth.permissions, source.permission)) throw forbidden(source.permission);
    return row;
  }
}

/** The options given, each checked against what the resource's import takes (400 naming the query parameter). */
function optionsFor(source: ImportSource, resource: string, given: Omit<ImportJobQuery, 'resource'>): ImportOptions {
  const takes = new Set(Object.keys(source.body.properties ?? {}));
  const options: ImportOptions = {};
  for (const name of IMPORT_OPTIONS) {
    const value = given[name];
    if (value === undefined) continue;
    if (!takes.has(name)) {
      throw validationError(`Invalid request: the ${resource} import takes no ${name} option.`, [
        { path: `query.${name}`, message: `is not an option of the ${resource} import` },
      ]);
    }
    options[name] = value;
  }
  return options;
}

export function formatOf(contentType: string | undefined): 'csv' | 'jsonl' {
  const [type = '', ...parameters] = (contentType ?? '').toLowerCase().split(';');
  const format = FORMATS[type.trim()];
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/.exec(parameter)?.[1])
    .find(Boolean);
  if (!format || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'An import job takes the file itself as the body: send Content-Type: text/csv or application/x-ndjson, encoded as UTF-8.',
    );
  }
  return format;
}

export function encodingOf(contentEncoding: string | undefined): boolean {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return true;
  if (encoding === 'identity' || encoding === '') return false;
  throw new ApiError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Content-Encoding "${encoding}" is not supported: send the file as it is, or compressed with gzip.`,
  );
}

interface ReadOptions {
  source: ImportSource;
  resource: string;
  format: 'csv' | 'jsonl';
  gzip: boolean;
  /** Where the body is received first, as it was sent. */
  received: string;
  /** Where the rows go, one `[index, line, row, problem]` JSON array per line. */
  staged: string;
}

/**
 * Streams the body through (gunzip,) strict UTF-8 decoding and the CSV parser or a line splitter into the reader,
 * writing each row to the staging file. Over the limits is 413 (thrown); a file problem ends the read with it.
 */
async function readFile(
  body: Readable,
  options: ReadOptions,
): Promise<{ rows: number; problem?: FileProblem | undefined }> {
  // The body is received whole first, as fast as the client sends it, so reading it never holds the request past
  // its time limit however slow the parsing (docs/api.md#slow-clients); then it is read from disk.
  await pipeline(body, limitBytes('this file has more than 100 MiB'), createWriteStream(options.received));
  const reader = new ImportFileReader(options.source, options.resource);
  const out = createWriteStream(options.staged);
  let rows = 0;
  let problem: FileProblem | undefined;
  const decoded = { lines: 1 };
  // The line the last whole CSV record ended on: a quote never closed opened on a line after it.
  let recordsEnd = 0;
  const write = async (row: FileRow | undefined) => {
    if (!row) return;
    if (rows >= IMPORT_JOB_MAX_ROWS)
      throw tooLarge(`this file has more than ${IMPORT_JOB_MAX_ROWS.toLocaleString('en-US')} rows`);
    if (!out.write(`${JSON.stringify([rows, row.line, row.row, row.problem ?? null])}\n`)) await once(out, 'drain');
    rows += 1;
  };
  const stages = [
    createReadStream(options.received),
    ...(options.gzip ? [createGunzip(), limitBytes('this file inflates to more than 100 MiB')] : []),
    decodeUtf8(decoded),
  ];
  try {
    if (options.format === 'csv') {
      let header = true;
      await pipeline(
        ...stages,
        parse({ skip_empty_lines: true, info: true, max_record_size: MAX_LINE_CHARS }),
        async (records: AsyncIterable<{ record: string[]; info: { lines: number } }>) => {
          for await (const { record, info } of records) {
            const line = info.lines - record.reduce((count, cell) => count + newlines(cell), 0);
            recordsEnd = info.lines;
            if (header) {
              reader.header(record, line);
              header = false;
            } else {
              await write(reader.csv(record, line));
            }
          }
          await write(reader.flush());
        },
      );
    } else {
      await pipeline(...stages, async (text: AsyncIterable<string>) => {
        for await (const [line, content] of splitLines(text)) {
          if (content.trim() === '') continue;
          let value: unknown;
          try {
            value = JSON.parse(content);
          } catch (error) {
            throw new FileProblem(`the line is not JSON (${(error as Error).message}).`, line);
          }
          await write(reader.json(value, line));
        }
      });
    }
  } catch (error) {
    problem = fileProblemOf(error, decoded.lines, recordsEnd + 1);
    if (!problem) {
      out.end();
      await once(out, 'close');
      throw error;
    }
  }
  out.end();
  await once(out, 'close');
  return { rows, problem };
}

/** What makes the file unreadable, as a problem naming its line; anything else (413, a broken connection) is not. */
function fileProblemOf(error: unknown, linesDecoded: number, recordStart: number): FileProblem | undefined {
  if (error instanceof FileProblem) return error;
  if (error instanceof CsvError && error.code === 'CSV_QUOTE_NOT_CLOSED')
    return new FileProblem('the CSV cannot be read: a quoted field that starts here is never closed.', recordStart);
  if (error instanceof CsvError) {
    const line = (error as CsvError & { lines?: number }).lines;
    return new FileProblem(`the CSV cannot be read: ${error.message}`, typeof line === 'number' ? line : linesDecoded);
  }
  if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
    return new FileProblem('the file is not valid UTF-8: send it encoded as UTF-8.', linesDecoded);
  if ((error as { code?: string }).code === 'Z_DATA_ERROR' || (error as { code?: string }).code === 'Z_BUF_ERROR')
    return new FileProblem('the body is not valid gzip (Content-Encoding: gzip).', 1);
  return undefined;
}

function newlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

/** Counts bytes through; past 100 MiB the read stops with 413. */
function limitBytes(what: string) {
  return async function* (source: AsyncIterable<Buffer>) {
    let bytes = 0;
    for await (const chunk of source) {
      bytes += chunk.length;
      if (bytes > IMPORT_JOB_MAX_BYTES) throw tooLarge(what);
      yield chunk;
    }
  };
}

/** Strict UTF-8 (a byte order mark is dropped), counting the lines decoded so far for a problem's line number. */
function decodeUtf8(counter: { lines: number }) {
  return async function* (source: AsyncIterable<Buffer>) {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for await (const chunk of source) {
      const text = decoder.decode(chunk, { stream: true });
      counter.lines += newlines(text);
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  };
}

/** JSON Lines: each line with its number (LF or CRLF endings). */
async function* splitLines(text: AsyncIterable<string>): AsyncGenerator<[number, string]> {
  let rest = '';
  let line = 0;
  for await (const chunk of text) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const part of parts) yield [++line, part.endsWith('\r') ? part.slice(0, -1) : part];
    if (rest.length > MAX_LINE_CHARS) throw new FileProblem('the line is longer than 10 MiB.', line + 1);
  }
  if (rest) yield [++line, rest];
}

/** Feeds the staging file back, one batch of `batchRows` rows per statement. */
async function stageFile(
  path: string,
  batchRows: number,
  stage: (firstIndex: number, json: string) => Promise<void>,
): Promise<void> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let chunk: string[] = [];
  let first = 0;
  for await (const line of lines) {
    chunk.push(line);
    if (chunk.length === batchRows) {
      await stage(first, `[${chunk.join(',')}]`);
      first += chunk.length;
      chunk = [];
    }
  }
  if (chunk.length) await stage(first, `[${chunk.join(',')}]`);
}
