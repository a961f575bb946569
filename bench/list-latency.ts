// Issue 22, items 1–2 and 7: saturation throughput and open-loop latency of five reads, Patron against a floor, in one run.
//
//   npm run bench:list-latency            (node --import tsx bench/list-latency.ts)
//
// Routes (organization "Bench store 01" of the store dataset, PostgreSQL):
//   organization  GET /v1/organization                                       floor: bench/support/organization-floor.ts
//   orders        GET /v1/orders?limit=50&include=customer,items, createdAt ≥ one year ago + tags.name filter
//                                                                            floor: bench/support/orders-list-floor.ts
//   rewards       GET /v1/loyalty-rewards?limit=50&include=customer,membership,rule, customer.email filter (one member)
//   reviews       GET /v1/reviews?limit=50&include=customer,product
//   product       GET /v1/products/{id}?include=importJob,reviewsCount,wishlistsCount,variantsCount,tags,variants
//                                                                            floors: bench/support/list-floor.ts
// For each route: the statements Patron runs for the request are captured in process (harness capture()) and written
// to bench/results/list-floor-<route>.json for the floor, which runs them verbatim; floor and Patron must answer with
// the same JSON. Then, with both servers up: the floor's saturation throughput R (closed loop, autocannon,
// BENCH_CONNECTIONS connections), Patron's the same way (target: Patron ≥ 0.8 × R for organization, ≥ 0.7 × R for
// the lists); then open-loop load at 0.5 × R (bench/support/open-loop.ts, from a fresh process of its own, its warm-up
// running straight into the measured part: requests sent on a fixed schedule whatever the answers do, latency from
// each request's due time, so no coordinated omission), floor then Patron (the order
// turns each round), p50/p99 (target: Patron p99 ≤ 2 × the floor's; judged only where the floor served the rate, its
// open-loop p50 no slower than its p50 at saturation, else "not measured"). CPU per request of the server and of its
// PostgreSQL backends comes from /proc, with the cores other processes used meanwhile (the machine is shared) and
// the cores the hypervisor took (steal). A measured run in which the two together exceeded
// BENCH_MAX_INTERFERENCE_CORES (0.1), or an open-loop run whose sends went out more than BENCH_MAX_SEND_LAG_MS (5)
// late at p99 (the load generator's own delays then count in every latency), or a run during which a fixed unit of
// arithmetic or of memory reads took more than BENCH_MAX_SLOWDOWN (1.5) times its CPU time in the bench's fastest run
// (the machine itself ran slower, bench/support/machine-pace.ts), is run again after BENCH_REST_S (30) s at rest, at most
// BENCH_ATTEMPTS (3) times in all; the least disturbed attempt is kept, and a verdict that still rests on a
// disturbed one says so.
//
// Datasets: bench/datasets/store-dataset.ts, loyalty-dataset.ts and store-reviews.ts (built when missing).
// Patron runs compiled (`node dist/src/cli/main.js serve`, harness startPatron: LOG_LEVEL=warn).
// Tunables (env): BENCH_ONLY (comma-separated route names), BENCH_CONNECTIONS (50), BENCH_WARMUP_S (5, before each
// measured run), BENCH_SATURATION_S (10), BENCH_DURATION_S (15, each open-loop run), BENCH_ROUNDS (1 open-loop round
// per server), BENCH_LOAD_SHARE (0.5), BENCH_QUIET_WAIT_S (0 here: the machine's busy share is read before each run, 3 s, and the run goes ahead; floor and Patron alternate, so both meet the same background),
// BENCH_SKIP_BUILD=1, BENCH_KEEP_LOGS=1 (keep the servers' stdout/stderr, e.g. with BENCH_SERVER_NODE_ARGS=--trace-gc
// and BENCH_SERVER_LOG_LEVEL=info for Patron's access log with each request's response time),
// BENCH_SAMPLES_DIR (write every open-loop request's wall-clock due time and latency there, to find a stall's moment),
// BENCH_GENERATOR_NODE_ARGS (Node options of the open-loop generator's process, e.g. --trace-gc).
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { ensureLoyaltyDataset } from './datasets/loyalty-dataset.js';
import { COMMON_TAG } from './datasets/store-dataset.js';
import { ensureStoreReviews } from './datasets/store-reviews.js';
import { PRODUCT_INCLUDES, mostReviewedProduct } from './support/list-routes.js';
import { startOpenLoopProcess } from './support/open-loop.js';
import { startPaceProbe, type PaceSummary } from './support/machine-pace.js';
import type { FloorRoute, FloorStatement, ListFloorSpec, ParamTemplate } from './support/list-floor.js';
import type { FloorSpec as OrdersFloorSpec } from './support/orders-list-floor.js';
import {
  RESULTS_DIR,
  ROOT,
  autocannon,
  backendsCpuMs,
  backendsDelta,
  build,
  capture,
  cpuMs,
  databaseUrl,
  log,
  machineCpuMs,
  machineStealMs,
  saveResult,
  serverEnv,
  SERVER_NODE_ARGS,
  startPatron,
  startServer,
  table,
  waitForQuiet,
  type Captured,
  type LatencySummary,
  type Server,
} from './support/harness.js';
import { createHash } from 'node:crypto';

process.env.BENCH_QUIET_WAIT_S ??= '0';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const SATURATION_S = Number(process.env.BENCH_SATURATION_S ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const LOAD_SHARE = Number(process.env.BENCH_LOAD_SHARE ?? 0.5);
const SAMPLES_DIR = process.env.BENCH_SAMPLES_DIR;
const TARGET_P99_RATIO = 2;
const MAX_INTERFERENCE_CORES = Number(process.env.BENCH_MAX_INTERFERENCE_CORES ?? 0.1);
/** A clean open-loop run's sends are at most about 2 ms late (p99); a run whose generator fell behind measured it. */
const MAX_SEND_LAG_MS = Number(process.env.BENCH_MAX_SEND_LAG_MS ?? 5);
/**
 * A run in which a fixed unit of CPU work took more than this many times its time in the bench's fastest run so far
 * (bench/support/machine-pace.ts) measured a slowed machine. The memory unit reads up to 1.26 times slower during a
 * saturation run than at rest, from the bench's own load on the caches; the threshold sits above that.
 */
const MAX_SLOWDOWN = Number(process.env.BENCH_MAX_SLOWDOWN ?? 1.5);
const MAX_ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 3);
const REST_S = Number(process.env.BENCH_REST_S ?? 30);
const LIMIT = 50;
/** Node options for the open-loop generator's process (e.g. --trace-gc). */
const GENERATOR_NODE_ARGS = process.env.BENCH_GENERATOR_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

type RouteName = 'organization' | 'orders' | 'rewards' | 'reviews' | 'product';
const ROUTE_NAMES: RouteName[] = ['organization', 'orders', 'rewards', 'reviews', 'product'];
const ONLY = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()) ?? null;

interface Route {
  name: RouteName;
  path: string;
  targetRatio: number;
  /** The floor's script and its environment (a spec file when it needs one). */
  floor: { script: string; env: NodeJS.ProcessEnv };
}

interface OpenLoopMeasurement {
  name: string;
  rate: number;
  requests: number;
  errors: number;
  latency: LatencySummary;
  sendLagP99Ms: number;
  serverCpuUsPerRequest: number | null;
  databaseCpuUsPerRequest: number | null;
  clientCpuUsPerRequest: number | null;
  otherCores: number | null;
  /** Cores the hypervisor took from the machine during the measurement (steal). */
  stealCores: number | null;
  /** A fixed unit of CPU work timed during the run (bench/support/machine-pace.ts), and against the fastest run. */
  pace: PaceSummary | null;
  slowdown: number | null;
  /** How many times it was measured: more than once when steal and other processes had too much (measureUndisturbed). */
  attempts: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One year before the start of this minute, so every request of a run sends the same filter. */
function oneYearAgo(): string {
  const now = new Date();
  now.setUTCSeconds(0, 0);
  return new Date(now.getTime() - 365 * 24 * 3600 * 1000).toISOString().replace('.000Z', 'Z');
}

const query = (base: string, entries: Record<string, string>) =>
  base +
  '?' +
  Object.entries(entries)
    .map(([name, value]) => `${name}=${name === 'include' ? value : encodeURIComponent(value)}`)
    .join('&');

/** Turns captured parameters into a template: the key hash, the organization, the page ids, or a literal. */
function template(parameters: unknown[], known: { hash: string; org: string; ids: string[] }): ParamTemplate[] {
  return parameters.map((value): ParamTemplate => {
    if (value === known.hash) return { t: 'hash' };
    if (value === known.org) return { t: 'org' };
    if (Array.isArray(value) && isDeepStrictEqual(value, known.ids)) return { t: 'ids' };
    const k = typeof value === 'string' ? known.ids.indexOf(value) : -1;
    if (k >= 0) return { t: 'id', k };
    return { t: 'lit', v: value };
  });
}

/** Which include a statement after the list loads, by the tables it reads; undefined: not one the floor knows. */
const INCLUDE_PATTERNS: Record<Exclude<RouteName, 'organization'>, [string, (sql: string) => boolean][]> = {
  orders: [
    ['items', (s) => /order_items/.test(s)],
    ['customer', (s) => /customers/.test(s)],
  ],
  rewards: [
    ['membership', (s) => /loyalty_memberships/.test(s)],
    ['rule', (s) => /loyalty_rules/.test(s)],
    ['customer', (s) => /customers/.test(s)],
  ],
  reviews: [
    ['customer', (s) => /join "?customers/.test(s)],
    ['product', (s) => /join "?products/.test(s)],
  ],
  product: [
    ['importJob', (s) => /import_job_records/.test(s)],
    ['wishlistsCount', (s) => /product_wishlist_counts/.test(s)],
    ['reviewsCount', (s) => /from "?reviews/.test(s) && /count\(\*\)/.test(s)],
    ['variantsCount', (s) => /from "?product_variants/.test(s) && /count\(\*\)/.test(s)],
    ['variants', (s) => /from "?product_variants/.test(s)],
    ['tags', (s) => /product_tags/.test(s)],
  ],
};

interface Captures {
  body: unknown;
  auth: Captured;
  before: Captured[];
  main: Captured;
  includes: Record<string, Captured>;
  all: Captured[];
  ids: string[];
}

/** Runs the request in process once and sorts the statements Patron issued for it. */
async function captureRequest(route: RouteName, path: string, key: string): Promise<Captures> {
  const { status, body, statements: all } = await capture('GET', path, key);
  // The in-process runtime's own work (its server_processes heartbeat) can land in the log: a GET writes nothing.
  const statements = all.filter((s) => !/^\s*(insert|update|delete)\b/i.test(s.sql));
  if (status !== 200) throw new Error(`Patron answered ${status} to GET ${path} (in process): ${JSON.stringify(body)}`);
  const ids: string[] = route === 'product' ? [body.id] : (body.data as { id: string }[]).map((row) => row.id);
  const auth = statements.find((s) => /from "api_keys"/.test(s.sql));
  const mainIndex =
    route === 'product'
      ? statements.findIndex((s) => s !== auth && /from "products"/.test(s.sql))
      : statements.findIndex((s) => /as _sort/.test(s.sql));
  const main = statements[mainIndex];
  const unexpected = (why: string) =>
    new Error(`${why} for GET ${path}; statements:\n${statements.map((s) => s.sql).join('\n---\n')}`);
  if (!auth || !main) throw unexpected('no key lookup or no list/record query');
  const before = statements.slice(0, mainIndex).filter((s) => s !== auth);
  const includes: Record<string, Captured> = {};
  for (const statement of statements.slice(mainIndex + 1)) {
    const name = INCLUDE_PATTERNS[route as Exclude<RouteName, 'organization'>].find(
      ([name, matches]) => !includes[name] && matches(statement.sql),
    )?.[0];
    if (!name) throw unexpected('a statement after the list the floor does not know');
    includes[name] = statement;
  }
  return { body, auth, before, main, includes, all: statements, ids };
}

/** The binding (`b`) of the nextCursor Patron wrote, so the floor writes the same cursor. */
function bindingOf(body: { nextCursor?: string | null }): string | null {
  if (!body.nextCursor) return null;
  return (JSON.parse(Buffer.from(body.nextCursor, 'base64url').toString('utf8')) as { b: string }).b;
}

async function writeSpec(
  route: RouteName,
  path: string,
  key: string,
  org: string,
): Promise<{ file: string; statements: Captured[] }> {
  const captured = await captureRequest(route, path, key);
  const known = { hash: sha256(key), org, ids: captured.ids };
  const toStatement = (s: Captured): FloorStatement => ({ sql: s.sql, params: template(s.parameters, known) });
  const file = join(RESULTS_DIR, `list-floor-${route}.json`);
  let spec: OrdersFloorSpec | ListFloorSpec;
  if (route === 'orders') {
    if (captured.before.length > 1 || !captured.includes.customer || !captured.includes.items)
      throw new Error(`orders: the floor expects at most one statement before the list and two includes`);
    spec = {
      path,
      limit: LIMIT,
      binding: bindingOf(captured.body as { nextCursor: string | null }) ?? '',
      auth: toStatement(captured.auth),
      ...(captured.before[0] ? { plan: toStatement(captured.before[0]) } : {}),
      list: toStatement(captured.main),
      includes: { customer: toStatement(captured.includes.customer), items: toStatement(captured.includes.items) },
    };
  } else {
    spec = {
      route: route as FloorRoute,
      limit: route === 'product' ? null : LIMIT,
      binding: route === 'product' ? null : bindingOf(captured.body as { nextCursor: string | null }),
      auth: toStatement(captured.auth),
      before: captured.before.map(toStatement),
      main: toStatement(captured.main),
      includes: Object.fromEntries(Object.entries(captured.includes).map(([name, s]) => [name, toStatement(s)])),
    };
  }
  writeFileSync(file, JSON.stringify(spec, null, 2) + '\n');
  return { file, statements: captured.all };
}

async function getJson(server: Server, path: string, key: string) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown, bytes: Buffer.byteLength(text) };
}

/**
 * CPU ms so far: the server process, its PostgreSQL backends, the load generator (this process, and the open-loop
 * generator's own process when there is one), the whole machine.
 */
function readings(pid: number | undefined, generatorPid?: number) {
  const client = process.cpuUsage();
  return {
    server: cpuMs(pid),
    backends: backendsCpuMs(),
    client: (client.user + client.system) / 1000 + (generatorPid === undefined ? 0 : (cpuMs(generatorPid) ?? 0)),
    machine: machineCpuMs(),
    steal: machineStealMs(),
    at: performance.now(),
  };
}

/**
 * CPU per request (µs) of the server and of its PostgreSQL backends between two readings, the cores everything else
 * used meanwhile (the whole machine's busy time from /proc/stat less server, backends, this process and steal: other
 * engineers' work, and the idle server of the other side) and the cores the hypervisor took (steal).
 */
function cpuBetween(a: ReturnType<typeof readings>, b: ReturnType<typeof readings>, requests: number) {
  const per = (ms: number | null) => (ms !== null && requests > 0 ? Math.round((ms * 1000) / requests) : null);
  const seconds = (b.at - a.at) / 1000;
  const cores = (ms: number | null) => (ms === null ? null : Math.round((ms / (seconds * 1000)) * 100) / 100);
  const server = a.server !== null && b.server !== null ? b.server - a.server : null;
  const database = backendsDelta(a.backends, b.backends);
  const steal = a.steal !== null && b.steal !== null ? b.steal - a.steal : null;
  const other =
    a.machine !== null && b.machine !== null && server !== null && database !== null
      ? b.machine - a.machine - server - database - (b.client - a.client) - (steal ?? 0)
      : null;
  return {
    serverCpuUsPerRequest: per(server),
    databaseCpuUsPerRequest: per(database),
    clientCpuUsPerRequest: per(b.client - a.client),
    otherCores: cores(other),
    stealCores: cores(steal),
  };
}

/** Cores something other than the measured server, its PostgreSQL backends and the load generator had meanwhile. */
const interference = (m: { stealCores: number | null; otherCores: number | null }) =>
  Math.round(((m.stealCores ?? 0) + Math.max(0, m.otherCores ?? 0)) * 100) / 100;

/** What a measured run reports about the machine around it (an open-loop run also how late its sends went out). */
interface RunConditions {
  stealCores: number | null;
  otherCores: number | null;
  sendLagP99Ms?: number;
  /** The fixed units' CPU time during the run against the fastest seen in this bench (1: as fast as ever). */
  slowdown: number | null;
}

/** The fixed units' median CPU times in the fastest runs so far, µs (bench/support/machine-pace.ts). */
const fastestPace = { cpuUs: Infinity, memoryUs: Infinity };

/** How much slower than in the bench's fastest runs the machine's cores or memory ran during a run. */
function slowdownOf(pace: PaceSummary | null): number | null {
  if (pace === null) return null;
  fastestPace.cpuUs = Math.min(fastestPace.cpuUs, pace.cpuUsP50);
  fastestPace.memoryUs = Math.min(fastestPace.memoryUs, pace.memoryUsP50);
  const slowdown = Math.max(pace.cpuUsP50 / fastestPace.cpuUs, pace.memoryUsP50 / fastestPace.memoryUs);
  return Math.round(slowdown * 100) / 100;
}

/** How a run's log line reports the pace units' medians and the slowdown. */
const paceText = (m: { pace: PaceSummary | null; slowdown: number | null }) =>
  `machine pace ${m.pace ? `${m.pace.cpuUsP50}/${m.pace.memoryUsP50} µs` : 'n/a'} (${m.slowdown ?? 'n/a'}×)`;

/** The machine ran slower than in the bench's fastest run: every process on it, the floor's or Patron's, slowed. */
const slowed = (m: RunConditions) => m.slowdown !== null && m.slowdown > MAX_SLOWDOWN;

/** The load generator sent late: its own delays are then part of every latency it measured. */
const sentLate = (m: RunConditions) => m.sendLagP99Ms !== undefined && m.sendLagP99Ms > MAX_SEND_LAG_MS;

/** Why a run measured more than the server ('' when nothing else was seen): steal and other work, or late sends. */
function disturbance(m: RunConditions): string {
  const reasons: string[] = [];
  if (interference(m) > MAX_INTERFERENCE_CORES)
    reasons.push(`steal and other processes took ${interference(m)} cores (more than ${MAX_INTERFERENCE_CORES})`);
  if (sentLate(m))
    reasons.push(
      `the load generator sent late (p99 ${m.sendLagP99Ms} ms behind its schedule, more than ${MAX_SEND_LAG_MS})`,
    );
  if (slowed(m))
    reasons.push(`the machine ran ${m.slowdown}× slower than in this bench's fastest run (more than ${MAX_SLOWDOWN})`);
  return reasons.join(' and ');
}

/**
 * Orders attempts: a late load generator outweighs any share of steal, and among late attempts the less late is
 * better; then the fewer cores taken the better.
 */
const disturbanceScore = (m: RunConditions) =>
  (sentLate(m) ? 1_000 + (m.sendLagP99Ms ?? 0) : 0) + (slowed(m) ? 100 * (m.slowdown ?? 0) : 0) + interference(m);

/**
 * Runs a measurement again, up to MAX_ATTEMPTS times in all, while something else had more than
 * MAX_INTERFERENCE_CORES of the machine during it (steal, mostly, and other processes), or the load generator sent
 * its requests more than MAX_SEND_LAG_MS late (p99), and keeps the least disturbed attempt. Steal is what made this
 * bench's p99 vary from run to run on a slower machine: on the shared host it comes in waves of a minute or more, the
 * episodes in which every answer waits fall inside them, and a run that met one measured a smaller machine than the
 * run it is compared with. On a faster one, rounds of both servers met slowdowns without steal in which the load
 * generator itself fell 10–17 ms behind and spent 2–3 times its CPU per request (docs/journal/2026-11-29-steal.md,
 * docs/journal/2026-11-29-rows-described-once.md).
 */
async function measureUndisturbed<M extends RunConditions & { name: string; attempts: number }>(
  measure: () => Promise<M>,
): Promise<M> {
  let kept: M | null = null;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const m = await measure();
    if (kept === null || disturbanceScore(m) < disturbanceScore(kept)) kept = m;
    kept.attempts = attempt;
    const reason = disturbance(m);
    if (!reason) break;
    log(
      `  ${m.name}: ${reason}` +
        (attempt < MAX_ATTEMPTS
          ? `; measuring again after ${REST_S} s at rest`
          : `; keeping the least disturbed attempt${disturbance(kept) ? ` (${disturbance(kept)})` : ''}`),
    );
    // Resting lets a wave of steal pass; a measurement straight after would likely meet the same one.
    if (attempt < MAX_ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, REST_S * 1000));
  }
  return kept!;
}

interface SaturationMeasurement {
  name: string;
  requestsPerSec: number;
  requests: number;
  non2xx: number;
  errors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  machineBusyBefore: number | null;
  serverCpuUsPerRequest: number | null;
  databaseCpuUsPerRequest: number | null;
  clientCpuUsPerRequest: number | null;
  otherCores: number | null;
  /** Cores the hypervisor took from the machine during the measurement (steal). */
  stealCores: number | null;
  /** A fixed unit of CPU work timed during the run (bench/support/machine-pace.ts), and against the fastest run. */
  pace: PaceSummary | null;
  slowdown: number | null;
  /** How many times it was measured: more than once when steal and other processes had too much (measureUndisturbed). */
  attempts: number;
}

/** Closed loop (autocannon, CONNECTIONS connections): a discarded warm-up, then SATURATION_S measured. */
async function saturate(name: string, server: Server, path: string, headers: Record<string, string>) {
  const options = { url: `${server.baseUrl}${path}`, connections: CONNECTIONS, headers };
  // The measured run follows the warm-up at once: a server that idled even 3 s answers its first second of load
  // more slowly (docs/journal/2026-11-29-load-generator-garbage-collector.md).
  const busy = await waitForQuiet(name);
  log(`  ${name}: ${WARMUP_S} s of warm-up, then measuring ${SATURATION_S} s`);
  if (WARMUP_S > 0) await autocannon({ ...options, duration: WARMUP_S });
  const probe = startPaceProbe();
  const before = readings(server.child.pid);
  const result = await autocannon({ ...options, duration: SATURATION_S });
  const after = readings(server.child.pid);
  const pace = await probe.stop();
  const requests = result.requests.total;
  const m: SaturationMeasurement = {
    name,
    requestsPerSec: requests / result.duration,
    requests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    machineBusyBefore: busy === null ? null : Math.round(busy * 100) / 100,
    ...cpuBetween(before, after, requests),
    pace,
    slowdown: slowdownOf(pace),
    attempts: 1,
  };
  log(
    `  ${name}: ${m.requestsPerSec.toFixed(0)} req/s, non-2xx ${m.non2xx}, errors ${m.errors}, server CPU ${m.serverCpuUsPerRequest} µs/req, ` +
      `PostgreSQL ${m.databaseCpuUsPerRequest} µs/req, client ${m.clientCpuUsPerRequest} µs/req, other processes ${m.otherCores} cores, steal ${m.stealCores} cores, ${paceText(m)}`,
  );
  return m;
}

/** Open-loop load at `rate` for `durationS` after a discarded warm-up at the same rate, with CPU readings. */
async function openLoopRun(
  name: string,
  server: Server,
  path: string,
  headers: Record<string, string>,
  rate: number,
  first: number,
): Promise<OpenLoopMeasurement> {
  const targets = [{ name, path }];
  await waitForQuiet(name);
  log(`  ${name}: open loop at ${rate.toFixed(0)}/s for ${WARMUP_S} s of warm-up and ${DURATION_S} s measured`);
  const generator = startOpenLoopProcess(
    { baseUrl: server.baseUrl, targets, headers, rate, durationS: DURATION_S, first, warmupS: WARMUP_S },
    GENERATOR_NODE_ARGS,
  );
  await generator.measuring();
  const probe = startPaceProbe();
  const before = readings(server.child.pid, generator.pid);
  await generator.measured();
  const after = readings(server.child.pid, generator.pid);
  const pace = await probe.stop();
  const result = await generator.result();
  if (SAMPLES_DIR) {
    // Each request's due time on the wall clock and its latency, to line stalls up with the server's own log.
    const samples = result.samples.map((sample) => ({
      dueAtEpochMs: Math.round(result.timeOrigin + sample.dueAt),
      ms: Math.round(sample.ms * 100) / 100,
      sendLagMs: Math.round(sample.sendLagMs * 100) / 100,
    }));
    writeFileSync(join(SAMPLES_DIR, `${name.replaceAll(' ', '-')}-${Date.now()}.json`), JSON.stringify(samples));
  }
  const target = result.targets[0]!;
  const m: OpenLoopMeasurement = {
    name,
    rate,
    requests: target.requests,
    errors: target.errors,
    latency: target.latency,
    sendLagP99Ms: result.sendLag.p99,
    ...cpuBetween(before, after, target.requests),
    pace,
    slowdown: slowdownOf(pace),
    attempts: 1,
  };
  log(
    `  ${name}: p50 ${m.latency.p50} ms, p99 ${m.latency.p99} ms, max ${m.latency.max} ms, errors ${m.errors}, ` +
      `send lag p99 ${m.sendLagP99Ms} ms, server CPU ${m.serverCpuUsPerRequest} µs/req, PostgreSQL ${m.databaseCpuUsPerRequest} µs/req, other processes ${m.otherCores} cores, steal ${m.stealCores} cores, ${paceText(m)}`,
  );
  return m;
}

function pooled(rounds: OpenLoopMeasurement[]): OpenLoopMeasurement {
  if (rounds.length === 1) return rounds[0]!;
  // Rounds are summarized separately; the one with the median p99 stands for the server.
  const sorted = [...rounds].sort((a, b) => a.latency.p99 - b.latency.p99);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const loyalty = await ensureLoyaltyDataset();
  const reviews = await ensureStoreReviews();
  const org = loyalty.organizations['1']!;
  const headers = { authorization: `Bearer ${org.key}` };
  build();

  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  const member = (
    await client.query<{ email: string; rewards: string }>(
      `select c.email, (select count(*) from loyalty_rewards r where r.organization_id = m.organization_id and r.loyalty_membership_id = m.id) as rewards
       from loyalty_memberships m join customers c on c.organization_id = m.organization_id and c.id = m.customer_id
       where m.organization_id = $1 order by m.id limit 1`,
      [org.id],
    )
  ).rows[0]!;
  const product = await mostReviewedProduct(client, org.id);
  await client.end();

  const since = oneYearAgo();
  const support = (file: string) => join(ROOT, 'bench/support', file);
  const spec = (route: RouteName) => ({ FLOOR_SPEC: join(RESULTS_DIR, `list-floor-${route}.json`) });
  const routes: Route[] = [
    {
      name: 'organization',
      path: '/v1/organization',
      targetRatio: 0.8,
      floor: { script: support('organization-floor.ts'), env: {} },
    },
    {
      name: 'orders',
      path: query('/v1/orders', {
        limit: String(LIMIT),
        include: 'customer,items',
        filter: JSON.stringify({ createdAt: { $gte: since }, 'tags.name': COMMON_TAG }),
      }),
      targetRatio: 0.7,
      floor: { script: support('orders-list-floor.ts'), env: spec('orders') },
    },
    {
      name: 'rewards',
      path: query('/v1/loyalty-rewards', {
        limit: String(LIMIT),
        include: 'customer,membership,rule',
        filter: JSON.stringify({ 'customer.email': member.email }),
      }),
      targetRatio: 0.7,
      floor: { script: support('list-floor.ts'), env: spec('rewards') },
    },
    {
      name: 'reviews',
      path: query('/v1/reviews', { limit: String(LIMIT), include: 'customer,product' }),
      targetRatio: 0.7,
      floor: { script: support('list-floor.ts'), env: spec('reviews') },
    },
    {
      name: 'product',
      path: query(`/v1/products/${product.id}`, { include: PRODUCT_INCLUDES.join(',') }),
      targetRatio: 0.7,
      floor: { script: support('list-floor.ts'), env: spec('product') },
    },
  ].filter((route) => !ONLY || ONLY.includes(route.name)) as Route[];
  if (!routes.length) throw new Error(`BENCH_ONLY names none of ${ROUTE_NAMES.join(', ')}`);

  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-list-latency-'));
  const servers = new Set<Server>();
  const stopAll = async () => {
    for (const server of servers) await server.stop().catch(() => {});
    servers.clear();
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_S,
    saturationSeconds: SATURATION_S,
    openLoopSeconds: DURATION_S,
    rounds: ROUNDS,
    loadShare: LOAD_SHARE,
    organizationId: org.id,
    member: { email: member.email, rewards: Number(member.rewards) },
    product,
    reviewsInOrganization: reviews.reviews,
  };
  const outcomes: Record<string, unknown>[] = [];
  // The machine's pace at rest, before any server runs: the first reference a run's slowdown is judged against.
  const restProbe = startPaceProbe();
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const restPace = await restProbe.stop();
  slowdownOf(restPace);
  result.paceAtRest = restPace;
  log(
    `machine pace at rest: arithmetic ${restPace?.cpuUsP50 ?? 'n/a'} µs per unit (p90 ${restPace?.cpuUsP90 ?? 'n/a'}), ` +
      `memory ${restPace?.memoryUsP50 ?? 'n/a'} µs (p90 ${restPace?.memoryUsP90 ?? 'n/a'})`,
  );
  try {
    for (const route of routes) {
      log(`\n${route.name}: GET ${route.path}`);
      try {
        let statements: Captured[] = [];
        if (route.name !== 'organization') {
          const written = await writeSpec(route.name, route.path, org.key, org.id);
          statements = written.statements;
          log(`  captured ${statements.length} statements → ${written.file}`);
        }
        const floor = await startServer(
          `floor-${route.name}`,
          // The V8 settings Patron runs with (`npm start`, src/cli/serve.ts): the floor gets the same garbage collector.
          [...SERVER_NODE_ARGS, '--no-allocation-site-pretenuring', '--import', 'tsx', route.floor.script],
          serverEnv({ DATABASE_URL: databaseUrl(), ...route.floor.env }),
          workDir,
        );
        servers.add(floor);
        const patron = await startPatron(`patron-${route.name}`, workDir);
        servers.add(patron);
        const floorSample = await getJson(floor, route.path, org.key);
        const patronSample = await getJson(patron, route.path, org.key);
        if (patronSample.status !== 200 || !isDeepStrictEqual(floorSample, patronSample)) {
          const file = join(RESULTS_DIR, `list-latency-mismatch-${route.name}.json`);
          writeFileSync(file, JSON.stringify({ floor: floorSample, patron: patronSample }, null, 2));
          throw new Error(`floor and Patron answer differently (both in ${file})`);
        }
        const rows = (patronSample.body as { data?: unknown[] }).data?.length ?? 1;
        log(`  same answer from both: ${rows} record(s), ${patronSample.bytes} bytes`);

        const floorSat = await measureUndisturbed(() =>
          saturate(`${route.name} floor saturation`, floor, route.path, headers),
        );
        const patronSat = await measureUndisturbed(() =>
          saturate(`${route.name} Patron saturation`, patron, route.path, headers),
        );
        const ratio = patronSat.requestsPerSec / floorSat.requestsPerSec;
        const rate = Math.max(1, Math.round(floorSat.requestsPerSec * LOAD_SHARE));
        const floorOpen: OpenLoopMeasurement[] = [];
        const patronOpen: OpenLoopMeasurement[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const order: [Server, OpenLoopMeasurement[], string][] = [
            [floor, floorOpen, 'floor'],
            [patron, patronOpen, 'Patron'],
          ];
          if (round % 2 === 1) order.reverse();
          for (const [server, into, label] of order)
            into.push(
              await measureUndisturbed(() =>
                openLoopRun(`${route.name} ${label} open loop`, server, route.path, headers, rate, round),
              ),
            );
        }
        const floorLatency = pooled(floorOpen);
        const patronLatency = pooled(patronOpen);
        const p99Ratio = patronLatency.latency.p99 / floorLatency.latency.p99;
        // The comparison holds only if the floor served the offered rate: its open-loop median no slower than its
        // median at saturation (a machine busier than during the saturation run can push the floor itself behind).
        const floorKeptUp = floorLatency.latency.p50 <= Math.max(floorSat.latencyP50Ms, 1);
        for (const server of [floor, patron]) {
          servers.delete(server);
          await server.stop();
        }
        outcomes.push({
          route: route.name,
          path: route.path,
          rows,
          responseBytes: patronSample.bytes,
          statements: statements.map((s) => ({
            sql: s.sql,
            parameters: s.parameters.map((p) => (Array.isArray(p) ? `[${p.length} values]` : p)),
            durationMs: s.durationMs,
          })),
          floorSaturation: floorSat,
          patronSaturation: patronSat,
          ratio: round3(ratio),
          targetRatio: route.targetRatio,
          meetsRatio: ratio >= route.targetRatio,
          openLoopRate: rate,
          floorOpenLoop: floorLatency,
          patronOpenLoop: patronLatency,
          floorOpenLoopRounds: floorOpen,
          patronOpenLoopRounds: patronOpen,
          p99Ratio: round3(p99Ratio),
          targetP99Ratio: TARGET_P99_RATIO,
          floorKeptUp,
          meetsP99: floorKeptUp ? p99Ratio <= TARGET_P99_RATIO : null,
        });
      } catch (error) {
        log(`  ${route.name}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
        outcomes.push({ route: route.name, path: route.path, error: String(error) });
        await stopAll();
      }
    }
  } finally {
    await stopAll();
    if (process.env.BENCH_KEEP_LOGS) log(`servers' logs kept in ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  }

  const us = (n: number | null) => (n === null ? 'n/a' : n.toFixed(0));
  const done = outcomes.filter((o) => !('error' in o)) as {
    route: string;
    floorSaturation: SaturationMeasurement;
    patronSaturation: SaturationMeasurement;
    ratio: number;
    targetRatio: number;
    meetsRatio: boolean;
    openLoopRate: number;
    floorOpenLoop: OpenLoopMeasurement;
    patronOpenLoop: OpenLoopMeasurement;
    p99Ratio: number;
    meetsP99: boolean | null;
  }[];
  // A verdict from a run still disturbed after every attempt says so.
  const disturbed = (runs: RunConditions[]) =>
    [
      runs.some((run) => interference(run) > MAX_INTERFERENCE_CORES)
        ? `steal and other work over ${MAX_INTERFERENCE_CORES} cores`
        : '',
      runs.some(sentLate) ? `load generator over ${MAX_SEND_LAG_MS} ms late` : '',
      runs.some(slowed) ? `machine over ${MAX_SLOWDOWN}× slower` : '',
    ]
      .filter(Boolean)
      .join(', ');
  console.log(
    `Saturation (closed loop, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${SATURATION_S} s) and open loop at ${LOAD_SHARE} × the floor's rate (${DURATION_S} s, ${ROUNDS} round(s)), node ${process.version}`,
  );
  console.log(
    table(
      [
        'route',
        'floor req/s',
        'Patron req/s',
        'ratio',
        'target',
        '',
        'rate/s',
        'floor p50/p99 ms',
        'Patron p50/p99 ms',
        'p99 ratio',
        '',
        '',
      ],
      done.map((o) => [
        o.route,
        o.floorSaturation.requestsPerSec.toFixed(0),
        o.patronSaturation.requestsPerSec.toFixed(0),
        o.ratio.toFixed(3),
        `≥ ${o.targetRatio}`,
        o.meetsRatio ? 'met' : 'NOT met',
        String(o.openLoopRate),
        `${o.floorOpenLoop.latency.p50}/${o.floorOpenLoop.latency.p99}`,
        `${o.patronOpenLoop.latency.p50}/${o.patronOpenLoop.latency.p99}`,
        o.p99Ratio.toFixed(2),
        o.meetsP99 === null ? 'not measured (the floor fell behind)' : o.meetsP99 ? 'met' : 'NOT met',
        disturbed([o.floorOpenLoop, o.patronOpenLoop, o.floorSaturation, o.patronSaturation]),
      ]),
    ),
  );
  console.log(
    'CPU per request at saturation (µs; server process, its PostgreSQL backends), other processes and steal (cores)',
  );
  console.log(
    table(
      [
        'route',
        'floor server',
        'floor PG',
        'Patron server',
        'Patron PG',
        'other cores (floor/Patron)',
        'steal cores: saturation, open loop (floor/Patron)',
        'open loop: floor server/PG',
        'Patron server/PG',
      ],
      done.map((o) => [
        o.route,
        us(o.floorSaturation.serverCpuUsPerRequest),
        us(o.floorSaturation.databaseCpuUsPerRequest),
        us(o.patronSaturation.serverCpuUsPerRequest),
        us(o.patronSaturation.databaseCpuUsPerRequest),
        `${o.floorSaturation.otherCores}/${o.patronSaturation.otherCores}`,
        `${o.floorSaturation.stealCores}/${o.patronSaturation.stealCores}, ${o.floorOpenLoop.stealCores}/${o.patronOpenLoop.stealCores}`,
        `${us(o.floorOpenLoop.serverCpuUsPerRequest)}/${us(o.floorOpenLoop.databaseCpuUsPerRequest)}`,
        `${us(o.patronOpenLoop.serverCpuUsPerRequest)}/${us(o.patronOpenLoop.databaseCpuUsPerRequest)}`,
      ]),
    ),
  );
  for (const o of outcomes.filter((o) => 'error' in o)) console.log(`${String(o.route)}: FAILED: ${String(o.error)}`);
  saveResult('list-latency', { ...result, routes: outcomes });
}

await main();
