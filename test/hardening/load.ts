/**
 * Load and database outages for the process suites: closed-loop workers against one server, recording every answer
 * with its send time; and a PostgreSQL "restart" or connection reset injected through the test's TCP proxy.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { sleep } from '../support/processes.js';
import { call } from './processes.js';
import type { TcpProxy } from './tcp-proxy.js';

export interface LoadRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface LoadAnswer {
  /** When the request was sent (Date.now()). */
  at: number;
  worker: number;
  request: LoadRequest;
  status: number | 'error';
  ms: number;
  retryAfter: string | null;
  rateLimit?: string | null;
  code?: string;
  /** The parsed body of answers that are not 2xx, and of those `keepBody` asks for. */
  body?: any;
  detail?: string;
}

export interface LoadOptions {
  /** Per-request time-out: a request not answered by then is recorded as an error. Default 15 s. */
  timeoutMs?: number;
  /** Pause of each worker between two requests, so the load stays bounded even when every answer is instant. */
  pauseMs?: number;
  /** Keep the body of a 2xx answer to this request (ids of created records). */
  keepBody?: (request: LoadRequest) => boolean;
}

/**
 * Load against one server: `workers` loops, each calling `next()` for its request and waiting for the answer, until
 * stopped. fetch keeps one connection per worker alive between requests.
 */
export function startLoad(
  baseUrl: string,
  key: string,
  workers: number,
  next: (i: number, worker: number) => LoadRequest,
  options: LoadOptions = {},
) {
  const { timeoutMs = 15_000, pauseMs = 0, keepBody } = options;
  const answers: LoadAnswer[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (worker: number) => {
    while (!stopped) {
      const request = next(n++, worker);
      const at = Date.now();
      try {
        const answer = await call(baseUrl, key, request.method, request.path, request.body, timeoutMs);
        const ok = answer.status >= 200 && answer.status < 300;
        answers.push({
          at,
          worker,
          request,
          status: answer.status,
          ms: answer.ms,
          retryAfter: answer.headers.get('retry-after'),
          rateLimit: answer.headers.get('ratelimit'),
          code: answer.body?.error?.code,
          ...(!ok || keepBody?.(request) ? { body: answer.body } : {}),
        });
      } catch (error) {
        answers.push({
          at,
          worker,
          request,
          status: 'error',
          ms: Date.now() - at,
          retryAfter: null,
          detail: String(error),
        });
      }
      if (pauseMs > 0) await sleep(pauseMs);
    }
  };
  const running = Array.from({ length: workers }, (_, worker) => loop(worker));
  return {
    answers,
    since: (at: number) => answers.filter((answer) => answer.at >= at),
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/**
 * A database outage as the server behind `proxy` sees it, lasting `ms`. A restart: every session the server holds
 * is terminated by PostgreSQL itself (FATAL 57P01, as a shutdown does) and new connections are refused. Connections
 * reset: every connection is reset mid-stream, new ones too. `whileDown` runs just before connections are accepted
 * again. `db` is the test's own connection, which does not go through the proxy.
 */
export async function databaseOutage(
  proxy: TcpProxy,
  db: Kysely<DB>,
  kind: 'restart' | 'connections reset',
  ms: number,
  whileDown?: () => Promise<void>,
): Promise<{ cutAt: number; restoredAt: number; terminated: number }> {
  const cutAt = Date.now();
  let terminated = 0;
  if (kind === 'restart') {
    proxy.refuseNew();
    const { rows } = await sql<{ terminated: number }>`
      select count(*) filter (where pg_terminate_backend(pid))::int as terminated from pg_stat_activity
      where datname = current_database() and client_port = any(${proxy.upstreamPorts()}::int[])`.execute(db);
    terminated = rows[0]!.terminated;
  } else {
    proxy.cut();
  }
  await sleep(ms - (Date.now() - cutAt));
  await whileDown?.();
  proxy.restore();
  return { cutAt, restoredAt: Date.now(), terminated };
}
