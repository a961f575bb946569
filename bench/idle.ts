// What a serving Patron costs while nobody calls it: the CPU of the server process and of its PostgreSQL backends
// per second of idle time, on the bench store database (50 organizations, PostgreSQL). Its background loops poll
// (the webhook dispatcher four times a second, the mail sender once a second, the job runner every 30 s, the
// process-presence heartbeat), so this is the floor every deployment pays per process. With BENCH_BASE_CLI (the
// dist/src/cli/main.js of an earlier build, e.g. one compiled inside this checkout, so that it finds node_modules,
// with `npx tsc -p tsconfig.build.json --outDir dist-old --incremental false`: without the last flag tsc reads the
// build info of dist/ and writes only the files changed since), the base is measured in the same rounds,
// alternating, and the table gives this build's figures as a share of the base's.
//
//   npm run bench:idle                 (node --import tsx bench/idle.ts)
//
// Tunables (env): BENCH_SETTLE_S (5: after the start, not measured), BENCH_IDLE_S (30), BENCH_ROUNDS (3),
// BENCH_BASE_CLI, BENCH_SKIP_BUILD=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureStoreReviews } from './datasets/store-reviews.js';
import {
  CLI,
  build,
  backendsCpuMs,
  cpuMs,
  databaseUrl,
  log,
  saveResult,
  scheduledJobsSettled,
  SERVER_NODE_ARGS,
  serverEnv,
  startServer,
  table,
} from './support/harness.js';

const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 5);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASE_CLI = process.env.BENCH_BASE_CLI;

interface Idle {
  label: string;
  /** CPU ms per idle second of the server process and of the PostgreSQL backends of the bench database. */
  serverMsPerS: number;
  databaseMsPerS: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * CPU ms the bench database's backends used during `ms`, read per backend every half second: the pool closes idle
 * connections and opens new ones meanwhile, and a backend's CPU counts up to the last reading before it ended.
 */
async function backendsCpuDuring(ms: number): Promise<number | null> {
  let last = backendsCpuMs();
  if (!last) return null;
  let total = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    await sleep(Math.min(500, end - performance.now()));
    const now = backendsCpuMs();
    if (!now) return null;
    for (const [pid, cpu] of now) total += cpu - (last.get(pid) ?? 0);
    last = now;
  }
  return total;
}

async function measureIdle(label: string, cli: string, workDir: string): Promise<Idle> {
  const server = await startServer(
    label,
    [...SERVER_NODE_ARGS, cli, 'serve'],
    serverEnv({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', PATRON_DATA_DIR: join(workDir, 'data') }),
    workDir,
  );
  try {
    await scheduledJobsSettled(label, databaseUrl());
    await sleep(SETTLE_S * 1000);
    const serverBefore = cpuMs(server.child.pid);
    const databaseMs = await backendsCpuDuring(IDLE_S * 1000);
    const serverAfter = cpuMs(server.child.pid);
    if (serverBefore === null || serverAfter === null || databaseMs === null) throw new Error('CPU times need /proc');
    const idle = { label, serverMsPerS: (serverAfter - serverBefore) / IDLE_S, databaseMsPerS: databaseMs / IDLE_S };
    log(`  ${label}: server ${idle.serverMsPerS.toFixed(2)} ms/s, PostgreSQL ${idle.databaseMsPerS.toFixed(2)} ms/s`);
    return idle;
  } finally {
    await server.stop();
  }
}

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) build();
  await ensureStoreReviews();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-idle-'));
  const builds = [{ label: 'this build', cli: CLI }, ...(BASE_CLI ? [{ label: 'base', cli: BASE_CLI }] : [])];
  const results = new Map<string, Idle[]>(builds.map((entry) => [entry.label, []]));
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}: ${IDLE_S} s idle each, after ${SETTLE_S} s to settle`);
      // The order turns each round, so neither build always meets the same background.
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const entry of order) results.get(entry.label)!.push(await measureIdle(entry.label, entry.cli, workDir));
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const summary = builds.map(({ label }) => {
    const rounds = results.get(label)!;
    return {
      label,
      serverMsPerS: median(rounds.map((r) => r.serverMsPerS)),
      databaseMsPerS: median(rounds.map((r) => r.databaseMsPerS)),
    };
  });
  const base = summary.find((entry) => entry.label === 'base');
  const share = (value: number, of: number | undefined) => (of ? ` (${((100 * value) / of).toFixed(0)} %)` : '');
  console.log(
    `\nIdle CPU per second (median of ${ROUNDS} rounds of ${IDLE_S} s; ms of CPU per s = tenths of a percent of a core)\n` +
      table(
        ['build', 'server ms/s', 'PostgreSQL ms/s', 'total ms/s'],
        summary.map((entry) => [
          entry.label,
          entry.serverMsPerS.toFixed(2) + share(entry.serverMsPerS, base?.serverMsPerS),
          entry.databaseMsPerS.toFixed(2) + share(entry.databaseMsPerS, base?.databaseMsPerS),
          (entry.serverMsPerS + entry.databaseMsPerS).toFixed(2) +
            share(
              entry.serverMsPerS + entry.databaseMsPerS,
              base ? base.serverMsPerS + base.databaseMsPerS : undefined,
            ),
        ]),
      ),
  );
  saveResult('idle', { date: new Date().toISOString(), idleS: IDLE_S, rounds: ROUNDS, summary, results: [...results] });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
