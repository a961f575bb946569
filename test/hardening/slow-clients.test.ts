/**
 * Slow clients do not hurt others, as a figure: `patron serve` as a real process, an open-loop load of fixed rate
 * (each request sent on its schedule, its latency counted from when it was due, so a stalled server cannot hide
 * behind a slowed-down client), first against the idle server, then while 200 slowloris sockets trickle headers and
 * bodies a byte at a time from another process. The others' p99 stays within 2× of the idle one, and the slow
 * sockets are cut off by the request time-out. Runs on PGlite, or on PostgreSQL when DATABASE_URL is set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuMs, summarize, type LatencySummary } from '../../bench/support/harness.js';
import { createKey } from '../../src/auth/keys.js';
import { migrateToLatest, openDatabase } from '../../src/db/engine.js';
import { createOrganization } from '../../src/resources/organization/service.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { childEnv, ROOT, sleep } from '../support/processes.js';
import { killAll, startServe, type ServeProcess } from './processes.js';
import type { SlowMessage, SlowOptions, SlowOutcome } from './slowloris.js';

const REQUEST_TIMEOUT_MS = 3_000;
/**
 * The time-out, plus Node's check of it once a second (connectionsCheckingInterval), plus up to 3 s of event-loop lag
 * on the busy shared machine (seen: 2 s): far below the 300 s Node would hold a socket without a time-out.
 */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + 4_000;
const SLOW_SOCKETS = 200;
/**
 * The slow sockets are opened one after another over one time-out, before a slow block starts. Node cuts expired
 * requests in a check once a second, so sockets opened in the same second are cut, and reconnect, together: opened at
 * once, all 200 would do so in one burst every few seconds (a reconnect storm), where a steady stream of slow clients
 * spreads over the checks.
 */
const SPREAD_MS = REQUEST_TIMEOUT_MS;
/** Requests per second of the measured load: well within what one process serves on a shared machine. */
const RATE = 150;
/**
 * Idle and slow blocks alternate, so that other work on the shared machine falls on both alike. The sockets opened
 * before a slow block (SPREAD_MS) are older than CUT_WITHIN_MS at its end, so each of them must have been cut in it.
 */
const BLOCK_MS = 6_000;
const CYCLES = 7;
/**
 * The idle p99 the slow one is compared with is at least this: on a quiet machine the idle p99 can be 1-2 ms, where a
 * single scheduling hiccup would double it without any slow client.
 */
const P99_FLOOR_MS = 5;

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
  const organization = await createOrganization(database.db, {
    name: 'Slow clients',
    apiRequestsPerMinute: 1_000_000,
  });
  ({ key } = await createKey(database.db, { organizationId: organization.id, permissions: ['all'] }));
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

/** The open loop of `ms`, with the CPU serve used meanwhile and the cores other work on the machine took. */
async function block(ms: number) {
  const [busy, own, serverCpu, started] = [machineBusyMs(), ownCpuMs(), cpuMs(server.pid) ?? NaN, performance.now()];
  const result = await openLoop(ms);
  const elapsed = performance.now() - started;
  return {
    ...result,
    serverCpuMs: (cpuMs(server.pid) ?? NaN) - serverCpu,
    backgroundCores: (machineBusyMs() - busy - (ownCpuMs() - own)) / elapsed,
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

/** The middle value (of an even count, the lower of the two in the middle). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

describe('slow clients do not hurt others (a real serve process)', () => {
  it(`keeps the p99 of other clients within 2× of an idle server's while ${SLOW_SOCKETS} slow sockets are open, and cuts the slow sockets off`, async () => {
    await openLoop(2_000); // warm-up, discarded
    const idle: number[][] = [];
    const slow: number[][] = [];
    const failures: string[] = [];
    const outcomes: SlowOutcome[] = [];
    const cpu = { idle: 0, slow: 0 };
    const background: { idle: number[]; slow: number[] } = { idle: [], slow: [] };
    let opened = Infinity;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const quiet = await block(BLOCK_MS);
      cpu.idle += quiet.serverCpuMs;
      background.idle.push(quiet.backgroundCores);
      idle.push(quiet.latencies);
      failures.push(...quiet.failures);

      const open = reply();
      const options: SlowOptions = {
        port: Number(new URL(server.baseUrl).port),
        key,
        count: SLOW_SOCKETS,
        spreadMs: SPREAD_MS,
      };
      slowloris.send({ open: options });
      const message = await open;
      if ('opened' in message) opened = Math.min(opened, message.opened);
      const loaded = await block(BLOCK_MS);
      cpu.slow += loaded.serverCpuMs;
      background.slow.push(loaded.backgroundCores);
      slow.push(loaded.latencies);
      failures.push(...loaded.failures);
      const close = reply();
      slowloris.send({ close: true });
      const closed = await close;
      if ('closed' in closed) outcomes.push(...closed.closed);
    }

    // The p99 of each condition is the median of its blocks' p99s: a burst of other work on the shared machine (tests
    // of other engineers) inflates the block it falls in, and would otherwise decide the comparison alone; a cost of
    // the slow sockets shows in every slow block.
    const idleP99 = median(idle.map((block) => summarize(block).p99));
    const slowP99 = median(slow.map((block) => summarize(block).p99));
    const idleAll: LatencySummary = summarize(idle.flat());
    const slowAll: LatencySummary = summarize(slow.flat());
    const limit = 2 * Math.max(idleP99, P99_FLOOR_MS);
    const cut = outcomes.filter((outcome) => outcome.closedByServer);
    const stillOpen = outcomes.filter((outcome) => !outcome.closedByServer);
    const answers = new Map<string, number>();
    for (const outcome of cut) {
      const lines = outcome.answers.map((line) => line.slice(9, 12)).join('+') || 'closed';
      const seen = `${outcome.kind}: ${lines} ${outcome.code ?? ''}`.trim();
      answers.set(seen, (answers.get(seen) ?? 0) + 1);
    }
    const cutMs = summarize(cut.map((outcome) => outcome.openMs));
    const blocks = (list: number[][]) => list.map((block) => summarize(block).p99.toFixed(1)).join(', ');
    console.log(
      `slow clients (${postgresUrl ? 'PostgreSQL' : 'PGlite'}, REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}): open loop of GET /v1/organization ` +
        `at ${RATE} req/s, ${CYCLES} idle and ${CYCLES} slow blocks of ${BLOCK_MS} ms alternating; ` +
        `idle p99 ${idleP99} ms (blocks ${blocks(idle)}; all ${idleAll.n}: p50 ${idleAll.p50}, p99 ${idleAll.p99}), ` +
        `with ${SLOW_SOCKETS} slow sockets p99 ${slowP99} ms (blocks ${blocks(slow)}; all ${slowAll.n}: p50 ${slowAll.p50}, p99 ${slowAll.p99}, max ${slowAll.max}); ` +
        `ratio ${(slowP99 / idleP99).toFixed(2)}, limit ${limit.toFixed(1)} ms; other work on the machine ` +
        `${median(background.idle).toFixed(2)} cores (median) in idle blocks, ${median(background.slow).toFixed(2)} in slow ones; server CPU ${(cpu.idle / CYCLES).toFixed(0)} ms idle, ` +
        `${(cpu.slow / CYCLES).toFixed(0)} ms slow per block; ${cut.length} slow sockets cut by the server after ${cutMs.p50} ms median, ` +
        `${cutMs.max} ms at most (${[...answers].map(([seen, n]) => `${n} × ${seen}`).join(', ')}), ${stillOpen.length} closed by the ` +
        `client at the end of a block; ${failures.length} failed requests`,
    );

    expect(failures).toEqual([]);
    expect(opened).toBe(SLOW_SOCKETS);
    expect(
      slowP99,
      `p99 with slow sockets over the limit; other work took ${median(background.slow).toFixed(2)} cores of the machine meanwhile`,
    ).toBeLessThanOrEqual(limit);
    // Every slow socket was cut after the time-out and within CUT_WITHIN_MS, with a 408 in the error envelope (a body
    // sent without a key is answered 401 at once, then 408 when the rest of it does not arrive), and none that the
    // client closed at the end of a block had been open longer: so each one opened before a block was cut in it.
    expect(cut.length).toBeGreaterThanOrEqual(SLOW_SOCKETS * CYCLES);
    for (const outcome of [...cut, ...stillOpen]) {
      expect(outcome.openMs, JSON.stringify(outcome)).toBeLessThan(CUT_WITHIN_MS);
    }
    for (const outcome of cut) {
      expect(outcome.openMs, JSON.stringify(outcome)).toBeGreaterThan(REQUEST_TIMEOUT_MS - 50);
      expect(outcome.answers.at(-1), JSON.stringify(outcome)).toMatch(/^HTTP\/1\.1 408 /);
      expect(outcome.code).toBe('REQUEST_TIMEOUT');
    }
    expect(server.child.exitCode).toBeNull();
  });
});
