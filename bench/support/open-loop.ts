// Open-loop load for latency figures: requests are sent at a fixed rate whatever the answers do, and each latency
// runs from the moment its request was due (not from when it got sent), so a server stall shows in full instead of
// slowing the load down (no coordinated omission). Several paths share one schedule, round robin, so the requests
// compared in one run meet the same background load on the machine. (bench/retention-prune.ts has its own copy for
// GET /v1/organization, started and stopped around a prune.)
import { Pool } from 'undici';
import { summarize, type LatencySummary } from './harness.js';

export interface OpenLoopTarget {
  name: string;
  path: string;
}

export interface OpenLoopSample {
  name: string;
  /** When the request was due (performance.now() ms). */
  dueAt: number;
  /** How late this process sent it (its own event loop behind the schedule): part of `ms`, reported apart. */
  sendLagMs: number;
  /** From when it was due to the last byte of the answer. */
  ms: number;
  status: number;
}

export interface OpenLoopOptions {
  baseUrl: string;
  /** Sent in turn: request i goes to targets[(i + first) % targets.length]. */
  targets: OpenLoopTarget[];
  headers?: Record<string, string>;
  /** Requests per second, all targets together. */
  rate: number;
  durationS: number;
  /** Which target the schedule starts with (alternate it between rounds). */
  first?: number;
  /** Connections the client may open (default 32: far more than a served rate needs, so none waits for one). */
  connections?: number;
}

export interface OpenLoopTargetResult {
  name: string;
  path: string;
  latency: LatencySummary;
  requests: number;
  /** Answers other than 200, and requests that failed. */
  errors: number;
}

export interface OpenLoopResult {
  rate: number;
  seconds: number;
  targets: OpenLoopTargetResult[];
  /** How late this process sent the requests (a starved load generator shows here). */
  sendLag: LatencySummary;
  samples: OpenLoopSample[];
}

/** Runs the schedule for `durationS` seconds, then waits for the answers still on their way. */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { baseUrl, targets, headers = {}, rate, durationS, first = 0, connections = 32 } = options;
  const pool = new Pool(baseUrl, { connections, pipelining: 1 });
  const samples: OpenLoopSample[] = [];
  const pending = new Set<Promise<void>>();
  const interval = 1000 / rate;
  const total = Math.round(rate * durationS);
  const start = performance.now();
  let index = 0;
  try {
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (index < total && start + index * interval <= now) {
          const dueAt = start + index * interval;
          const target = targets[(index + first) % targets.length]!;
          index += 1;
          const sendLagMs = performance.now() - dueAt;
          const request = pool
            .request({ method: 'GET', path: target.path, headers })
            .then(async (response) => {
              await response.body.arrayBuffer();
              samples.push({
                name: target.name,
                dueAt,
                sendLagMs,
                ms: performance.now() - dueAt,
                status: response.statusCode,
              });
            })
            .catch(() => {
              samples.push({ name: target.name, dueAt, sendLagMs, ms: performance.now() - dueAt, status: 0 });
            })
            .finally(() => pending.delete(request));
          pending.add(request);
        }
        if (index >= total) resolve();
        else setTimeout(tick, Math.max(0, start + index * interval - performance.now()));
      };
      tick();
    });
    while (pending.size) await Promise.all(pending);
  } finally {
    await pool.close();
  }
  return {
    rate,
    seconds: (performance.now() - start) / 1000,
    targets: targets.map((target) => {
      const mine = samples.filter((sample) => sample.name === target.name);
      return {
        name: target.name,
        path: target.path,
        latency: summarize(mine.map((sample) => sample.ms)),
        requests: mine.length,
        errors: mine.filter((sample) => sample.status !== 200).length,
      };
    }),
    sendLag: summarize(samples.map((sample) => sample.sendLagMs)),
    samples,
  };
}
