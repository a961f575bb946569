// Where Patron's own CPU goes on one read: a V8 CPU profile of the compiled server under closed-loop load, summarized
// by package (or src/ file) and by function, self time. The "CPU profile before and after" of docs/benchmarks.md.
//
//   npm run bench:profile -- rewards              (node --import tsx bench/profile.ts <route>)
//   npm run bench:profile -- rewards --floor      the same load on the route's floor (bench/support/*-floor.ts), whose
//                                                 spec bench/list-latency.ts writes: where the floor spends its CPU
//
// Routes, as bench/list-latency.ts sends them (organization "Bench store 01" of the store dataset, PostgreSQL):
// organization, orders, rewards, reviews, product. Tunables (env): BENCH_CONNECTIONS (8: enough to keep the server
// busy without queueing in it), BENCH_DURATION_S (20), BENCH_WARMUP_S (5, not profiled: the server is started with
// the profiler on, so the warm-up's samples are dropped by starting the measured window from the warm-up's end),
// BENCH_RATE (a fixed open-loop rate instead of closed-loop connections: requests arrive one at a time, as at a
// moderate load, where each costs more than at saturation), BENCH_TOP (25 functions), BENCH_LOG_LEVEL (Patron's,
// warn; `info` profiles the access log), BENCH_SKIP_BUILD=1. The raw profile is kept in
// bench/results/profile-<route>.cpuprofile (open it in Chrome's DevTools, Performance panel) and the summary in
// bench/results/profile-<route>.json.
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureLoyaltyDataset } from './datasets/loyalty-dataset.js';
import { COMMON_TAG } from './datasets/store-dataset.js';
import { ensureStoreReviews } from './datasets/store-reviews.js';
import {
  RESULTS_DIR,
  ROOT,
  autocannon,
  build,
  cpuMs,
  databaseUrl,
  log,
  saveResult,
  serverEnv,
  startPatron,
  startServer,
  table,
  type Server,
} from './support/harness.js';
import { openLoop } from './support/open-loop.js';

const ROUTES = ['organization', 'orders', 'rewards', 'reviews', 'product'] as const;
type RouteName = (typeof ROUTES)[number];
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
/** Requests per second on a fixed schedule instead of closed-loop connections (null: closed loop). */
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
const TOP = Number(process.env.BENCH_TOP ?? 25);
// Patron's LOG_LEVEL (warn, as every bench runs it; info to see what the access log costs). Not the floor's.
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const RESULT_SUFFIX = LOG_LEVEL === 'warn' ? '' : `-${LOG_LEVEL}`;
const PRODUCT_INCLUDES = ['importJob', 'reviewsCount', 'wishlistsCount', 'variantsCount', 'tags', 'variants'];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const query = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params).toString()}`;

async function routePath(route: RouteName, organizationId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    switch (route) {
      case 'organization':
        return '/v1/organization';
      case 'orders': {
        const since = new Date(Date.now() - 365 * 86_400_000).toISOString();
        return query('/v1/orders', {
          limit: '50',
          include: 'customer,items',
          filter: JSON.stringify({ createdAt: { $gte: since }, 'tags.name': COMMON_TAG }),
        });
      }
      case 'rewards': {
        const { rows } = await client.query<{ email: string }>(
          `select c.email from loyalty_memberships m
           join customers c on c.organization_id = m.organization_id and c.id = m.customer_id
           where m.organization_id = $1 order by m.id limit 1`,
          [organizationId],
        );
        return query('/v1/loyalty-rewards', {
          limit: '50',
          include: 'customer,membership,rule',
          filter: JSON.stringify({ 'customer.email': rows[0]!.email }),
        });
      }
      case 'reviews':
        return query('/v1/reviews', { limit: '50', include: 'customer,product' });
      case 'product': {
        const { rows } = await client.query<{ id: string }>(
          `select product_id as id from reviews where organization_id = $1 and published
           group by product_id order by count(*) desc, product_id limit 1`,
          [organizationId],
        );
        return query(`/v1/products/${rows[0]!.id}`, { include: PRODUCT_INCLUDES.join(',') });
      }
    }
  } finally {
    await client.end();
  }
}

/** Where a frame's code lives: a package under node_modules, a file of Patron, Node's internals, or V8's own. */
function place(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  const own = /\/dist\/(src\/.+)$/.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return url;
  return url;
}

function summarize(profile: CpuProfile, fromUs: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let time = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    if (time < fromUs) continue;
    const delta = profile.timeDeltas[i]!;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + delta);
    total += delta;
  }
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = place(url, functionName);
    byPlace.set(where, (byPlace.get(where) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const idle = byPlace.get('(idle)') ?? 0;
  const busy = total - idle;
  const ranked = (map: Map<string, number>) =>
    [...map]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: Math.round((us / busy) * 1000) / 10 }));
  return {
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    places: ranked(byPlace),
    functions: ranked(byFunction),
  };
}

async function main(): Promise<void> {
  const route = process.argv[2] as RouteName | undefined;
  const floor = process.argv.includes('--floor');
  if (!route || !ROUTES.includes(route)) {
    console.error(`usage: npm run bench:profile -- <${ROUTES.join('|')}> [--floor]`);
    process.exit(2);
  }
  const loyalty = await ensureLoyaltyDataset();
  await ensureStoreReviews();
  const org = loyalty.organizations['1']!;
  build();
  const path = await routePath(route, org.id);
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-profile-'));
  const profileDir = join(workDir, 'profile');
  const profileArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  let server: Server;
  if (floor) {
    const script =
      route === 'organization'
        ? 'organization-floor.ts'
        : route === 'orders'
          ? 'orders-list-floor.ts'
          : 'list-floor.ts';
    const spec = join(RESULTS_DIR, `list-floor-${route}.json`);
    if (route !== 'organization' && !existsSync(spec))
      throw new Error(`no ${spec}: run BENCH_ONLY=${route} npm run bench:list-latency first`);
    server = await startServer(
      'floor',
      [...profileArgs, '--import', 'tsx', join(ROOT, 'bench/support', script)],
      serverEnv({ DATABASE_URL: databaseUrl(), FLOOR_SPEC: spec }),
      workDir,
    );
  } else {
    process.env.BENCH_SERVER_NODE_ARGS = profileArgs.join(' ');
    server = await startPatron('patron', workDir, { LOG_LEVEL });
  }
  try {
    const headers = { authorization: `Bearer ${org.key}` };
    const probe = await fetch(server.baseUrl + path, { headers });
    if (probe.status !== 200) throw new Error(`GET ${path} answered ${probe.status}: ${await probe.text()}`);
    // Closed loop at CONNECTIONS, or a fixed open-loop rate (BENCH_RATE), where requests arrive one at a time.
    const drive = async (durationS: number) => {
      if (RATE === null) {
        const result = await autocannon({
          url: server.baseUrl + path,
          connections: CONNECTIONS,
          duration: durationS,
          headers,
        });
        return { requests: result.requests.total, requestsPerSec: result.requests.average };
      }
      const result = await openLoop({
        baseUrl: server.baseUrl,
        targets: [{ name: route, path }],
        headers,
        rate: RATE,
        durationS,
      });
      const requests = result.targets[0]!.requests;
      return { requests, requestsPerSec: requests / result.seconds };
    };
    const load = RATE === null ? `${CONNECTIONS} connections` : `${RATE} requests/s open-loop`;
    log(`warming up ${WARMUP_S} s: GET ${path}`);
    await drive(WARMUP_S);
    const fromMs = performance.timeOrigin + performance.now();
    const cpuBefore = cpuMs(server.child.pid);
    log(`profiling ${DURATION_S} s at ${load}`);
    const result = await drive(DURATION_S);
    const cpuAfter = cpuMs(server.child.pid);
    await server.stop();
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server wrote no profile');
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
    // Profile times are microseconds on the monotonic clock the server started with; align by the profile's end.
    const endWallMs = Date.now();
    const fromUs = profile.endTime - (endWallMs - fromMs) * 1000;
    const summary = summarize(profile, fromUs);
    const requests = result.requests;
    const cpuPerRequestUs = cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / requests : null;
    renameSync(
      join(profileDir, file),
      join(RESULTS_DIR, `profile-${route}${floor ? '-floor' : RESULT_SUFFIX}.cpuprofile`),
    );
    console.log(
      `\nGET ${path}\n${requests} requests, ${result.requestsPerSec.toFixed(0)} req/s (${load}), server CPU ${cpuPerRequestUs?.toFixed(0) ?? '?'} µs per request; profiled busy ${summary.busyMs} ms, idle ${summary.idleMs} ms\n`,
    );
    console.log(
      table(
        ['self ms', '%', 'package or file'],
        summary.places.slice(0, 15).map((p) => [String(p.ms), String(p.share), p.name]),
      ),
    );
    console.log('');
    console.log(
      table(
        ['self ms', '%', 'function'],
        summary.functions.slice(0, TOP).map((f) => [String(f.ms), String(f.share), f.name]),
      ),
    );
    saveResult(`profile-${route}${floor ? '-floor' : RESULT_SUFFIX}`, {
      date: new Date().toISOString(),
      route,
      server: floor ? 'floor' : 'patron',
      logLevel: floor ? null : LOG_LEVEL,
      path,
      connections: RATE === null ? CONNECTIONS : null,
      rate: RATE,
      durationS: DURATION_S,
      requests,
      requestsPerSec: result.requestsPerSec,
      serverCpuUsPerRequest: cpuPerRequestUs,
      busyMs: summary.busyMs,
      busyUsPerRequest: Math.round((summary.busyMs * 1000) / requests),
      places: summary.places.slice(0, 30),
      functions: summary.functions.slice(0, 60),
    });
  } finally {
    await server.stop().catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
