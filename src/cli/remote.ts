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
    throw new RemoteError(`--url / PATRON_URL is not a URL: ${base}`);
  }
  return { base, key };
}

/** Sends one request; answers the parsed JSON body of a 2xx, or throws the API's error as one readable message. */
export async function call<T>(remote: Remote, method: string, path: string, body?: unknown): Promise<T> {
  return send<T>(
    remote,
    path,
    body === undefined
      ? { method }
      : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
}

/**
 * `call` with the request as given: a streamed body (an upload, with `duplex: 'half'`), its own headers, a signal.
 * An aborted request rejects as fetch does (an AbortError), so the caller can tell it from a server out of reach.
 */
export async function send<T>(
  remote: Remote,
  path: string,
  init: RequestInit & { headers?: Record<string, string> },
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${remote.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${remote.key}`, ...init.headers },
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new RemoteError(`Cannot reach ${remote.base}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new RemoteError(errorMessage(response.status, text), response.status);
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
