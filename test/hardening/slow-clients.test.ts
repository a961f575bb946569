/**
 * Slow clients do not hurt others, as a figure: `patron serve` as a real process, an open-loop load of fixed rate
 * (each request sent on its schedule, its latency counted from when it was due, so a stalled server cannot hide
 * behind a slowed-down client), first against the idle server, then while 200 slowloris sockets trickle headers and
 * bodies a byte at a time from another process. The slow sockets are cut off by the request time-out, and the others'
 * p99 is printed against the idle one's as a figure (target: within TARGET_RATIO) and checked against a bound wide
 * enough that only a real cost of the slow clients reaches it on a busy machine (compared when other work leaves the
 * machine a core to spare). Runs on PGlite; skipped when DATABASE_URL is set (below).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuMs, summarize } from '../../bench/support/harness.js';
import { migrateToLatest, openDatabase } from '../../src/db/engine.js';
import { createTenant } from '../support/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { childEnv, ROOT, sleep } from '../support/processes.js';
import { killAll, startServe, type ServeProcess } from './processes.js';
import type { SlowMessage, SlowOptions, SlowOutcome } from './slowloris.js';

/**
 * A third of the default, so that the cut-offs happen within the test: each slow socket is cut and replaced every
 * 10-11 s, three times as often as the default would. At a tenth of the default (3 s) the p99 with slow sockets paid
 * mostly for that churn (each cut is a 408 and a new connection, and a body with a key authenticates again), up to
 * 3.2 × the idle p99 on a quiet machine; at 9 s it was 0.6 ×.
 */
const REQUEST_TIMEOUT_MS = 10_000;
const SLOW_SOCKETS = 200;
/**
 * The slow sockets are opened one after another over 3 s, before a slow block starts. Node cuts expired
 * requests in a check once a second, so sockets opened in the same second are cut, and reconnect, together: opened at
 * once, all 200 would do so in one burst every few seconds (a reconnect storm), where a steady stream of slow clients
 * spreads over the checks.
 */
const SPREAD_MS = 3_000;
/** Requests per second of the measured load: well within what one process serves on a shared machine. */
const RATE = 150;
/**
 * Idle and slow blocks alternate, beginning and ending with an idle one, so that other work on the shared machine falls
 * on both alike and each slow block has an idle neighbour on either side. A slow block is longer than the time-out plus
 * its check: each socket opened before it is cut (and replaced) in it.
 */
const BLOCK_MS = 12_000;
/**
 * Three slow blocks give a median of three ratios, each against its own idle neighbours; five cost another 48 s of
 * CI on each engine for a figure this test prints but does not record (CI stays within 25 minutes).
 */
const CYCLES = 3;
/**
 * The idle p99 the slow one is compared with is at least this: on a quiet machine the idle p99 can be 1-2 ms, where a
 * single scheduling hiccup would double it without any slow client.
 */
const P99_FLOOR_MS = 5;
/** What the p99 with slow sockets should stay within, as a multiple of the idle one's: the figure, printed. */
const TARGET_RATIO = 2;
/**
 * What the test fails at. Measured ratios: 0.6-1.85 on a quiet machine, once 4.8 in a landing CI run on the shared
 * 2-core machine, where a comparison against TARGET_RATIO failed a landing. Slow clients that did hold the others up
 * (a starved event loop, connections kept past the time-out) would cost seconds against an idle p99 of a few ms.
 */
const RATIO_BOUND = 10;
/** The p99s are compared while other work leaves this share of the machine's cores to the test, at least. */
const ROOM = 0.5;

let testDatabase: TestDatabase | undefined;
let tempDir: string;
let server: ServeProcess;
let slowloris: ChildProcess;
let key: string;

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'patron-slow-clients-'));
  // The organization and its key are made before serve starts: the embedded database is single-process.
  const database = postgresUrl
    ? (testDatabase = await createTestDatabase()).database
    : await openDatabase({ dataDir: tempDir });
  if (!postgresUrl) await migrateToLatest(database.db);
  ({ key } = await createTenant(database.db, { name: 'Slow clients', apiRequestsPerMinute: 1_000_000 }));
  if (!postgresUrl) await database.close();
  server = await startServe({
    ...(testDatabase ? { DATABASE_URL: testDatabase.url } : {}),
    PATRON_DATA_DIR: tempDir,
    PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    LOG_LEVEL: 'warn',
  });
  slowloris = spawn(process.execPath, ['--import', 'tsx', 'test/hardening/slowloris.ts'], {
    cwd: ROOT,
    env: childEnv({}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // On loopback the slow clients' own CPU would compete with serve for the machine's cores, which a remote attacker's
  // does not: they run at a lower priority.
  setPriority(slowloris.pid!, 10);
  // Its start (compiling it, on a loaded machine) may take a while; an order sent before it listens would be lost.
  await new Promise<void>((resolve, reject) => {
    slowloris.once('message', () => resolve());
    slowloris.once('exit', (code) => reject(new Error(`the slow-client process exited (${code}) before it was ready`)));
  });
}, 120_000);

afterAll(async () => {
  slowloris?.kill('SIGKILL');
  await killAll();
  await testDatabase?.drop();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** CPU ms the whole machine has been busy so far (all cores), from /proc/stat; NaN where it is unavailable. */
function machineBusyMs(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return ((fields.reduce((a, b) => a + b, 0) - fields[3]! - fields[4]!) * 1000) / 100; // USER_HZ 100
  } catch {
    return NaN;
  }
}

/**
 * Microseconds during which some runnable task waited for a CPU, from the kernel's pressure stall information
 * (/proc/pressure/cpu); NaN where it is unavailable.
 */
function cpuPressureUs(): number {
  try {
    return Number(/^some .* total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** CPU ms of this test's own processes: this one, serve, the slowloris process and the database's backends. */
function ownCpuMs(): number {
  const usage = process.cpuUsage();
  let ms = (usage.user + usage.system) / 1000 + (cpuMs(server.pid) ?? NaN) + (cpuMs(slowloris.pid) ?? NaN);
  const databaseName = testDatabase && new URL(testDatabase.url!).pathname.slice(1);
  if (databaseName) {
    for (const entry of readdirSync('/proc')) {
      try {
        if (/^\d+$/.test(entry) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(databaseName))
          ms += cpuMs(Number(entry)) ?? 0;
      } catch {
        // the process ended meanwhile
      }
    }
  }
  return ms;
}

/** The open loop of `ms`, with the CPU serve used meanwhile, and the cores this test and other work took. */
async function block(ms: number) {
  const [busy, own, pressure, serverCpu] = [machineBusyMs(), ownCpuMs(), cpuPressureUs(), cpuMs(server.pid) ?? NaN];
  const started = performance.now();
  const result = await openLoop(ms);
  const elapsed = performance.now() - started;
  const ownCores = (ownCpuMs() - own) / elapsed;
  return {
    ...result,
    serverCpuMs: (cpuMs(server.pid) ?? NaN) - serverCpu,
    ownCores,
    backgroundCores: (machineBusyMs() - busy) / elapsed - ownCores,
    /** The share of the time some runnable task waited for a CPU. */
    cpuPressure: (cpuPressureUs() - pressure) / 1000 / elapsed,
  };
}

/** The next message of the slowloris process. */
const reply = () => new Promise<SlowMessage>((resolve) => slowloris.once('message', resolve));

/**
 * GET /v1/organization at RATE per second for `ms`, open loop: request n is sent at start + n / RATE whatever the
 * answers before it, and its latency runs from that time to the end of its body.
 */
async function openLoop(ms: number): Promise<{ latencies: number[]; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; n * (1000 / RATE) < ms; n++) {
    const due = started + n * (1000 / RATE);
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      fetch(`${server.baseUrl}/v1/organization`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          latencies.push(performance.now() - due);
          if (response.status !== 200) failures.push(String(response.status));
        },
        (error: unknown) => void failures.push(String(error)),
      ),
    );
  }
  await Promise.all(pending);
  return { latencies, failures };
}

/** A block's p99, in ms. */
const blockP99 = (one: { latencies: number[] }) => summarize(one.latencies).p99;

/** What a slow block is compared with: the mean p99 of the idle blocks before and after it, at least P99_FLOOR_MS. */
const neighbourP99 = (before: { latencies: number[] }, after: { latencies: number[] }) =>
  Math.max((blockP99(before) + blockP99(after)) / 2, P99_FLOOR_MS);

/** The middle value (of an even count, the lower of the two in the middle). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

interface Block {
  latencies: number[];
  serverCpuMs: number;
  ownCores: number;
  backgroundCores: number;
  cpuPressure: number;
  /** The slow sockets of a slow block, as they ended. */
  outcomes: SlowOutcome[];
}

interface Measurement {
  idle: Block[];
  slow: Block[];
  failures: string[];
  /** The fewest slow sockets open at once at the start of a slow block. */
  opened: number;
  /** Cores other work took (the median of the blocks). */
  otherCores: number;
  /** The share of the time some runnable task waited for a CPU (the median of the blocks). */
  cpuPressure: number;
  /** The slow blocks' p99s against their idle neighbours' (see the comparison below). */
  ratios: number[];
  /** What the measurement printed, repeated in a failed comparison's message: a CI log may keep only its failures. */
  figures: string;
}

/**
 * CYCLES idle and slow blocks in turn, beginning and ending with an idle one, with the slow sockets opened before each
 * slow block and closed after it.
 */
async function measure(): Promise<Measurement> {
  const idle: Block[] = [];
  const slow: Block[] = [];
  const failures: string[] = [];
  let opened = Infinity;
  await openLoop(2_000); // warm-up, discarded
  const port = Number(new URL(server.baseUrl).port);
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const quiet = await block(BLOCK_MS);
    idle.push({ ...quiet, outcomes: [] });
    failures.push(...quiet.failures);

    const open = reply();
    slowloris.send({ open: { port, key, count: SLOW_SOCKETS, spreadMs: SPREAD_MS } satisfies SlowOptions });
    const message = await open;
    if ('opened' in message) opened = Math.min(opened, message.opened);
    const loaded = await block(BLOCK_MS);
    failures.push(...loaded.failures);
    const close = reply();
    slowloris.send({ close: true });
    const closed = await close;
    slow.push({ ...loaded, outcomes: 'closed' in closed ? closed.closed : [] });
  }
  // A last idle block, so that every slow block has an idle one on either side (see the comparison below).
  const last = await block(BLOCK_MS);
  idle.push({ ...last, outcomes: [] });
  failures.push(...last.failures);

  const busyCores = median([...idle, ...slow].map((one) => one.ownCores + one.backgroundCores));
  const otherCores = median([...idle, ...slow].map((one) => one.backgroundCores));
  const cpuPressure = median([...idle, ...slow].map((one) => one.cpuPressure));
  const ratios = slow.map((one, i) => blockP99(one) / neighbourP99(idle[i]!, idle[i + 1]!));
  const p99 = (blocks: Block[]) => median(blocks.map((one) => summarize(one.latencies).p99));
  const all = (blocks: Block[]) => summarize(blocks.flatMap((one) => one.latencies));
  const perBlock = (blocks: Block[]) => blocks.map((one) => summarize(one.latencies).p99.toFixed(1)).join(', ');
  const cpu = (blocks: Block[]) => (blocks.reduce((sum, one) => sum + one.serverCpuMs, 0) / blocks.length).toFixed(0);
  const outcomes = slow.flatMap((one) => one.outcomes);
  const cut = outcomes.filter((outcome) => outcome.closedByServer);
  const answers = new Map<string, number>();
  for (const outcome of cut) {
    const lines = outcome.answers.map((line) => line.slice(9, 12)).join('+') || 'closed';
    const seen = `${outcome.kind}: ${lines} ${outcome.code ?? ''}`.trim();
    answers.set(seen, (answers.get(seen) ?? 0) + 1);
  }
  const cutMs = summarize(cut.map((outcome) => outcome.requestMs));
  const [idleAll, slowAll] = [all(idle), all(slow)];
  const figures =
    `slow clients (${postgresUrl ? 'PostgreSQL' : 'PGlite'}, REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}): open loop of ` +
    `GET /v1/organization at ${RATE} req/s, ${CYCLES + 1} idle and ${CYCLES} slow blocks of ${BLOCK_MS} ms alternating; ` +
    `idle p99 ${p99(idle)} ms (blocks ${perBlock(idle)}; all ${idleAll.n}: p50 ${idleAll.p50}, p99 ${idleAll.p99}), ` +
    `with ${SLOW_SOCKETS} slow sockets p99 ${p99(slow)} ms (blocks ${perBlock(slow)}; all ${slowAll.n}: ` +
    `p50 ${slowAll.p50}, p99 ${slowAll.p99}, max ${slowAll.max}); ratio of medians ${(p99(slow) / p99(idle)).toFixed(2)}, ` +
    `median ratio ${median(ratios).toFixed(2)} (target ${TARGET_RATIO}, bound ${RATIO_BOUND}), ` +
    `ratios to the neighbouring idle blocks ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; ` +
    `machine busy ${busyCores.toFixed(2)} of ${availableParallelism()} cores, other work ${otherCores.toFixed(2)}, ` +
    `tasks waiting for a CPU ${(cpuPressure * 100).toFixed(0)} % of the time (medians of the blocks); serve's CPU per block ` +
    `${cpu(idle)} ms idle, ${cpu(slow)} ms slow; ${cut.length} slow sockets cut by the server, ` +
    `${cutMs.p50} ms after their first byte (median), ${cutMs.max} ms at most (${[...answers].map(([seen, n]) => `${n} × ${seen}`).join(', ')}), ` +
    `${outcomes.length - cut.length} closed by the client at the end of a block; ${failures.length} failed requests`;
  console.log(figures);
  return { idle, slow, failures, opened, otherCores, cpuPressure, ratios, figures };
}

/** True when other work left this test too little of the machine for a latency comparison to mean anything. */
const crowded = (measurement: Measurement) => measurement.otherCores > (1 - ROOM) * availableParallelism();

// On the embedded engine only: slow sockets are cut in the HTTP layer before any request reaches the database, and a
// run takes two minutes on each engine. The embedded engine is also where a held request would hurt others most: its
// one connection is shared by every request (docs/reliability.md).
describe.skipIf(Boolean(postgresUrl))('slow clients do not hurt others (a real serve process)', () => {
  let first: Measurement;

  beforeAll(async () => {
    first = await measure();
  }, 10 * 60_000);

  it('cuts every slow socket off after the time-out with 408 in the error envelope', () => {
    expect(first.failures).toEqual([]);
    expect(first.opened).toBe(SLOW_SOCKETS);
    for (const one of first.slow) {
      // Cut after the time-out from its first byte, and within the time-out, the check of it once a second, and however
      // late serve was answering anyone in that block (its event loop shares the busy machine). A body sent without a
      // key is answered 401 at once, then 408 when the rest of it does not arrive. None that the client closed at the
      // end of the block had been open longer: each one opened before a block was cut in it.
      // The slow-socket process shares the machine too: 1.5 s of room for its own lag (500 ms was exceeded by 0.1 ms
      // with other work on both cores). A socket never cut would stay open 12-15 s (opened over the 3 s before its
      // block, closed at the block's end), mostly past this.
      const within = REQUEST_TIMEOUT_MS + 1_000 + 1_500 + Math.max(...one.latencies);
      const cut = one.outcomes.filter((outcome) => outcome.closedByServer);
      expect(cut.length).toBeGreaterThan(0);
      for (const outcome of one.outcomes) expect(outcome.requestMs, JSON.stringify(outcome)).toBeLessThan(within);
      for (const outcome of cut) {
        expect(outcome.requestMs, JSON.stringify(outcome)).toBeGreaterThan(REQUEST_TIMEOUT_MS - 50);
        expect(outcome.answers.at(-1), JSON.stringify(outcome)).toMatch(/^HTTP\/1\.1 408 /);
        expect(outcome.code).toBe('REQUEST_TIMEOUT');
      }
    }
    expect(server.child.exitCode).toBeNull();
  });

  it(`keeps the p99 of other clients within ${RATIO_BOUND}× of an idle server's while ${SLOW_SOCKETS} slow sockets are open`, async (context) => {
    // Each slow block is compared with the idle blocks on either side of it, and the comparison is the median of those
    // ratios. A burst of other work on the shared machine inflates the block it falls in, and would otherwise decide
    // the comparison alone; a cost of the slow sockets shows in every slow block. Comparing neighbours rather than
    // the two conditions' medians keeps a slow drift of the server over the test's two minutes out of the ratio: on
    // PGlite, late blocks of both conditions were 2-3 × the early ones, and the condition that happened to have three
    // late blocks decided the comparison.
    //
    // A measurement over the bound is taken again once, and the second one decides: a cost of the slow sockets shows
    // in both measurements, a disturbance of the machine seldom does. Within the bound, the ratio is a figure against
    // TARGET_RATIO (printed above), not a verdict.
    let measurement = first;
    if (!crowded(measurement) && median(measurement.ratios) > RATIO_BOUND) {
      console.log(
        `slow clients: ${median(measurement.ratios).toFixed(2)} × over ${RATIO_BOUND} ×: measuring once more`,
      );
      measurement = await measure();
      expect(measurement.failures).toEqual([]);
    }
    // A latency comparison means something only while the machine has room for this test. When other work (other
    // engineers' tests on the shared machine) takes more than half of its cores, the scheduler decides the p99s: they
    // are reported above, but not compared.
    context.skip(
      crowded(measurement),
      `other work took ${measurement.otherCores.toFixed(2)} of the machine's ${availableParallelism()} cores ` +
        `(runnable tasks waited for a CPU ${(measurement.cpuPressure * 100).toFixed(0)} % of the time): p99 not compared`,
    );
    expect(measurement.idle.length).toBe(measurement.slow.length + 1);
    const figures = measurement === first ? first.figures : `${first.figures}\nthen: ${measurement.figures}`;
    expect(median(measurement.ratios), figures).toBeLessThanOrEqual(RATIO_BOUND);
  });
});
