import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/**
 * The CLI's commands that work against a running server over HTTP (`patron export`, `patron import`): where the
 * server is and which key to use, from flags or the environment, and one call with the API's error envelope turned
 * into a message a person can act on.
 */
export interface RemoteOptions {
  url?: string | undefined;
  key?: string | undefined;
}

export interface Remote {
  base: string;
  key: string;
}

export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export function remoteOf(options: RemoteOptions, env: NodeJS.ProcessEnv = process.env): Remote {
  const key = options.key ?? env.PATRON_KEY;
  if (!key) throw new RemoteError('No key: pass --key or set PATRON_KEY (a secret key, sk_…, of the organization).');
  const base = (options.url ?? env.PATRON_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`).replace(/\/+$/, '');
  try {
    new URL(base);
  } catch {
    throw new RemoteError(`--url / PATRON_URL is not a valid URL`);
  }
  return { base, key };
}

/** Sends one request; answers the parsed JSON body of a 2xx, or throws the API's error as one readable message. */
export async function call<T>(remote: Remote, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${remote.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${remote.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new RemoteError(`Cannot reach ${remote.base}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new RemoteError(errorMessage(response.status, text), response.status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Sends a file as a POST's body, streamed: undici's request writes each chunk as the socket takes it, where fetch
 * with a stream body was measured holding the whole body in memory until the answer (300 MB for a 300 MB file).
 * Answers the parsed JSON body of a 2xx or throws the API's error as `call` does; an aborted upload rejects with
 * undici's AbortError.
 */
export async function postFile<T>(
  remote: Remote,
  path: string,
  options: { headers: Record<string, string>; body: Readable; signal: AbortSignal },
): Promise<T> {
  let response: Dispatcher.ResponseData;
  try {
    // Loaded by the commands that upload, not by every command (`patron serve` among them) that loads this module.
    const { request } = await import('undici');
    response = await request(`${remote.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${remote.key}`, ...options.headers },
      body: options.body,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    throw new RemoteError(`Cannot reach ${remote.base}: ${(error as Error).message}`);
  }
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw new RemoteError(errorMessage(response.statusCode, text), response.statusCode);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The error envelope's message and its details' paths, or the status when the answer is not the API's. */
export function errorMessage(status: number, text: string): string {
  try {
    const { error } = JSON.parse(text) as {
      error: { code: string; message: string; details?: { path: string; message: string }[] };
    };
    // A detail the message already tells is not repeated.
    const details = (error.details ?? [])
      .filter((detail) => !error.message.includes(detail.message))
      .map((detail) => `  ${detail.path}: ${detail.message}`);
    return [`${status} ${error.code}: ${error.message}`, ...details].join('\n');
  } catch {
    return `${status}: ${text.slice(0, 300) || 'no body'}`;
  }
}
