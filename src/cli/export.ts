import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createProgress, type Progress } from './progress.js';
import { call, errorMessage, RemoteError, remoteOf, type Remote, type RemoteOptions } from './remote.js';

export interface ExportOptions extends RemoteOptions {
  resource: string;
  format: 'csv' | 'jsonl';
  filter?: string | undefined;
  search?: string | undefined;
  quickFilter?: string | undefined;
  include?: string | undefined;
  sort?: string | undefined;
  output?: string | undefined;
}

interface ExportJob {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  rowsTotal: number | null;
  rowsProcessed: number;
  error: string | null;
  downloadUrl: string | null;
}

const POLL_MS = 500;
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * `patron export`: starts an export job on a running server, shows its rows as they are written, then downloads the
 * file (docs/api.md#export-jobs). Progress and messages go to stderr, so `-o -` can send the file to stdout. Ctrl-C
 * cancels the job. Exits non-zero when the job fails or the server refuses.
 */
export async function exportCommand(options: ExportOptions): Promise<void> {
  const progress = createProgress();
  try {
    const remote = remoteOf(options);
    let filter: unknown;
    if (options.filter !== undefined) {
      try {
        filter = JSON.parse(options.filter);
      } catch {
        throw new RemoteError(`--filter is not JSON: ${options.filter}`);
      }
    }
    const body = {
      resource: options.resource,
      format: options.format,
      ...(filter === undefined ? {} : { filter }),
      ...(options.search === undefined ? {} : { search: options.search }),
      ...(options.quickFilter === undefined ? {} : { quickFilter: options.quickFilter }),
      ...(options.include === undefined ? {} : { include: options.include }),
      ...(options.sort === undefined ? {} : { sort: options.sort }),
    };
    const started = await call<ExportJob>(remote, 'POST', '/v1/export-jobs', body);
    progress.note(`Export job ${started.id}: ${options.resource} as ${options.format}`);
    const job = await watch(remote, started, progress);
    if (job.status !== 'succeeded') {
      throw new RemoteError(
        job.status === 'cancelled'
          ? 'The export was cancelled.'
          : `The export failed: ${job.error ?? 'no reason given'}`,
      );
    }
    const target = options.output ?? `${options.resource}-${job.id}.${options.format}`;
    const bytes = await download(remote, job, target, progress);
    progress.done(
      `Exported ${job.rowsProcessed.toLocaleString('en-US')} rows${target === '-' ? '' : ` to ${target}`} (${bytes.toLocaleString('en-US')} bytes).`,
    );
  } catch (error) {
    progress.stop();
    process.stderr.write(`${error instanceof RemoteError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

/** Polls the job until it finishes, showing rowsProcessed against rowsTotal; Ctrl-C cancels it on the server. */
async function watch(remote: Remote, first: ExportJob, progress: Progress): Promise<ExportJob> {
  let job = first;
  let cancelling = false;
  const cancel = () => {
    if (cancelling) process.exit(130);
    cancelling = true;
    progress.note('Cancelling the export job (Ctrl-C again to leave it running on the server)…');
    void call(remote, 'POST', `/v1/export-jobs/${job.id}/cancel`).catch(() => {});
  };
  process.on('SIGINT', cancel);
  try {
    progress.phase('exporting', job.rowsTotal, 'rows');
    while (!FINISHED.has(job.status)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      job = await call<ExportJob>(remote, 'GET', `/v1/export-jobs/${job.id}`);
      progress.update(job.rowsProcessed, job.rowsTotal);
    }
    return job;
  } finally {
    process.off('SIGINT', cancel);
  }
}

/** Streams the file to `target` (`-`: stdout), counting bytes as they arrive. */
async function download(remote: Remote, job: ExportJob, target: string, progress: Progress): Promise<number> {
  const url = new URL(job.downloadUrl ?? `/v1/export-jobs/${job.id}/download`, `${remote.base}/`);
  const response = await fetch(url, { headers: { authorization: `Bearer ${remote.key}` } });
  if (!response.ok || !response.body) throw new RemoteError(errorMessage(response.status, await response.text()));
  const length = Number(response.headers.get('content-length')) || null;
  progress.phase('downloading', response.headers.get('content-encoding') ? null : length, 'bytes');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      progress.update(bytes);
      done(null, chunk);
    },
  });
  const sink = target === '-' ? process.stdout : createWriteStream(target);
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), count, sink);
  return bytes;
}
