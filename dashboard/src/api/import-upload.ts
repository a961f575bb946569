/**
 * The upload of an import job's file (POST /v1/import-jobs?resource=…, the file itself as the body:
 * docs/api.md#import-jobs), with the progress of its bytes.
 *
 * Why this is not a call of the typed client: the client is built on fetch, and fetch cannot report how much of a
 * request's body has been sent (no upload progress events; a streamed request body would need HTTP/2 or half-duplex
 * streaming, which this server over plain HTTP/1.1 does not take). A file of up to 100 MiB needs a progress bar, so this
 * one request goes through XMLHttpRequest, whose `upload.onprogress` does. It is kept here, in dashboard/src/api (the
 * one place allowed to make raw requests), and sends exactly what the client would: the session cookie same-origin,
 * X-CSRF-Token, an Idempotency-Key; its answer is typed from the API document, and any answer but 202 is thrown as the
 * client throws it (PatronError from the error envelope).
 */
import './random-uuid';
import { useCallback } from 'react';
import { PatronError, type operations, type Schemas } from '@patron/client/browser';
import { useSession } from './session';

export type ImportJob = Schemas['ImportJob'];
export type ImportResource = ImportJob['resource'];
export type ImportQuery = operations['createImportJob']['parameters']['query'];

export interface UploadProgress {
  /** Bytes of the file sent so far. */
  loaded: number;
  /** The file's size in bytes. */
  total: number;
}

export interface ImportUpload {
  query: ImportQuery;
  file: File;
  onProgress?: (progress: UploadProgress) => void;
  /** Aborting stops the upload: the server then makes no job. */
  signal?: AbortSignal;
}

/** How the file is sent, from its name: CSV or JSON Lines, and gzip when it ends in .gz. */
export function fileFormat(name: string): { contentType: string; gzip: boolean } | null {
  const lower = name.toLowerCase();
  const gzip = lower.endsWith('.gz');
  const bare = gzip ? lower.slice(0, -3) : lower;
  if (bare.endsWith('.csv')) return { contentType: 'text/csv; charset=utf-8', gzip };
  if (bare.endsWith('.jsonl') || bare.endsWith('.ndjson')) return { contentType: 'application/x-ndjson', gzip };
  return null;
}

function queryString(query: ImportQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.toString();
}

/** The error the typed client would throw for this answer: the envelope's code, message and details. */
function errorOf(request: XMLHttpRequest, body: unknown, url: string): PatronError {
  const envelope =
    typeof body === 'object' && body !== null && 'error' in body
      ? (body as { error: { code?: unknown; message?: unknown; details?: PatronError['details'] } }).error
      : undefined;
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return new PatronError({
    status: request.status,
    code: typeof envelope?.code === 'string' ? (envelope.code as PatronError['code']) : `HTTP_${request.status}`,
    message:
      typeof envelope?.message === 'string' ? envelope.message : text || `POST ${url} answered HTTP ${request.status}`,
    details: Array.isArray(envelope?.details) ? envelope.details : [],
    requestId: request.getResponseHeader('x-request-id') ?? undefined,
    method: 'POST',
    url,
  });
}

function uploadImport(csrfToken: string, { query, file, onProgress, signal }: ImportUpload): Promise<ImportJob> {
  const format = fileFormat(file.name);
  const url = `${window.location.origin}/v1/import-jobs?${queryString(query)}`;
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.responseType = 'text';
    // An unknown extension is sent as CSV: the server answers 415 for a file that is neither, with its own message.
    request.setRequestHeader('content-type', format?.contentType ?? 'text/csv; charset=utf-8');
    if (format?.gzip) request.setRequestHeader('content-encoding', 'gzip');
    request.setRequestHeader('x-csrf-token', csrfToken);
    request.setRequestHeader('idempotency-key', crypto.randomUUID());
    request.upload.onprogress = (event) => onProgress?.({ loaded: event.loaded, total: event.total || file.size });
    request.onload = () => {
      let body: unknown = request.responseText;
      try {
        body = JSON.parse(request.responseText) as unknown;
      } catch {
        // not JSON (a proxy's page): PatronError keeps the start of the text
      }
      if (request.status === 202) return resolve(body as ImportJob);
      reject(errorOf(request, body, url));
    };
    // A network failure is what fetch reports as a TypeError (ApiErrorAlert says the server could not be reached).
    request.onerror = () => reject(new TypeError('The upload did not reach the server.'));
    request.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(file);
  });
}

/** Uploads an import job's file with the signed-in session; resolves with the job the server made (202). */
export function useImportUpload(): (upload: ImportUpload) => Promise<ImportJob> {
  const { csrfToken } = useSession();
  return useCallback((upload: ImportUpload) => uploadImport(csrfToken, upload), [csrfToken]);
}
