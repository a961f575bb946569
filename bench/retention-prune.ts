// Retention under traffic: a prune of 1,000,000 old delivery records (docs/api.md#retention) while the API serves,
// and what it does to the API's p99.
//
//   npm run bench:retention-prune          (node --import tsx bench/retention-prune.ts)
//
// Needs a PostgreSQL server (DATABASE_URL or BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres): a fresh database
// patron_bench_retention_<random> is created and dropped at the end. The compiled server (`serve --no-dispatch
// --no-jobs`) runs as a child process; the prune runs as the operator would start it by hand, `patron jobs run
// retention.prune --org ID`, in a second child process; the load generator runs in this process.
//
// The load is open-loop: GET /v1/organization at a fixed rate (BENCH_RATE, default 200/s, far below what the
// machine serves), each request's latency counted from the moment it was due, so a stall shows in full instead of
// slowing the load down. p99 is measured over BENCH_IDLE_S (30) seconds without the prune, then over the prune from
// its `job started` log line to `job succeeded`. The table holds BENCH_OLD_ROWS (1,000,000) delivery records 40 days
// old and BENCH_RECENT_ROWS (200,000) from the last hours, which stay. Other tunables: BENCH_BATCH_ROWS (the
// RETENTION_BATCH_ROWS of the prune, default 2,000), BENCH_SKIP_BUILD=1, BENCH_CLI (the compiled main.js to run).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import {
  ADMIN_URL,
  CLI,
  SECRET,
  cpuMs,
  build,
  log,
  run,
  saveResult,
  serverEnv,
  startServer,
  summarize,
  table,
  waitForQuiet,
  type LatencySummary,
} from './support/harness.js';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const OLD_ROWS = Number(process.env.BENCH_OLD_ROWS ?? 1_000_000);
const RECENT_ROWS = Number(process.env.BENCH_RECENT_ROWS ?? 200_000);
const BATCH_ROWS = process.env.BENCH_BATCH_ROWS ?? '2000';
/** The compiled CLI to run (default the harness's dist build), e.g. a build of another commit to compare. */
const PATRON = process.env.BENCH_CLI ?? CLI;

/** The server the bench database is made on: DATABASE_URL when given (the server under test), else the harness's. */
const SERVER_URL = process.env.DATABASE_URL || ADMIN_URL;
const database = `patron_bench_retention_${randomBytes(4).toString('hex')}`;
const url = (() => {
  const parsed = new URL(SERVER_URL);
  parsed.pathname = `/${database}`;
  return parsed.toString();
})();

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs the compiled CLI and parses its one JSON line. */
function cliJson(args: string[]): any {
  const out = run(process.execPath, [PATRON, ...args], serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** The UUID v7 of an SQL timestamp expression, random elsewhere, as the application makes them. */
const v7 = (at: string) =>
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
    substring(int8send(floor(extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** The delivery records: OLD_ROWS settled 40 days ago, RECENT_ROWS settled in the last hours, all of one endpoint. */
async function fill(organizationId: string, webhookId: string): Promise<{ seconds: number; tableMb: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = performance.now();
  try {
    const insert = (from: number, to: number, at: string) =>
      client.query(`
        insert into webhook_deliveries
          (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload, status,
           response_status, attempted_at, created_at, updated_at)
        select '${organizationId}', ${v7('t')}, '${webhookId}', i, null, 'order.updated', gen_random_uuid()::text,
          'https://93.184.215.14/hooks', '{"event":"order.updated","data":{"id":"x","number":"#1001"}}',
          case when i % 20 = 0 then 'failed' else 'succeeded' end, case when i % 20 = 0 then 500 else 200 end,
          t, t, t
        from generate_series(${from}, ${to}) i, lateral (select ${at} as t) times`);
    const chunk = 250_000;
    for (let from = 1; from <= OLD_ROWS; from += chunk) {
      await insert(from, Math.min(OLD_ROWS, from + chunk - 1), `now() - interval '40 days' + i * interval '2 ms'`);
      log(`  inserted ${Math.min(OLD_ROWS, from + chunk - 1).toLocaleString('en')} old delivery records`);
    }
    const total = OLD_ROWS + RECENT_ROWS;
    if (RECENT_ROWS > 0) {
      await insert(OLD_ROWS + 1, total, `now() - interval '6 hours' + (i - ${OLD_ROWS}) * interval '50 ms'`);
    }
    await client.query(
      `update webhook_endpoints set last_sequence = $2, dispatched_through = $2, settled_through = $2 where id = $1`,
      [webhookId, total],
    );
    await client.query('vacuum analyze webhook_deliveries');
    const size = await client.query(`select pg_total_relation_size('webhook_deliveries') as bytes`);
    return { seconds: (performance.now() - started) / 1000, tableMb: Math.round(Number(size.rows[0].bytes) / 2 ** 20) };
  } finally {
    await client.end();
  }
}

/** PostgreSQL's own processes (WAL writer, checkpointer…): their work during the prune is the prune's. */
const POSTGRES_BACKGROUND =
  /^postgres: [^:]*:? ?(checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|archiver|stats)/;

/**
 * CPU ms the machine's other work (other engineers' tests) has used so far: the machine's busy time (/proc/stat, which
 * keeps counting processes that have exited) less the bench's own processes: this one, the given children, the
 * PostgreSQL backends of the bench database and PostgreSQL's background processes. Its growth over a window, divided
 * by the window, is the cores that work took meanwhile.
 */
function othersCpuMs(include: (number | undefined)[]): number | null {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const busy = ticks.reduce((sum, value) => sum + value, 0) - ticks[3]! - (ticks[4] ?? 0); // less idle, iowait
    let ours = 0;
    const mine = new Set([process.pid, ...include]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const command = mine.has(Number(entry)) ? '' : readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (mine.has(Number(entry)) || command.includes(database) || POSTGRES_BACKGROUND.test(command)) {
          ours += cpuMs(Number(entry)) ?? 0;
        }
      } catch {
        // the process ended meanwhile
      }
    }
    return busy * 10 - ours; // USER_HZ 100
  } catch {
    return null;
  }
}

interface Sample {
  dueAt: number;
  ms: number;
  status: number;
}

/**
 * Open-loop load: one GET every 1000/RATE ms from now until stop() is called, whatever the answers do; each sample's
 * latency runs from when the request was due.
 */
function openLoop(baseUrl: string, key: string) {
  const pool = new Pool(baseUrl, { connections: 64, pipelining: 1 });
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const interval = 1000 / RATE;
  const start = performance.now();
  let index = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const now = performance.now();
    while (start + index * interval <= now) {
      const dueAt = start + index * interval;
      index += 1;
      const request = pool
        .request({ method: 'GET', path: '/v1/organization', headers: { authorization: `Bearer ${key}` } })
        .then(async (response) => {
          await response.body.dump();
          samples.push({ dueAt, ms: performance.now() - dueAt, status: response.statusCode });
        })
        .catch(() => {
          samples.push({ dueAt, ms: performance.now() - dueAt, status: 0 });
        })
        .finally(() => pending.delete(request));
      pending.add(request);
    }
    setTimeout(tick, Math.max(0, start + index * interval - performance.now()));
  };
  tick();
  return {
    samples,
    async stop() {
      stopped = true;
      await Promise.all(pending);
      await pool.close();
    },
  };
}

function window(samples: Sample[], from: number, to: number, othersMs: [number | null, number | null]) {
  const inside = samples.filter((sample) => sample.dueAt >= from && sample.dueAt < to);
  const [before, after] = othersMs;
  return {
    latency: summarize(inside.map((sample) => sample.ms)),
    errors: inside.filter((sample) => sample.status !== 200).length,
    seconds: (to - from) / 1000,
    /** Cores the machine's other work used on average meanwhile (2 in all). */
    otherCores: before === null || after === null ? null : Math.round(((after - before) / (to - from)) * 100) / 100,
  };
}

/** Starts `patron jobs run retention.prune` and reports when its job started and finished (from its log lines). */
function prune(organizationId: string, serverPid: number | undefined) {
  const child = spawn(process.execPath, [PATRON, 'jobs', 'run', 'retention.prune', '--org', organizationId], {
    env: serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'info', RETENTION_BATCH_ROWS: BATCH_ROWS }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let startedAt: number | null = null;
  let finishedAt: number | null = null;
  let durationMs: number | null = null;
  let othersAtStart: number | null = null;
  let othersAtEnd: number | null = null;
  let stdout = '';
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; durationMs?: number };
        } catch {
          return {};
        }
      })();
      if (entry.msg === 'job started') {
        startedAt = performance.now();
        othersAtStart = othersCpuMs([serverPid, child.pid]);
      }
      if (entry.msg === 'job succeeded') {
        finishedAt = performance.now();
        othersAtEnd = othersCpuMs([serverPid, child.pid]);
        durationMs = entry.durationMs ?? null;
      }
    }
  });
  return new Promise<{
    startedAt: number;
    finishedAt: number;
    durationMs: number;
    result: Record<string, number>;
    othersMs: [number | null, number | null];
  }>((resolve, reject) =>
    child.once('close', (code) => {
      if (code !== 0 || startedAt === null || finishedAt === null) {
        reject(new Error(`the prune failed (exit ${code}):\n${stdout}\n${buffered}`));
        return;
      }
      const job = JSON.parse(stdout.trim()) as { result: Record<string, number> };
      resolve({
        startedAt,
        finishedAt,
        durationMs: durationMs ?? finishedAt - startedAt,
        result: job.result,
        othersMs: [othersAtStart, othersAtEnd],
      });
    }),
  );
}

async function main(): Promise<void> {
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-retention-'));
  await admin(`create database ${database}`);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    run(process.execPath, [PATRON, 'migrate'], serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
    const organization = cliJson([
      'org',
      'create',
      '--name',
      'Retention bench',
      '--api-requests-per-minute',
      '10000000',
      '--json',
    ]);
    const { key } = cliJson(['key', 'create', '--org', organization.id, '--json']);
    server = await startServer(
      'patron',
      [PATRON, 'serve', '--no-dispatch', '--no-jobs'],
      serverEnv({
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
        PATRON_DATA_DIR: join(workDir, 'data'),
        PATRON_SECRET_KEY: SECRET,
      }),
      workDir,
    );
    const endpoint = await fetch(`${server.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { url: 'https://93.184.215.14/hooks', events: ['order.updated'] } }),
    }).then((response) => response.json() as Promise<{ id: string }>);

    log(`filling ${OLD_ROWS.toLocaleString('en')} old and ${RECENT_ROWS.toLocaleString('en')} recent delivery records`);
    const filled = await fill(organization.id, endpoint.id);
    log(`  filled in ${filled.seconds.toFixed(0)} s; webhook_deliveries is ${filled.tableMb} MB with its indexes`);

    const busyBefore = await waitForQuiet('retention prune');
    log(`open-loop GET /v1/organization at ${RATE}/s: ${IDLE_S} s idle, then during the prune`);
    const load = openLoop(server.baseUrl, key);
    await new Promise((resolve) => setTimeout(resolve, 5_000)); // warm-up, not counted
    const idleFrom = performance.now();
    const othersIdleFrom = othersCpuMs([server.child.pid]);
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    const idleTo = performance.now();
    const othersIdleTo = othersCpuMs([server.child.pid]);
    const pruned = await prune(organization.id, server.child.pid);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await load.stop();

    const idle = window(load.samples, idleFrom, idleTo, [othersIdleFrom, othersIdleTo]);
    const during = window(load.samples, pruned.startedAt, pruned.finishedAt, pruned.othersMs);
    const rows = pruned.result.deliveries ?? 0;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const left = await client.query(`select count(*)::int as n from webhook_deliveries`);
    await client.end();

    const row = (
      name: string,
      w: { latency: LatencySummary; errors: number; seconds: number; otherCores: number | null },
    ) => [
      name,
      w.seconds.toFixed(1),
      String(w.latency.n),
      w.latency.p50.toFixed(2),
      w.latency.p99.toFixed(2),
      w.latency.max.toFixed(1),
      String(w.errors),
      w.otherCores === null ? '?' : w.otherCores.toFixed(2),
    ];
    console.log(
      table(
        ['phase', 's', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
        [row('idle', idle), row('prune', during)],
      ),
    );
    const result = {
      rate: RATE,
      batchRows: Number(BATCH_ROWS),
      oldRows: OLD_ROWS,
      recentRows: RECENT_ROWS,
      tableMb: filled.tableMb,
      pruned: pruned.result,
      rowsLeft: left.rows[0].n,
      pruneSeconds: Number((pruned.durationMs / 1000).toFixed(1)),
      rowsPerSecond: Math.round(rows / (pruned.durationMs / 1000)),
      idle: { ...idle.latency, errors: idle.errors, otherCores: idle.otherCores },
      duringPrune: { ...during.latency, errors: during.errors, otherCores: during.otherCores },
      p99Ratio: Number((during.latency.p99 / idle.latency.p99).toFixed(2)),
      machineBusyBefore: busyBefore === null ? null : Math.round(busyBefore * 100) / 100,
    };
    log(
      `pruned ${rows.toLocaleString('en')} delivery records in ${result.pruneSeconds} s (${result.rowsPerSecond.toLocaleString('en')} rows/s); ` +
        `p99 ${idle.latency.p99} ms idle, ${during.latency.p99} ms during the prune (${result.p99Ratio} ×)`,
    );
    saveResult('retention-prune', result);
  } finally {
    await server?.stop();
    await admin(`drop database if exists ${database} with (force)`).catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exitCode = 1;
});
