import { createReadStream, fstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { createProgress, type Progress } from './progress.js';
import { call, RemoteError, remoteOf, postFile, type Remote, type RemoteOptions } from './remote.js';

export interface ImportOptions extends RemoteOptions {
  resource: string;
  format?: 'csv' | 'jsonl' | undefined;
  strict?: boolean | undefined;
  mergeMetadata?: boolean | undefined;
  earnLoyalty?: boolean | undefined;
}

interface ImportJob {
  id: string;
  resource: string;
  format: 'csv' | 'jsonl';
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  rowsTotal: number;
  rowsProcessed: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  error: string | null;
}

interface SkippedRow {
  index: number;
  itemIndex?: number;
  line: number;
  message: string;
}

const POLL_MS = 500;
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);
/** Skipped rows shown at the end; the rest are a request away. */
const SKIPPED_SHOWN = 50;
const MEDIA_TYPES = { csv: 'text/csv', jsonl: 'application/x-ndjson' } as const;
const numberFormat = new Intl.NumberFormat('en-US');
const count = (value: number) => numberFormat.format(value);

/** What is sent: the file (or stdin) as it is, how the server is told to read it, and its size when known. */
interface Source {
  name: string;
  open(): Readable;
  format: 'csv' | 'jsonl';
  gzip: boolean;
  size: number | null;
}

/**
 * `patron import`: uploads a CSV or JSON Lines file to a running server as an import job, streamed as it is read
 * (gzip sent as it is), then follows the job's rows and prints what it did (docs/api.md#import-jobs). Progress and
 * messages go to stderr; stdout gets only the job's id, for scripts. Exits 1 when the server refuses the file or the
 * job fails or is cancelled; a job that succeeded with skipped rows exits 0, listing them.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<void> {
  const progress = createProgress();
  const state: Interruptible = { aborter: new AbortController(), sent: false, interrupted: false };
  let remote: Remote | undefined;
  // Ctrl-C while the file is being sent stops the upload: the server makes no job. Once the file is sent the server
  // makes the job whatever the client does, so the job is cancelled as soon as it exists (rows already written stay,
  // docs/api.md#import-jobs). A second Ctrl-C quits and leaves the job as it is.
  const interrupt = () => {
    if (state.interrupted) process.exit(130);
    state.interrupted = true;
    if (state.job && remote) {
      progress.note('Cancelling the import job (Ctrl-C again to leave it running on the server)…');
      void call(remote, 'POST', `/v1/import-jobs/${state.job.id}/cancel`).catch(() => {});
    } else if (!state.sent) {
      progress.note('Stopping the upload (Ctrl-C again to quit at once)…');
      state.aborter.abort();
    } else {
      progress.note(
        'The file is sent: the job is cancelled as soon as the server has made it (Ctrl-C again to leave it running)…',
      );
    }
  };
  process.on('SIGINT', interrupt);
  try {
    remote = remoteOf(options);
    const source = await sourceOf(file, options.format);
    const query = new URLSearchParams({ resource: options.resource });
    if (options.strict) query.set('strict', 'true');
    if (options.mergeMetadata) query.set('mergeMetadata', 'true');
    if (options.earnLoyalty !== undefined) query.set('earnLoyalty', String(options.earnLoyalty));
    state.job = await upload(remote, `/v1/import-jobs?${query}`, source, { progress, state });
    // A file the server could not read makes a job that failed already, whose rowsTotal counts nothing useful.
    const rows = state.job.status === 'failed' ? '' : `${count(state.job.rowsTotal)} `;
    progress.note(
      `Import job ${state.job.id}: ${rows}${options.resource} rows from ${source.name} (${state.job.format})`,
    );
    if (state.interrupted) state.job = await call<ImportJob>(remote, 'POST', `/v1/import-jobs/${state.job.id}/cancel`);
    const job = (state.job = await watch(remote, state.job, progress));
    const counts = `${count(job.created)} created, ${count(job.updated)} updated, ${count(job.unchanged)} unchanged, ${count(job.skipped)} skipped`;
    if (job.status === 'succeeded') progress.done(`Imported ${count(job.rowsProcessed)} rows: ${counts}.`);
    else if (job.rowsProcessed > 0)
      progress.done(`Before the job stopped, ${count(job.rowsProcessed)} rows: ${counts}.`);
    else progress.stop();
    if (job.skipped > 0) await showSkipped(remote, job);
    if (job.status !== 'succeeded') {
      throw new RemoteError(
        job.status === 'cancelled'
          ? 'The import was cancelled.'
          : `The import failed: ${job.error ?? 'no reason given'}`,
      );
    }
  } catch (error) {
    progress.stop();
    process.stderr.write(`${error instanceof RemoteError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', interrupt);
    if (state.job) process.stdout.write(`${state.job.id}\n`);
  }
}

/** Where the command is, for what Ctrl-C does. */
interface Interruptible {
  aborter: AbortController;
  /** The whole file has gone into the request. */
  sent: boolean;
  interrupted: boolean;
  job?: ImportJob;
}

/**
 * The format from --format, else from the name (.csv, .jsonl or .ndjson, each perhaps .gz: sent compressed, with
 * Content-Encoding: gzip). `-` is stdin, sent as it is; its format must be named.
 */
async function sourceOf(file: string, format: 'csv' | 'jsonl' | undefined): Promise<Source> {
  if (file === '-') {
    if (!format) throw new RemoteError('Reading stdin (-): name its format with --format csv or --format jsonl.');
    let size: number | null = null;
    try {
      // stdin redirected from a file has a size, so the upload shows a bar rather than a count.
      const stats = fstatSync(0);
      if (stats.isFile()) size = stats.size;
    } catch {
      // not a file: a pipe or a terminal
    }
    // Piped gzip (`zcat`'s opposite, `gzip -c file |`) is told by its first two bytes and sent as it is.
    const { stream, gzip } = await peekGzip(process.stdin);
    return { name: 'stdin', open: () => stream, format, gzip, size };
  }
  let size: number;
  try {
    const stats = await stat(file);
    if (!stats.isFile()) throw new RemoteError(`${file} is not a file.`);
    size = stats.size;
  } catch (error) {
    if (error instanceof RemoteError) throw error;
    throw new RemoteError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const name = basename(file).toLowerCase();
  const gzip = name.endsWith('.gz');
  const extension = /\.([^.]+)$/.exec(gzip ? name.slice(0, -3) : name)?.[1];
  const named = extension === 'csv' ? 'csv' : extension === 'jsonl' || extension === 'ndjson' ? 'jsonl' : undefined;
  const chosen = format ?? named;
  if (!chosen) {
    throw new RemoteError(
      `Cannot tell the format of ${file}: name it .csv, .jsonl or .ndjson (each perhaps .gz), or pass --format csv or --format jsonl.`,
    );
  }
  return { name: file, open: () => createReadStream(file), format: chosen, gzip, size };
}

/** The stream, read again from its start, and whether it opens with gzip's magic bytes (1f 8b). */
async function peekGzip(input: Readable): Promise<{ stream: Readable; gzip: boolean }> {
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < 2) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  const start = Buffer.concat(head);
  async function* all(): AsyncGenerator<Buffer> {
    if (start.length) yield start;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { stream: Readable.from(all()), gzip: start[0] === 0x1f && start[1] === 0x8b };
}

/**
 * Streams the file as the request's body, counting the bytes read into it, and answers the job the server made. The
 * server reads the file into rows as it arrives and answers once it has staged them all, so a refusal (415, 413, 400,
 * 403) arrives as the API's error, and a large file takes a while after its last byte.
 */
async function upload(
  remote: Remote,
  path: string,
  source: Source,
  { progress, state }: { progress: Progress; state: Interruptible },
): Promise<ImportJob> {
  let bytes = 0;
  let readError: Error | undefined;
  const input = source.open();
  const counted = input.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        progress.update(bytes);
        done(null, chunk);
      },
    }),
  );
  input.once('error', (error) => {
    readError = error;
    counted.destroy(error);
  });
  counted.once('end', () => {
    state.sent = true;
    progress.done(`Sent ${count(bytes)} bytes; the server is reading them into rows…`);
  });
  progress.phase('uploading', source.size, 'bytes');
  try {
    return await postFile<ImportJob>(remote, path, {
      headers: {
        'content-type': MEDIA_TYPES[source.format],
        ...(source.gzip ? { 'content-encoding': 'gzip' } : {}),
        ...(source.size === null ? {} : { 'content-length': String(source.size) }),
      },
      body: counted,
      signal: state.aborter.signal,
    });
  } catch (error) {
    if (readError) throw new RemoteError(`Cannot read ${source.name}: ${readError.message}`);
    if (state.aborter.signal.aborted) throw new RemoteError('The upload was stopped; no import job was made.');
    throw error;
  } finally {
    input.destroy();
  }
}

/** Polls the job until it finishes, showing rowsProcessed against rowsTotal. */
async function watch(remote: Remote, first: ImportJob, progress: Progress): Promise<ImportJob> {
  let job = first;
  if (FINISHED.has(job.status)) return job;
  progress.phase('importing', job.rowsTotal, 'rows');
  while (!FINISHED.has(job.status)) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await call<ImportJob>(remote, 'GET', `/v1/import-jobs/${job.id}`);
    progress.update(job.rowsProcessed, job.rowsTotal);
  }
  return job;
}

/** The first skipped rows as a table on stderr, and where the rest are. */
async function showSkipped(remote: Remote, job: ImportJob): Promise<void> {
  const path = `/v1/import-jobs/${job.id}/skipped`;
  // One entry more than is shown tells whether the last row shown has more entries (items) after it.
  const page = await call<{ data: SkippedRow[]; nextCursor: string | null }>(
    remote,
    'GET',
    `${path}?limit=${SKIPPED_SHOWN + 1}`,
  );
  const shownEntries = page.data.slice(0, SKIPPED_SHOWN);
  const firstHidden = page.data[SKIPPED_SHOWN];
  const rows = [
    ['index', 'item', 'line', 'message'],
    ...shownEntries.map((row) => [
      String(row.index),
      row.itemIndex === undefined ? '' : String(row.itemIndex),
      String(row.line),
      row.message,
    ]),
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    [...widths.map((width, column) => row[column]!.padStart(width)), row[3]].join('  ').trimEnd(),
  );
  process.stderr.write(`Skipped (index: the row in the file from 0; item: the row's item at fault):\n`);
  process.stderr.write(lines.map((line) => `  ${line}\n`).join(''));
  if (firstHidden) {
    // An entry is a row or one item of a row, so the rows not shown in full are counted, not the entries.
    const lastShown = shownEntries[shownEntries.length - 1]!.index;
    const rowsInFull = new Set(shownEntries.map((row) => row.index)).size - (firstHidden.index === lastShown ? 1 : 0);
    const more = job.skipped - rowsInFull;
    const rest = more > 1 ? `${count(more)} more rows` : more === 1 ? '1 more row' : 'more';
    process.stderr.write(`  … and ${rest}; GET ${path} lists them all\n`);
  }
}
