/** How the client retries answers that say "try again later". */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  retries?: number;
  /**
   * The longest wait honoured, in milliseconds. An answer asking for a longer wait (Retry-After) is not retried: it
   * is thrown at once, so a caller is never parked for minutes unknowingly. Default 60,000.
   */
  maxDelayMs?: number;
  /**
   * The wait before retry n (0-based) when the answer carries no Retry-After: baseDelayMs × 2^n, with up to 25 %
   * random jitter, capped at maxDelayMs. Default 500.
   */
  baseDelayMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** The status that is being retried: 429 or 503. */
  status: number;
  /** How long the client waits before the retry. */
  delayMs: number;
  method: string;
  url: string;
}

/** The statuses retried: the rate limit (429) and the database being unreachable (503) (docs/api.md#error-envelope). */
const RETRIED = new Set([429, 503]);

export const DEFAULT_RETRY = { retries: 3, maxDelayMs: 60_000, baseDelayMs: 500 } as const;

type Fetch = (request: Request) => Promise<Response>;

/**
 * Wraps fetch with the client's two promises:
 *
 * - every POST carries an Idempotency-Key: the caller's if it set one, else a random UUID made here, once, before
 *   the first attempt, so every retry of the request carries the same key and the server acts at most once
 *   (docs/api.md#idempotency-keys: a 429 or 5xx releases the key, and an answer stored under it is replayed);
 * - a 429 or 503 is retried, at most `retries` times, after the Retry-After the answer gives (whole seconds or an
 *   HTTP date) or, without one, an exponential back-off; an answer asking for more than `maxDelayMs` is returned as it
 *   is. The request's AbortSignal cancels a wait.
 *
 * Requests are resent as built: the body is kept by cloning the request before each attempt that may be retried.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions | false | undefined): Fetch {
  const given: RetryOptions = options === false ? { retries: 0 } : (options ?? {});
  const retries = given.retries ?? DEFAULT_RETRY.retries;
  const maxDelayMs = given.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const baseDelayMs = given.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const onRetry = given.onRetry;

  return async (request) => {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', randomKey());
    }
    let current = request;
    for (let attempt = 1; ; attempt++) {
      const last = attempt > retries;
      // A body can be sent once: keep a copy for the retry (GETs have none, and pay nothing).
      const spare = last || current.body === null ? undefined : current.clone();
      const response = await fetch(current);
      if (last || !RETRIED.has(response.status)) return response;
      const delayMs = retryDelay(response, attempt, baseDelayMs);
      if (delayMs > maxDelayMs) return response;
      // The connection is free for the retry only once the refused answer's body is consumed.
      await response.body?.cancel().catch(() => {});
      onRetry?.({ attempt, status: response.status, delayMs, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
      current = spare ?? current;
    }
  };
}

/** Retry-After in milliseconds (delay-seconds or an HTTP date), else the back-off for this attempt. */
function retryDelay(response: Response, attempt: number, baseDelayMs: number): number {
  const header = response.headers.get('retry-after')?.trim();
  if (header) {
    if (/^\d+$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return Math.round(baseDelayMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.25));
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * A random UUID (v4) for an Idempotency-Key. crypto.randomUUID exists only in secure contexts, and a dashboard may be
 * served over plain http on a local network; crypto.getRandomValues exists everywhere.
 */
function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
