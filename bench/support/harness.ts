// The harness the benchmarks share: where things are (the repository, the CLI, bench/results), the benchmark
// database on the local PostgreSQL (BENCH_ADMIN_URL), servers as child processes, autocannon in this process,
// CPU readings from /proc, sequential latency samples, result tables and RESULT lines.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../test/support/processes.js';
import { summarize, type LatencySummary } from './latency-summary.js';

export { summarize, type LatencySummary };

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLI = join(ROOT, 'dist/src/cli/main.js');
export const RESULTS_DIR = join(ROOT, 'bench/results');
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATABASE = 'patron_bench_store';
export const SECRET = 'bench-secret-key-bench-secret-key-0123456789';
/** The Node flags of `npm start` (package.json): benches run the server as operators are told to. */
export const SERVER_NODE_ARGS = ['--min-semi-space-size=16', '--initial-old-space-size=128', '--no-memory-reducer'];

export const log = (line: string) => process.stderr.write(line + '\n');

export function databaseUrl(database = DATABASE): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

// autocannon ships no types and @types/autocannon is not installed: describe the part used here.
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
export interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: AutocannonRequest[];
  timeout?: number;
}
interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
}
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: Histogram;
  requests: Histogram;
}
const require = createRequire(import.meta.url);
export const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

/** CPU ms a process has used, user and system apart, from /proc/<pid>/stat (null where /proc is unavailable). */
export function cpuSplitMs(pid: number | undefined): { user: number; system: number } | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 }; // USER_HZ 100
  } catch {
    return null;
  }
}

/** user + system CPU ms of a process, from /proc (null where /proc is unavailable). */
export function cpuMs(pid: number | undefined): number | null {
  const split = cpuSplitMs(pid);
  return split && split.user + split.system;
}

/**
 * The whole machine's CPU time since boot, in ms over all cores, from the first line of /proc/stat: user, nice,
 * system, idle, iowait, irq, softirq, steal (null where unavailable).
 */
function machineCpuFieldsMs(): number[] | null {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return ticks.length === 8 && ticks.every(Number.isFinite) ? ticks.map((tick) => tick * 10) : null; // USER_HZ 100
  } catch {
    return null;
  }
}

const IDLE = 3;
const IOWAIT = 4;
const STEAL = 7;

/**
 * Busy CPU ms of the whole machine (all cores) since boot, steal included (null where unavailable). Unlike a sum
 * over /proc/<pid>, it keeps the CPU of processes that ended meanwhile (test runs start and end many).
 */
export function machineCpuMs(): number | null {
  const fields = machineCpuFieldsMs();
  return fields && fields.reduce((a, b) => a + b, 0) - fields[IDLE]! - fields[IOWAIT]!;
}

/**
 * CPU ms the hypervisor took from this virtual machine since boot (all cores): the steal field of /proc/stat, time a
 * virtual core wanted to run and the host ran something else (null where unavailable). On a shared host it comes in
 * waves (measured: none for minutes, then a fifth to two fifths of the two cores for a minute or more), and while it
 * lasts every server on the machine has less CPU than the same run had a minute earlier.
 */
export function machineStealMs(): number | null {
  return machineCpuFieldsMs()?.[STEAL] ?? null;
}

/** Busy CPU fraction of the whole machine over `ms`, steal included (null where unavailable). */
export async function machineBusy(ms = 2_000): Promise<number | null> {
  const a = machineCpuFieldsMs();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineCpuFieldsMs();
  if (!a || !b) return null;
  const total = (fields: number[]) => fields.reduce((x, y) => x + y, 0);
  const idle = (fields: number[]) => fields[IDLE]! + fields[IOWAIT]!;
  return total(b) === total(a) ? 0 : 1 - (idle(b) - idle(a)) / (total(b) - total(a));
}

/**
 * The machine is shared (2 cores, other engineers run tests and benchmarks): before a measured run, wait until it
 * is nearly idle (busy < BENCH_QUIET_BUSY, default 0.15, over 3 s), at most BENCH_QUIET_WAIT_S (default 600) s.
 */
export async function waitForQuiet(label: string): Promise<number | null> {
  const threshold = Number(process.env.BENCH_QUIET_BUSY ?? 0.15);
  const deadline = Date.now() + Number(process.env.BENCH_QUIET_WAIT_S ?? 600) * 1000;
  let busy = await machineBusy(3_000);
  let waited = false;
  while (busy !== null && busy > threshold && Date.now() < deadline) {
    if (!waited)
      log(`  ${label}: machine ${Math.round(busy * 100)} % busy with other work; waiting for it to calm down`);
    waited = true;
    await new Promise((r) => setTimeout(r, 10_000));
    busy = await machineBusy(3_000);
  }
  if (waited) log(`  ${label}: machine ${busy === null ? '?' : Math.round(busy * 100)} % busy, going ahead`);
  return busy;
}

/** CPU ms of the processes `counts` picks by pid and command line (null where /proc is unavailable). */
function processesCpuMs(counts: (pid: number, cmdline: string) => boolean): number | null {
  try {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (counts(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) total += cpuMs(Number(entry)) ?? 0;
      } catch {
        // the process ended meanwhile
      }
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU ms used by every process except this one, the given server and the PostgreSQL backends serving
 * `database` (patron_bench_store unless given): the other work on the machine while a run measures.
 */
export function backgroundCpuMs(exclude: (number | undefined)[], database = DATABASE): number | null {
  const skip = new Set([process.pid, ...exclude.filter((pid): pid is number => pid !== undefined)]);
  return processesCpuMs((pid, cmdline) => !skip.has(pid) && !cmdline.includes(database));
}

/** CPU ms of the PostgreSQL backends serving `database` (patron_bench_store unless given; null where /proc is unavailable). */
export const databaseCpuMs = (database = DATABASE): number | null =>
  processesCpuMs((_pid, cmdline) => cmdline.includes(database));

/** CPU ms per PostgreSQL backend serving `database` (patron_bench_store unless given), by pid (null where /proc is unavailable). */
export function backendsCpuMs(database = DATABASE): Map<number, number> | null {
  try {
    const backends = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(database))
          backends.set(Number(entry), cpuMs(Number(entry)) ?? 0);
      } catch {
        // the process ended meanwhile
      }
    }
    return backends;
  } catch {
    return null;
  }
}

/**
 * CPU ms the backends used between two readings: per pid, so a backend that ended meanwhile (a pool closing an idle
 * connection) cannot make the sum go down; it is missed from its last reading on (an undercount).
 */
export function backendsDelta(a: Map<number, number> | null, b: Map<number, number> | null): number | null {
  if (!a || !b) return null;
  let total = 0;
  for (const [pid, ms] of b) total += ms - (a.get(pid) ?? 0);
  return total;
}

export interface Captured {
  sql: string;
  parameters: unknown[];
  durationMs: number;
}

/**
 * Runs one request through Patron's real routes (createRuntime + app.inject, on the bench database,
 * patron_bench_store unless `database` names another) and records every statement it sends, verbatim, with its
 * parameters and duration (Kysely query log). It runs in a child process (bench/support/capture-process.ts): loading
 * Patron leaves about 50 MB of live heap behind, and in the bench's own process that heap's collections took a core
 * from the servers during measured runs (docs/journal/2026-11-29-garbage-collection-episodes.md).
 */
export async function capture(
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
  database = DATABASE,
): Promise<{ status: number; body: any; statements: Captured[]; ms: number }> {
  const script = join(ROOT, 'bench/support/capture-process.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify({ method, path, key, body, database })],
    {
      cwd: ROOT,
      // fd 3: the result, as one line of JSON; its stdout and stderr are the bench's.
      stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`capturing ${method} ${path} failed: its process exited (${code})`);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Awaited<ReturnType<typeof capture>>;
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

export function build(): void {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  log('npm run build');
  run('npm', ['run', 'build', '--silent']);
}

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  logFile: string;
  stop(): Promise<number>;
}

/** The environment a server child gets: nothing from this shell that would change what is measured. */
export function serverEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATRON_SECRET_KEY: SECRET, NODE_ENV: 'production' };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'PATRON_DATA_DIR', 'LOG_LEVEL', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...extra };
}

export async function startServer(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  workDir: string,
): Promise<Server> {
  const port = await freePort();
  const logFile = join(workDir, `${label}.log`);
  const fd = openSync(logFile, 'w'); // logs go to a file, as they would to a collector
  // The wall clock at the spawn, so that --trace-gc's times (from the process's start) line up with the samples.
  writeSync(fd, `# ${label} spawned at ${Date.now()} ms since the epoch\n`);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const baseUrl = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  const exit = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      resolve(exited);
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`${label} exited (${exited}) before ready:\n${readFileSync(logFile, 'utf8')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${label} not ready after 60 s:\n${readFileSync(logFile, 'utf8')}`);
    }
    if (
      await fetch(`${baseUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    baseUrl,
    logFile,
    stop: async () => {
      if (exited === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * Starts the compiled Patron against the bench database. BENCH_SERVER_NODE_ARGS (space-separated) go to the
 * server's Node only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile what a bench drives;
 * BENCH_SERVER_LOG_LEVEL (default warn) sets its LOG_LEVEL, info for the access log of every request;
 * BENCH_SERVE_ARGS go to `patron serve` (e.g. `--no-dispatch --no-jobs`, to measure without the background work).
 */
export async function startPatron(label: string, workDir: string, extra: NodeJS.ProcessEnv = {}): Promise<Server> {
  // What `npm start` runs Node with (docs/api.md#running-the-server), then any BENCH_SERVER_NODE_ARGS.
  const nodeArgs = [...SERVER_NODE_ARGS, ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  const env = serverEnv({
    DATABASE_URL: databaseUrl(),
    LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
    PATRON_DATA_DIR: join(workDir, 'data'),
    ...extra,
  });
  const serveArgs = process.env.BENCH_SERVE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await startServer(label, [...nodeArgs, CLI, 'serve', ...serveArgs], env, workDir);
  if (env.DATABASE_URL) await scheduledJobsSettled(label, env.DATABASE_URL);
  return server;
}

/**
 * Waits until the jobs a server's start queued have run. `patron serve` runs the job runner in the same process, and
 * the first server of the day against a database runs that day's overnight loyalty run, retention prune and summary
 * refresh for every organization at once (about 18 s of CPU for the 50 organizations of the bench store): measured,
 * it would count as the route's cost. The runner ticks just after the server listens, so the wait looks from 1 s
 * after ready until two looks in a row find nothing queued or running that is due.
 */
export async function scheduledJobsSettled(label: string, url: string, timeoutMs = 300_000): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (let quietLooks = 0; quietLooks < 2;) {
      const { rows } = await client.query<{ due: string }>(
        `select count(*) as due from jobs where status in ('queued', 'running') and run_after <= now()`,
      );
      quietLooks = Number(rows[0]?.due ?? 0) === 0 ? quietLooks + 1 : 0;
      if (Date.now() - started > timeoutMs)
        throw new Error(`${label}: its scheduled jobs still run after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const waitedS = (Date.now() - started) / 1000;
    if (waitedS > 3) log(`${label}: waited ${waitedS.toFixed(1)} s for the scheduled jobs its start ran`);
  } finally {
    await client.end();
  }
}

export interface LoadMeasurement {
  name: string;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP90Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  latencyMaxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  serverCpuUsPerRequest: number | null;
  /** CPU of the PostgreSQL backends serving the bench database, and of this process (autocannon), per request. */
  databaseCpuUsPerRequest: number | null;
  clientCpuUsPerRequest: number | null;
  /** Busy fraction of the machine just before the run (other engineers' work). */
  machineBusyBefore: number | null;
  /** Cores other processes used on average during the run (not Patron/floor, not its PostgreSQL backends, not this process). */
  backgroundCores: number | null;
}

/** autocannon against one server: a discarded warm-up, then the measured run. */
export async function load(
  name: string,
  server: Server,
  options: Omit<AutocannonOptions, 'url' | 'duration' | 'connections'> & { path: string; connections: number },
  warmupS: number,
  durationS: number,
): Promise<LoadMeasurement> {
  const { path, ...rest } = options;
  const base = { ...rest, url: `${server.baseUrl}${path}` };
  if (warmupS > 0) {
    log(`  ${name}: warm-up ${warmupS} s (discarded)`);
    await autocannon({ ...base, duration: warmupS });
  }
  const quietBusy = await waitForQuiet(name);
  log(`  ${name}: measuring ${durationS} s`);
  const cpuBefore = cpuMs(server.child.pid);
  const bgBefore = backgroundCpuMs([server.child.pid]);
  const dbBefore = databaseCpuMs();
  const clientBefore = process.cpuUsage();
  const result = await autocannon({ ...base, duration: durationS });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = cpuMs(server.child.pid);
  const bgAfter = backgroundCpuMs([server.child.pid]);
  const dbAfter = databaseCpuMs();
  const requests = result.requests.total;
  const m: LoadMeasurement = {
    name,
    requestsPerSec: requests / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP90Ms: result.latency.p90,
    latencyP99Ms: result.latency.p99,
    latencyAvgMs: result.latency.average,
    latencyMaxMs: result.latency.max,
    requests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuUsPerRequest:
      cpuBefore !== null && cpuAfter !== null && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : null,
    databaseCpuUsPerRequest:
      dbBefore !== null && dbAfter !== null && requests > 0 ? ((dbAfter - dbBefore) * 1000) / requests : null,
    clientCpuUsPerRequest: requests > 0 ? (client.user + client.system) / requests : null,
    machineBusyBefore: quietBusy === null ? null : Math.round(quietBusy * 100) / 100,
    backgroundCores:
      bgBefore !== null && bgAfter !== null
        ? Math.round(((bgAfter - bgBefore) / (result.duration * 1000)) * 100) / 100
        : null,
  };
  log(
    `  ${name}: ${m.requestsPerSec.toFixed(0)} req/s, p50 ${m.latencyP50Ms} ms, p99 ${m.latencyP99Ms} ms, non-2xx ${m.non2xx}, errors ${m.errors}` +
      (m.serverCpuUsPerRequest !== null ? `, server CPU ${m.serverCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.databaseCpuUsPerRequest !== null ? `, PostgreSQL ${m.databaseCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.clientCpuUsPerRequest !== null ? `, client ${m.clientCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.backgroundCores !== null ? `, background ${m.backgroundCores} cores` : ''),
  );
  return m;
}

/** One request at a time, `count` times (after `warmup` discarded ones): wall-clock ms per request, body read. */
export async function sequential(url: string, init: RequestInit, count: number, warmup = 20): Promise<LatencySummary> {
  await waitForQuiet('sequential sample');
  const samples: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const t0 = performance.now();
    const response = await fetch(url, init);
    await response.arrayBuffer();
    const ms = performance.now() - t0;
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}`);
    if (i >= warmup) samples.push(ms);
  }
  return summarize(samples);
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Writes a result JSON next to the keys (gitignored) and prints it on one RESULT line. */
export function saveResult(name: string, result: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify(result, null, 2) + '\n');
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** A process's resident memory (kB), read from /proc. */
export function rssKb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Samples the server's RSS every 50 ms while `work` runs: its peak growth over the value before, in MB. */
export async function withRss<T>(
  server: Server,
  work: () => Promise<T>,
): Promise<{ value: T; rssGrowthMb: number | null }> {
  const before = rssKb(server.child.pid);
  let peak = before ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssKb(server.child.pid) ?? 0);
  }, 50);
  try {
    const value = await work();
    peak = Math.max(peak, rssKb(server.child.pid) ?? 0);
    return { value, rssGrowthMb: before === null ? null : (peak - before) / 1024 };
  } finally {
    clearInterval(timer);
  }
}
