// Open-loop load for latency figures: requests are sent at a fixed rate whatever the answers do, and each latency
// runs from the moment its request was due (not from when it got sent), so a server stall shows in full instead of
// slowing the load down (no coordinated omission). Several paths share one schedule, round robin, so the requests
// compared in one run meet the same background load on the machine. (bench/retention-prune.ts has its own copy for
// GET /v1/organization, started and stopped around a prune.)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { summarize, type LatencySummary } from './latency-summary.js';

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
  /**
   * Seconds of the same schedule sent before the measured `durationS`, their answers discarded: the measured part
   * follows without a pause, so it meets the server in its steady state (a server that idled a few seconds first
   * answers its first second of load more slowly, docs/journal/2026-11-29-load-generator-garbage-collector.md).
   */
  warmupS?: number;
  /** Called when the first measured request is due (the end of the warm-up). */
  onMeasuring?: () => void;
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
  /** This process's performance.timeOrigin: a sample's `dueAt` plus this is its due time on the wall clock. */
  timeOrigin: number;
  samples: OpenLoopSample[];
}

/** Runs the schedule for `durationS` seconds, then waits for the answers still on their way. */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { baseUrl, targets, headers = {}, rate, durationS, first = 0, connections = 32, warmupS = 0 } = options;
  const pool = new Pool(baseUrl, { connections, pipelining: 1 });
  const samples: OpenLoopSample[] = [];
  const pending = new Set<Promise<void>>();
  const interval = 1000 / rate;
  const warmup = Math.round(rate * warmupS);
  const total = warmup + Math.round(rate * durationS);
  const start = performance.now();
  let measuredFrom = warmup === 0 ? start : Infinity;
  if (warmup === 0) options.onMeasuring?.();
  let index = 0;
  try {
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (index < total && start + index * interval <= now) {
          const dueAt = start + index * interval;
          const target = targets[(index + first) % targets.length]!;
          const measured = index >= warmup;
          if (index === warmup && warmup > 0) {
            measuredFrom = dueAt;
            options.onMeasuring?.();
          }
          index += 1;
          const sendLagMs = performance.now() - dueAt;
          const request = pool
            .request({ method: 'GET', path: target.path, headers })
            .then(async (response) => {
              await response.body.arrayBuffer();
              if (measured)
                samples.push({
                  name: target.name,
                  dueAt,
                  sendLagMs,
                  ms: performance.now() - dueAt,
                  status: response.statusCode,
                });
            })
            .catch(() => {
              if (measured)
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
    seconds: (performance.now() - measuredFrom) / 1000,
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
    timeOrigin: performance.timeOrigin,
    samples,
  };
}

export interface OpenLoopProcess {
  /** The generator's process, for its CPU readings. */
  pid: number;
  /** Resolves when the warm-up is over and the first measured request is due. */
  measuring(): Promise<void>;
  /** Resolves when the measured schedule's last answer is in (before the result is written out). */
  measured(): Promise<void>;
  /** The measured run's result; the process has exited. */
  result(): Promise<OpenLoopResult>;
}

/**
 * Starts the open-loop generator in a fresh process of its own, which runs the warm-up and then the measured schedule
 * without a pause. A load generator that shares its process with the rest of a bench shares its heap too: in
 * bench:list-latency that heap held 67 MB (the in-process Patron used to capture statements, datasets, earlier
 * results), V8 kept it under a limit a few MB above that, and during some measured runs ran a full mark-compact every
 * second, 15–35 ms each, that found nothing to free. Every send and every answer waited meanwhile, so those runs
 * measured the generator's garbage collector for the floor and Patron alike
 * (docs/journal/2026-11-29-load-generator-garbage-collector.md). The generator's process loads only the schedule and
 * undici.
 */
export function startOpenLoopProcess(
  options: Omit<OpenLoopOptions, 'onMeasuring'>,
  nodeArgs: string[] = [],
): OpenLoopProcess {
  const script = fileURLToPath(new URL('./open-loop-process.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, JSON.stringify(options)], {
    // fd 3: the generator's words and its result; its stdout and stderr are the bench's.
    stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // readline's iterator keeps the lines that arrive before they are asked for, and ends when the process's fd closes.
  const lines = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const next = await lines.next();
    if (next.done) throw new Error(`the open-loop generator exited (${await exited}) before it was done`);
    return next.value;
  };
  const expect = async (word: string) => {
    const line = await nextLine();
    if (line !== word) throw new Error(`the open-loop generator said "${line.slice(0, 200)}", expected "${word}"`);
  };
  return {
    pid: child.pid!,
    measuring: () => expect('measuring'),
    measured: () => expect('measured'),
    async result() {
      const line = await nextLine();
      await exited;
      return JSON.parse(line) as OpenLoopResult;
    },
  };
}
