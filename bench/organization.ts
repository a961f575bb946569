// GET /v1/organization throughput: Patron (compiled, `node dist/src/cli/main.js serve`) against a FLOOR, a bare
// node:http + pg server doing the same per-request work (bench/support/organization-floor.ts). Target: Patron ≥ 0.8 × floor.
//
//   npm run bench:organization            (node --import tsx bench/organization.ts)
//
// Needs a local PostgreSQL (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres): a fresh database
// patron_bench_<random> is created and dropped at the end. The servers run as child processes; the load generator
// (autocannon) runs in this process. Tunables (env): BENCH_CONNECTIONS (50), BENCH_WARMUP_S (10),
// BENCH_DURATION_S (20), BENCH_ROUNDS (3: floor and Patron alternate, the median round counts), BENCH_SKIP_BUILD=1,
// BENCH_ONLY=logging (the access log's price: Patron at LOG_LEVEL=warn and at info serving at once, each offered
// BENCH_LOGGING_RATE requests/s (800) open-loop, compared by CPU per request; see measureLogging).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { freePort } from '../test/support/processes.js';
import { SERVER_NODE_ARGS } from './support/harness.js';
import { openLoop } from './support/open-loop.js';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';

// autocannon ships no types and @types/autocannon is not installed: describe the part used here.
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
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
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  latency: Histogram;
  requests: Histogram;
  throughput: Histogram;
}
type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist/src/cli/main.js');
const FLOOR = join(ROOT, 'bench/support/organization-floor.ts');
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_RATIO = 0.8;
/** `logging`: only Patron at LOG_LEVEL=warn against LOG_LEVEL=info, in turn, to price the access log. */
const ONLY = process.env.BENCH_ONLY;
/** The access log at the default level may cost at most this share of throughput (docs/benchmarks.md). */
const LOGGING_MAX_COST = 0.05;
/** Above this share of the machine used by other processes in any run, requests/s figures are not comparable. */
const CONTENDED_PCT = 10;
const CEILING = 100_000_000; // requests per minute: the rate limit must never answer 429 during a run
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

const log = (line: string) => process.stderr.write(line + '\n');
/** Every server child still alive, including one still starting, so an interrupted run leaves none behind. */
const children = new Set<ChildProcess>();
/** Set by SIGINT/SIGTERM: whatever main() throws afterwards is a consequence of the cleanup, not a failure. */
let interrupted = false;

/** The commit measured, with "+dirty" when src/ has uncommitted changes (null outside a git checkout). */
function measuredCommit(): string | null {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty =
    spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return head.stdout.trim() + (dirty ? '+dirty' : '');
}

interface Measurement {
  name: string;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU time the server process used per request (user + system), in µs; Linux only. */
  serverCpuUsPerRequest: number | null;
  /** CPU time the PostgreSQL backends of the bench database used per request, in µs (null: embedded engine or no /proc). */
  postgresCpuUsPerRequest: number | null;
  /** CPU time this process (the load generator) used per request, in µs. */
  loadCpuUsPerRequest: number;
  /**
   * Share of the machine's CPU (all cores) used by anything other than the server, its PostgreSQL backends and the
   * load generator during the measured run: above a few percent, something else was running and the figures are noisy.
   */
  otherCpuPct: number | null;
}

/**
 * user + system CPU ms of a process, from /proc (null where /proc is unavailable); with `thread`, of that one thread
 * (the process's own id names its main thread, where the event loop runs).
 */
function cpuMs(pid: number | undefined, thread?: number): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** Busy CPU ms of the whole machine (all cores) from /proc/stat, and the number of cores. */
function machineBusyMs(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
  } catch {
    return null;
  }
}

/**
 * Summed CPU ms of the PostgreSQL backends serving `database` (their process title names it). Other databases on
 * the same server (other people's tests) count as "other processes" instead.
 */
function postgresCpuMs(database: string): number | null {
  try {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let title: string;
      try {
        title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (title.startsWith('postgres:') && title.includes(` ${database} `)) total += cpuMs(Number(entry)) ?? 0;
    }
    return total;
  } catch {
    return null;
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** Creates an organization with a huge ceiling and an all-permission key through the compiled CLI. */
function provision(env: NodeJS.ProcessEnv): { organizationId: string; key: string } {
  const org = JSON.parse(
    run(
      process.execPath,
      [CLI, 'org', 'create', '--name', 'Bench', '--api-requests-per-minute', String(CEILING), '--json'],
      env,
    ),
  ) as { id: string };
  const key = JSON.parse(run(process.execPath, [CLI, 'key', 'create', '--org', org.id, '--json'], env)) as {
    key: string;
  };
  return { organizationId: org.id, key: key.key };
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  logFile: string;
  stop(): Promise<number>;
}

async function startServer(label: string, args: string[], env: NodeJS.ProcessEnv, workDir: string): Promise<Server> {
  const port = await freePort();
  const logFile = join(workDir, `${label}.log`);
  // Logs go to a file, as they would to a collector; piping them here would steal CPU from the load generator.
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  children.add(child);
  child.once('exit', () => children.delete(child));
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
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
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

interface Sample {
  status: number;
  body: unknown;
  bytes: number;
  headers: string[];
}

async function sample(baseUrl: string, key: string): Promise<Sample> {
  const response = await fetch(`${baseUrl}/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return {
    status: response.status,
    body: JSON.parse(text),
    bytes: Buffer.byteLength(text),
    headers: [...response.headers.keys()],
  };
}

/** `database`: the PostgreSQL database the server uses, whose backends' CPU is measured (null: embedded engine). */
async function load(name: string, server: Server, key: string, database: string | null): Promise<Measurement> {
  const options = {
    url: `${server.baseUrl}/v1/organization`,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
  };
  log(`  ${name}: warm-up ${WARMUP_S} s (discarded)`);
  await autocannon({ ...options, duration: WARMUP_S });
  log(`  ${name}: measuring ${DURATION_S} s`);
  const cpuBefore = cpuMs(server.child.pid);
  const postgresBefore = database ? postgresCpuMs(database) : null;
  const machineBefore = machineBusyMs();
  const loadBefore = process.cpuUsage();
  const result = await autocannon({ ...options, duration: DURATION_S });
  const loadUsed = process.cpuUsage(loadBefore);
  const machineAfter = machineBusyMs();
  const postgresAfter = database ? postgresCpuMs(database) : null;
  const cpuAfter = cpuMs(server.child.pid);
  const requests = result.requests.total;
  const serverMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  const postgresMs = postgresBefore !== null && postgresAfter !== null ? postgresAfter - postgresBefore : null;
  const loadMs = (loadUsed.user + loadUsed.system) / 1000;
  const machineMs = machineBefore !== null && machineAfter !== null ? machineAfter - machineBefore : null;
  const perRequest = (ms: number | null) => (ms !== null && requests > 0 ? (ms * 1000) / requests : null);
  const measurement: Measurement = {
    name,
    requestsPerSec: requests / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyAvgMs: result.latency.average,
    requests,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    serverCpuUsPerRequest: perRequest(serverMs),
    postgresCpuUsPerRequest: perRequest(postgresMs),
    loadCpuUsPerRequest: perRequest(loadMs) ?? 0,
    otherCpuPct:
      machineMs !== null && serverMs !== null
        ? Math.max(
            0,
            ((machineMs - serverMs - (postgresMs ?? 0) - loadMs) / (result.duration * 1000 * availableParallelism())) *
              100,
          )
        : null,
  };
  log(
    `  ${name}: ${measurement.requestsPerSec.toFixed(0)} req/s, p50 ${measurement.latencyP50Ms} ms, p99 ${measurement.latencyP99Ms} ms, ` +
      `non-2xx ${measurement.non2xx}, errors ${measurement.errors}` +
      (measurement.serverCpuUsPerRequest !== null
        ? `, CPU µs/req: server ${measurement.serverCpuUsPerRequest.toFixed(0)}`
        : '') +
      (measurement.postgresCpuUsPerRequest !== null
        ? ` postgres ${measurement.postgresCpuUsPerRequest.toFixed(0)}`
        : '') +
      ` load ${measurement.loadCpuUsPerRequest.toFixed(0)}` +
      (measurement.otherCpuPct !== null
        ? `; other processes ${measurement.otherCpuPct.toFixed(0)}% of the machine`
        : ''),
  );
  return measurement;
}

/** CPU ms of a process's main thread, where the event loop runs. */
const mainThreadCpuMs = (pid: number | undefined) => cpuMs(pid, pid);

interface LoggingSide {
  level: 'warn' | 'info';
  requests: number;
  errors: number;
  /** Whole process (event loop, libuv threads that carry the writes, GC threads), µs per request. */
  processUs: number;
  /** The event loop's thread alone, µs per request: at saturation it is the one that runs out first. */
  mainThreadUs: number;
  p99Ms: number;
}

/**
 * The price of the access log: Patron at LOG_LEVEL=warn (nothing written per request) and at LOG_LEVEL=info (the
 * default: one line per request), both serving at once, each offered the same fixed rate from one open-loop
 * schedule, so both meet the same machine at the same moment. The figure is the difference in CPU per request
 * between the two processes. Running them in turn at saturation instead (how this was measured before) put the
 * machine's drift between the two: one run of 5 rounds gave info/warn from 0.78 to 1.11, for a 5 % target.
 * Two ratios follow from the CPU: the event loop's (warn's µs over info's, what bounds throughput while the event
 * loop is the busiest thread) and the machine's (Patron and PostgreSQL together, what bounds it when all cores are
 * busy). The target is judged on the lower of the two.
 */
async function measureLogging(
  env: NodeJS.ProcessEnv,
  key: string,
  database: string,
  {
    startPatron,
    stop,
  }: {
    startPatron: (label: string, env: NodeJS.ProcessEnv, level: string) => Promise<Server>;
    stop: (server: Server) => Promise<void>;
  },
): Promise<void> {
  const rate = Number(process.env.BENCH_LOGGING_RATE ?? 800);
  const headers = { authorization: `Bearer ${key}` };
  const targets = [{ name: 'organization', path: '/v1/organization' }];
  const rounds: { warn: LoggingSide; info: LoggingSide; postgresUs: number | null }[] = [];
  const logBytesPerRequest: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}: LOG_LEVEL=warn and LOG_LEVEL=info at once, ${rate} req/s each`);
    const order = round % 2 ? (['warn', 'info'] as const) : (['info', 'warn'] as const);
    const servers = new Map<'warn' | 'info', Server>();
    for (const level of order) servers.set(level, await startPatron(`patron-${level}`, env, level));
    const both = (durationS: number) =>
      Promise.all(
        order.map((level) =>
          openLoop({ baseUrl: servers.get(level)!.baseUrl, targets, headers, rate, durationS, connections: 16 }),
        ),
      );
    log(`  warm-up ${WARMUP_S} s (discarded)`);
    await both(WARMUP_S);
    log(`  measuring ${DURATION_S} s`);
    const pids = order.map((level) => servers.get(level)!.child.pid);
    const processBefore = pids.map((pid) => cpuMs(pid));
    const mainBefore = pids.map(mainThreadCpuMs);
    const postgresBefore = postgresCpuMs(database);
    const results = await both(DURATION_S);
    const postgresAfter = postgresCpuMs(database);
    const processAfter = pids.map((pid) => cpuMs(pid));
    const mainAfter = pids.map(mainThreadCpuMs);
    const sides = order.map((level, i): LoggingSide => {
      const result = results[i]!.targets[0]!;
      const perRequest = (after: number | null, before: number | null) =>
        after !== null && before !== null ? ((after - before) * 1000) / result.requests : NaN;
      return {
        level,
        requests: result.requests,
        errors: result.errors,
        processUs: perRequest(processAfter[i]!, processBefore[i]!),
        mainThreadUs: perRequest(mainAfter[i]!, mainBefore[i]!),
        p99Ms: result.latency.p99,
      };
    });
    const totalRequests = sides.reduce((sum, side) => sum + side.requests, 0);
    const postgresUs =
      postgresBefore !== null && postgresAfter !== null
        ? ((postgresAfter - postgresBefore) * 1000) / totalRequests
        : null;
    const warn = sides.find((side) => side.level === 'warn')!;
    const info = sides.find((side) => side.level === 'info')!;
    const sendLagP99Ms = Math.max(...results.map((result) => result.sendLag.p99));
    rounds.push({ warn, info, postgresUs });
    for (const level of order) await stop(servers.get(level)!);
    // One access-log line as a collector receives it (the same line for every request of the load).
    const lines = readFileSync(servers.get('info')!.logFile, 'utf8').split('\n');
    const line = lines.findLast((text) => text.includes('request completed')) ?? '';
    logBytesPerRequest.push(Buffer.byteLength(line) + 1);
    log(
      `  warn: ${warn.processUs.toFixed(0)} µs/req (event loop ${warn.mainThreadUs.toFixed(0)}), p99 ${warn.p99Ms} ms; ` +
        `info: ${info.processUs.toFixed(0)} µs/req (event loop ${info.mainThreadUs.toFixed(0)}), p99 ${info.p99Ms} ms; ` +
        `postgres ${postgresUs?.toFixed(0) ?? 'n/a'} µs/req; errors ${warn.errors + info.errors}; send lag p99 ${sendLagP99Ms} ms`,
    );
  }
  const extra = rounds.map((r) => r.info.processUs - r.warn.processUs);
  const extraMain = rounds.map((r) => r.info.mainThreadUs - r.warn.mainThreadUs);
  const eventLoopRatios = rounds.map((r) => r.warn.mainThreadUs / r.info.mainThreadUs);
  const machineRatios = rounds.map(
    (r) => (r.warn.processUs + (r.postgresUs ?? 0)) / (r.info.processUs + (r.postgresUs ?? 0)),
  );
  const eventLoopRatio = median(eventLoopRatios);
  const machineRatio = median(machineRatios);
  const ratio = Math.min(eventLoopRatio, machineRatio);
  const met = ratio >= 1 - LOGGING_MAX_COST;
  const errors = rounds.reduce((sum, r) => sum + r.warn.errors + r.info.errors, 0);
  for (const [i, r] of rounds.entries()) {
    console.log(
      `round ${i + 1}: warn ${r.warn.processUs.toFixed(0)} µs/req (event loop ${r.warn.mainThreadUs.toFixed(0)}), ` +
        `info ${r.info.processUs.toFixed(0)} µs/req (event loop ${r.info.mainThreadUs.toFixed(0)}): ` +
        `+${extra[i]!.toFixed(1)} µs (event loop +${extraMain[i]!.toFixed(1)}); ratios event loop ${eventLoopRatios[i]!.toFixed(3)}, ` +
        `machine ${machineRatios[i]!.toFixed(3)}`,
    );
  }
  console.log(
    `access log at LOG_LEVEL=info, ${rate} req/s offered to each level at once, median of ${ROUNDS} rounds: ` +
      `Patron +${median(extra).toFixed(1)} µs CPU/req (event loop +${median(extraMain).toFixed(1)}) for ` +
      `${median(logBytesPerRequest).toFixed(0)} log bytes/request; throughput ratio info/warn ${eventLoopRatio.toFixed(3)} ` +
      `bounded by the event loop, ${machineRatio.toFixed(3)} bounded by the machine; target ≥ ${1 - LOGGING_MAX_COST}: ` +
      `${met ? 'met' : 'NOT met'}${errors ? `; ${errors} failed requests` : ''}`,
  );
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  console.log(
    `RESULT ${JSON.stringify({
      only: 'logging',
      rounds: ROUNDS,
      ratePerLevel: rate,
      extraCpuUsPerRequest: extra.map((n) => Math.round(n * 10) / 10),
      extraEventLoopUsPerRequest: extraMain.map((n) => Math.round(n * 10) / 10),
      warnCpuUsPerRequest: rounds.map((r) => Math.round(r.warn.processUs)),
      postgresCpuUsPerRequest: rounds.map((r) => (r.postgresUs === null ? null : Math.round(r.postgresUs))),
      eventLoopRatio: round3(eventLoopRatio),
      machineRatio: round3(machineRatio),
      logBytesPerRequest: Math.round(median(logBytesPerRequest)),
      target: 1 - LOGGING_MAX_COST,
      meetsTarget: met,
      errors,
    })}`,
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The round whose requests/s is the median (the lower middle one for an even count). */
function medianRound(rounds: Measurement[]): Measurement {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSec - b.requestsPerSec);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('npm run build');
    run('npm', ['run', 'build', '--silent'], process.env);
  }
  const commit = measuredCommit(); // what was built, before anyone commits during the run

  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-'));
  const database = `patron_bench_${randomBytes(6).toString('hex')}`;
  const adminUrl = new URL(ADMIN_URL);
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  log(`created database ${database}; work dir ${workDir}`);

  const servers = new Set<Server>();
  const stopAll = async () => {
    for (const server of servers) await server.stop().catch(() => {});
    servers.clear();
  };
  let cleaning: Promise<void> | null = null;
  const cleanUp = () => (cleaning ??= cleanUpOnce());
  const cleanUpOnce = async () => {
    await stopAll();
    for (const child of children) child.kill('SIGKILL');
    await admin
      .query(`drop database if exists "${database}" with (force)`)
      .catch((error: unknown) => log(`could not drop ${database}: ${String(error)}`));
    await admin.end().catch(() => {});
    await rm(workDir, { recursive: true, force: true });
    log(`dropped database ${database}`);
  };
  // Interrupted (Ctrl-C, a timeout's SIGTERM): still stop the servers, drop the database and remove the work dir.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  // The environment the children inherit, minus anything that would change what is measured.
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, PATRON_SECRET_KEY: SECRET, NODE_ENV: 'production' };
  delete baseEnv.REDIS_URL;
  delete baseEnv.DATABASE_URL;
  delete baseEnv.PATRON_DATA_DIR;
  delete baseEnv.LOG_LEVEL;
  delete baseEnv.NODE_OPTIONS;

  try {
    const pgEnv = { ...baseEnv, DATABASE_URL: databaseUrl.toString(), PATRON_DATA_DIR: join(workDir, 'pg-data') };
    const pgKey = provision(pgEnv);
    const embeddedEnv = { ...baseEnv, PATRON_DATA_DIR: join(workDir, 'embedded') };
    const embeddedKey = provision(embeddedEnv);

    const startPatron = async (label: string, env: NodeJS.ProcessEnv, level: string) => {
      const server = await startServer(
        label,
        [...SERVER_NODE_ARGS, CLI, 'serve'],
        { ...env, LOG_LEVEL: level },
        workDir,
      );
      servers.add(server);
      return server;
    };
    const startFloor = async () => {
      const server = await startServer(
        'floor',
        [...SERVER_NODE_ARGS, '--no-allocation-site-pretenuring', '--import', 'tsx', FLOOR],
        { ...baseEnv, DATABASE_URL: databaseUrl.toString() },
        workDir,
      );
      servers.add(server);
      return server;
    };
    const stop = async (server: Server) => {
      servers.delete(server);
      await server.stop();
    };

    // Same answer from both: same status, same JSON (the floor writes exactly Patron's shape).
    const floorServer = await startFloor();
    const floorSample = await sample(floorServer.baseUrl, pgKey.key);
    await stop(floorServer);
    const patronServer = await startPatron('patron-check', pgEnv, 'warn');
    const patronSample = await sample(patronServer.baseUrl, pgKey.key);
    await stop(patronServer);
    if (
      floorSample.status !== 200 ||
      patronSample.status !== 200 ||
      !isDeepStrictEqual(floorSample.body, patronSample.body)
    ) {
      throw new Error(
        `floor and Patron answer differently:\n${JSON.stringify(floorSample)}\n${JSON.stringify(patronSample)}`,
      );
    }
    log(
      `same body from both (${patronSample.bytes} bytes); Patron response headers: ${patronSample.headers.join(', ')}`,
    );
    log(`floor response headers: ${floorSample.headers.join(', ')}`);

    if (ONLY === 'logging') {
      await measureLogging(pgEnv, pgKey.key, database, { startPatron, stop });
      return;
    }

    const floorRounds: Measurement[] = [];
    const patronRounds: Measurement[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}`);
      const floor = await startFloor();
      floorRounds.push(await load(`floor (round ${round})`, floor, pgKey.key, database));
      await stop(floor);
      const patron = await startPatron('patron-warn', pgEnv, 'warn');
      patronRounds.push(await load(`patron postgres LOG_LEVEL=warn (round ${round})`, patron, pgKey.key, database));
      await stop(patron);
    }

    log('Patron with LOG_LEVEL=info');
    const infoServer = await startPatron('patron-info', pgEnv, 'info');
    const patronInfo = await load('patron postgres LOG_LEVEL=info', infoServer, pgKey.key, database);
    await stop(infoServer);
    const infoLogBytes = statSync(infoServer.logFile).size;

    log('Patron on the embedded engine (PGlite)');
    const embeddedServer = await startPatron('patron-embedded', embeddedEnv, 'warn');
    const embeddedSample = await sample(embeddedServer.baseUrl, embeddedKey.key);
    if (embeddedSample.status !== 200) throw new Error(`embedded answered ${embeddedSample.status}`);
    const patronEmbedded = await load('patron embedded LOG_LEVEL=warn', embeddedServer, embeddedKey.key, null);
    await stop(embeddedServer);

    const floor = medianRound(floorRounds);
    const patron = medianRound(patronRounds);
    const ratio = patron.requestsPerSec / floor.requestsPerSec;
    const ratioInfo = patronInfo.requestsPerSec / floor.requestsPerSec;
    const all = [...floorRounds, ...patronRounds, patronInfo, patronEmbedded];
    const non2xx = all.reduce((sum, m) => sum + m.non2xx + m.errors + m.timeouts, 0);
    // On 2 cores the server, PostgreSQL and the load generator share the CPU, so saturated throughput is about
    // (usable CPU) / (CPU per request of all three): the ratio of those sums predicts the throughput ratio on a
    // quiet machine, and unlike requests/s it barely moves when other processes compete for the cores.
    const totalCpu = (m: Measurement) =>
      m.serverCpuUsPerRequest === null
        ? null
        : m.serverCpuUsPerRequest + (m.postgresCpuUsPerRequest ?? 0) + m.loadCpuUsPerRequest;
    const sumOf = (rounds: Measurement[]) => rounds.map(totalCpu).filter((v): v is number => v !== null);
    const floorCpu = sumOf(floorRounds);
    const patronCpu = sumOf(patronRounds);
    const cpuRatio = floorCpu.length && patronCpu.length ? median(floorCpu) / median(patronCpu) : null;
    const maxOtherCpuPct = Math.max(0, ...all.map((m) => m.otherCpuPct ?? 0));
    const contended = maxOtherCpuPct > CONTENDED_PCT;

    const rows: Measurement[] = [floor, patron, patronInfo, patronEmbedded];
    const header = [
      'run',
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'errors',
      'server µs/req',
      'postgres µs/req',
      'other CPU %',
    ];
    const table = rows.map((m) => [
      m.name,
      m.requestsPerSec.toFixed(0),
      String(m.latencyP50Ms),
      String(m.latencyP99Ms),
      String(m.non2xx),
      String(m.errors + m.timeouts),
      m.serverCpuUsPerRequest === null ? 'n/a' : m.serverCpuUsPerRequest.toFixed(0),
      m.postgresCpuUsPerRequest === null ? 'n/a' : m.postgresCpuUsPerRequest.toFixed(0),
      m.otherCpuPct === null ? 'n/a' : m.otherCpuPct.toFixed(0),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
    console.log(
      `GET /v1/organization, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, ` +
        `${ROUNDS} round(s) floor/Patron (median shown), node ${process.version}`,
    );
    console.log(header.map((h, i) => h.padEnd(widths[i]!)).join('  '));
    for (const row of table)
      console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
    console.log(
      `all rounds req/s: floor ${floorRounds.map((m) => m.requestsPerSec.toFixed(0)).join(', ')}; Patron ${patronRounds.map((m) => m.requestsPerSec.toFixed(0)).join(', ')}`,
    );
    console.log(
      `ratio Patron/floor (LOG_LEVEL=warn): ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
    );
    if (cpuRatio !== null) {
      console.log(
        `CPU per request (server + postgres + load generator, median of rounds): floor ${median(floorCpu).toFixed(0)} µs, ` +
          `Patron ${median(patronCpu).toFixed(0)} µs → CPU-bound ratio ${cpuRatio.toFixed(3)}`,
      );
    }
    if (contended) {
      console.log(
        `WARNING: other processes used up to ${maxOtherCpuPct.toFixed(0)}% of the machine during a measured run ` +
          `(> ${CONTENDED_PCT}%): the requests/s ratio is unreliable; rerun on a quiet machine or read the CPU-bound ratio.`,
      );
    }
    console.log(
      `ratio Patron/floor (LOG_LEVEL=info): ${ratioInfo.toFixed(3)}; ${(infoLogBytes / Math.max(1, patronInfo.requests)).toFixed(0)} log bytes/request`,
    );
    console.log(
      `ratio embedded/floor (for reference, different engine): ${(patronEmbedded.requestsPerSec / floor.requestsPerSec).toFixed(3)}`,
    );
    console.log(`non-2xx + errors over all runs: ${non2xx}`);

    const round3 = (n: number) => Math.round(n * 1000) / 1000;
    const summary = (m: Measurement) => ({
      requestsPerSec: Math.round(m.requestsPerSec),
      latencyP50Ms: m.latencyP50Ms,
      latencyP99Ms: m.latencyP99Ms,
      requests: m.requests,
      non2xx: m.non2xx,
      errors: m.errors + m.timeouts,
      serverCpuUsPerRequest: m.serverCpuUsPerRequest === null ? null : Math.round(m.serverCpuUsPerRequest),
      postgresCpuUsPerRequest: m.postgresCpuUsPerRequest === null ? null : Math.round(m.postgresCpuUsPerRequest),
      loadCpuUsPerRequest: Math.round(m.loadCpuUsPerRequest),
      otherCpuPct: m.otherCpuPct === null ? null : Math.round(m.otherCpuPct),
    });
    const result = {
      commit,
      node: process.version,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_S,
      durationSeconds: DURATION_S,
      rounds: ROUNDS,
      floor: summary(floor),
      patronPostgresWarn: summary(patron),
      patronPostgresInfo: summary(patronInfo),
      patronEmbeddedWarn: summary(patronEmbedded),
      floorRoundsRequestsPerSec: floorRounds.map((m) => Math.round(m.requestsPerSec)),
      patronRoundsRequestsPerSec: patronRounds.map((m) => Math.round(m.requestsPerSec)),
      ratio: round3(ratio),
      ratioInfo: round3(ratioInfo),
      ratioEmbedded: round3(patronEmbedded.requestsPerSec / floor.requestsPerSec),
      medianRatioOfRounds: round3(
        median(patronRounds.map((p, i) => p.requestsPerSec / floorRounds[i]!.requestsPerSec)),
      ),
      target: TARGET_RATIO,
      meetsTarget: ratio >= TARGET_RATIO,
      cpuRatio: cpuRatio === null ? null : round3(cpuRatio),
      maxOtherCpuPct: Math.round(maxOtherCpuPct),
      contended,
      non2xx,
    };
    console.log(`RESULT ${JSON.stringify(result)}`);
    if (non2xx > 0) process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

try {
  await main();
} catch (error) {
  // Interrupted: the signal handler is cleaning up and exits when done.
  if (!interrupted) throw error;
}
