// The machine's pace: how long fixed pieces of work take while a measurement runs. Steal is what the hypervisor
// reports taking; on a shared host the virtual CPUs can also be slowed without any steal (a busy neighbour on the same
// physical core or memory, a lower clock), and then the floor, Patron and the load generator all get slower together.
// A worker thread of the bench runs, in turn, two fixed units every PACE_INTERVAL_MS: arithmetic in registers (the
// core's speed) and a chase of dependent reads through 64 MB in random order (the memory's latency, where a
// neighbour's traffic shows), and reads from the kernel (/proc/thread-self/schedstat) how much CPU time each took.
// Waiting for a core is not counted, so the bench's own load on the machine hardly changes the reading; a unit that
// needs more CPU time than usual ran on a slower machine. Each unit takes 1–3 ms, so the probe uses about 1 % of one
// core. One worker runs for the whole bench (building the 64 MB cycle takes a second of CPU, not to be spent inside a
// measured run); a probe reads the units that ended within its window.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { summarize } from './latency-summary.js';

const PACE_INTERVAL_MS = 200;

// Plain JavaScript, evaluated in the worker. The units' results are summed and posted, so the JIT cannot drop them.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const onCpuNs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const compute = () => {
  let x = 0x9e3779b9 | 0;
  let sum = 0;
  for (let i = 0; i < workerData.computeIterations; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    sum = (sum + (x & 0xffff)) | 0;
  }
  return sum;
};
// One random cycle through every slot (Sattolo's shuffle), so each read depends on the one before and misses the caches.
const slots = workerData.memoryBytes / 4;
const next = new Int32Array(slots);
for (let i = 0; i < slots; i++) next[i] = i;
let seed = 12345;
for (let i = slots - 1; i > 0; i--) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  const j = seed % i;
  const t = next[i]; next[i] = next[j]; next[j] = t;
}
let position = 0;
const memory = () => {
  for (let i = 0; i < workerData.memoryReads; i++) position = next[position];
  return position;
};
// The kernel brings a thread's CPU time up to date when the thread leaves its core (and at each timer tick), not when
// it is read: so each reading is taken just after waking from the sleep that follows a unit, when the unit's time has
// been counted in full.
let previous;
let previousKind;
let total = 0;
let turn = 0;
const tick = () => {
  const now = onCpuNs();
  if (previous !== undefined) parentPort.postMessage({ kind: previousKind, cpuNs: now - previous, total });
  turn += 1;
  previousKind = turn % 2 === 0 ? 'compute' : 'memory';
  previous = onCpuNs();
  total = (total + (previousKind === 'compute' ? compute() : memory())) | 0;
  setTimeout(tick, workerData.intervalMs / 2);
};
// Warm the JIT before the first unit counts.
for (let i = 0; i < 5; i++) { compute(); memory(); }
tick();
`;

interface Unit {
  kind: 'compute' | 'memory';
  cpuNs: number;
  /** performance.now() in the bench's main thread when the unit's time arrived. */
  at: number;
}

export interface PaceSummary {
  /** Units of each kind measured. */
  units: number;
  /** CPU time of the arithmetic unit, µs: median and 90th percentile. */
  cpuUsP50: number;
  cpuUsP90: number;
  /** CPU time of the memory unit (dependent reads through 64 MB), µs: median and 90th percentile. */
  memoryUsP50: number;
  memoryUsP90: number;
}

export interface PaceProbe {
  stop(): Promise<PaceSummary | null>;
}

/** Whether this kernel reports a thread's CPU time (Linux with schedstat); elsewhere the probe reports nothing. */
const schedstatReadable = (() => {
  try {
    readFileSync('/proc/thread-self/schedstat', 'utf8');
    return true;
  } catch {
    return false;
  }
})();

let units: Unit[] = [];
let worker: Worker | null = null;

function ensureWorker(): void {
  if (worker) return;
  worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      computeIterations: 300_000,
      memoryBytes: 64 * 1024 * 1024,
      memoryReads: 10_000,
      intervalMs: PACE_INTERVAL_MS,
    },
  });
  worker.on('message', (message: { kind: Unit['kind']; cpuNs: number }) => {
    units.push({ kind: message.kind, cpuNs: message.cpuNs, at: performance.now() });
    // Only recent units are ever read: keep about ten minutes' worth.
    if (units.length > 6_000) units = units.slice(-3_000);
  });
  // The bench ends when its work does; the probe does not hold it open.
  worker.unref();
}

/** Starts a window of the machine's pace; `stop()` summarizes the units that ended within it. */
export function startPaceProbe(): PaceProbe {
  if (!schedstatReadable) return { stop: async () => null };
  ensureWorker();
  const from = performance.now();
  return {
    async stop() {
      const to = performance.now();
      const within = (kind: Unit['kind']) =>
        units
          .filter((unit) => unit.kind === kind && unit.at >= from && unit.at <= to)
          .map((unit) => Math.round(unit.cpuNs / 100) / 10);
      const compute = within('compute');
      const memory = within('memory');
      if (compute.length === 0 || memory.length === 0) return null;
      const cpuUs = summarize(compute);
      const memoryUs = summarize(memory);
      return {
        units: Math.min(compute.length, memory.length),
        cpuUsP50: cpuUs.p50,
        cpuUsP90: cpuUs.p90,
        memoryUsP50: memoryUs.p50,
        memoryUsP90: memoryUs.p90,
      };
    },
  };
}
