// The embedded engine (PGlite, the default of `npm start`): requests/s at saturation of GET /v1/organization and of the
// orders page (GET /v1/orders?limit=50&include=customer,items with a createdAt + tags.name filter), served by the
// compiled `patron serve` on a PGlite data directory. With BENCH_BASE_DIR (a checkout of an earlier commit, built with
// `npx tsc -p tsconfig.build.json`) the same data is served by both builds in alternating rounds, and the ratio per
// route is printed. Target (docs/benchmarks.md): ≥ 2 × the base's requests/s on each route.
//
//   npm run bench:embedded                                  (node --import tsx bench/embedded.ts)
//   BENCH_BASE_DIR=/tmp/pglite-base npm run bench:embedded  (compare with another build in the same run)
//
// Data: `patron seed --demo` (a site, customers, products), its organization's ceiling raised with `org update`, then
// BENCH_ORDERS (2,000; 0 for the organization route alone on the demo data) orders imported through POST /v1/orders/import, created over the last 300 days, two items each,
// every other one tagged `repeat-buyer`. The data directory is made once and copied for each server.
// Tunables (env): BENCH_CONNECTIONS (20), BENCH_WARMUP_S (5), BENCH_DURATION_S (15), BENCH_ROUNDS (2),
// BENCH_SKIP_BUILD=1. No PostgreSQL or Redis needed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  autocannon,
  CLI,
  cpuMs,
  log,
  machineCpuMs,
  ROOT,
  run,
  saveResult,
  serverEnv,
  startServer,
  table,
  type Server,
} from './support/harness.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 2_000);
const BASE_DIR = process.env.BENCH_BASE_DIR;
const CEILING = 100_000_000; // requests per minute: never 429 during a run
const TAG = 'repeat-buyer';
const TARGET = 2;

const CUSTOMERS = ['ada', 'grace', 'alan', 'katherine', 'margaret', 'edsger', 'barbara'].map((n) => `${n}@example.com`);
const VARIANTS = [
  ['linen-shirt', 'linen-shirt-m'],
  ['linen-shirt', 'linen-shirt-l'],
  ['merino-scarf', 'merino-scarf-grey'],
];

/** One year before the start of this minute, so every request of a run sends the same filter. */
function oneYearAgo(): string {
  const now = new Date();
  now.setUTCSeconds(0, 0);
  return new Date(now.getTime() - 365 * 24 * 3600 * 1000).toISOString().replace('.000Z', 'Z');
}

const ROUTES = {
  organization: '/v1/organization',
  ordersPage:
    '/v1/orders?limit=50&include=customer,items&filter=' +
    encodeURIComponent(JSON.stringify({ createdAt: { $gte: oneYearAgo() }, 'tags.name': TAG })),
} as const;
type RouteName = keyof typeof ROUTES;
/** BENCH_ORDERS=0 measures the organization alone, on the demo data as `npm start` makes it. */
const ROUTE_NAMES: RouteName[] = ORDERS > 0 ? ['organization', 'ordersPage'] : ['organization'];

interface Build {
  label: string;
  root: string;
}

function startBuild(build: Build, dataDir: string, workDir: string, label: string): Promise<Server> {
  return startServer(
    label,
    [join(build.root, 'dist/src/cli/main.js'), 'serve'],
    serverEnv({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
    workDir,
  );
}

async function api(
  server: Server,
  key: string,
  { method, path, body }: { method: string; path: string; body?: unknown },
): Promise<any> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** The demo organization with a ceiling no run reaches, and ORDERS orders, in `dataDir`. */
async function seed(dataDir: string, workDir: string): Promise<string> {
  const env = serverEnv({ PATRON_DATA_DIR: dataDir });
  const demo = JSON.parse(run(process.execPath, [CLI, 'seed', '--demo', '--json'], env)) as {
    organization: { id: string };
    key: string;
  };
  run(
    process.execPath,
    [CLI, 'org', 'update', demo.organization.id, '--api-requests-per-minute', String(CEILING), '--json'],
    env,
  );
  const server = await startBuild({ label: 'seed', root: ROOT }, dataDir, workDir, 'seed');
  try {
    const day = 24 * 3600 * 1000;
    for (let start = 0; start < ORDERS; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(ORDERS, start + 500); i++) {
        const [product, variant] = VARIANTS[i % VARIANTS.length]!;
        const [other, otherVariant] = VARIANTS[(i + 1) % VARIANTS.length]!;
        rows.push({
          site: 'shop.example.com',
          customer: CUSTOMERS[i % CUSTOMERS.length],
          remoteId: `bench-${i}`,
          number: `#B${i}`,
          totalCents: 9000,
          subtotalCents: 9000,
          currencyCode: 'USD',
          createdAt: new Date(Date.now() - ((i * 300 * day) / ORDERS + 60_000)).toISOString(),
          tags: i % 2 === 0 ? [TAG] : ['one-off'],
          items: [
            { product, variant, quantity: 1, unitPriceCents: 4500 },
            { product: other, variant: otherVariant, quantity: 1, unitPriceCents: 4500 },
          ],
        });
      }
      await api(server, demo.key, { method: 'POST', path: '/v1/orders/import', body: { data: rows } });
    }
    const page = await api(server, demo.key, { method: 'GET', path: ROUTES.ordersPage });
    if (ORDERS >= 100 && (page.data.length !== 50 || !page.data[0].customer || page.data[0].items.length !== 2)) {
      throw new Error(
        `the orders page is not a full page with customers and items: ${JSON.stringify(page).slice(0, 500)}`,
      );
    }
  } finally {
    await server.stop();
  }
  return demo.key;
}

interface Measurement {
  build: string;
  route: RouteName;
  round: number;
  /** Median ms of a request sent alone. */
  aloneMs: number;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  serverCpuUsPerRequest: number | null;
  /** Cores used by everything but the server and this process during the run (other work on the shared machine). */
  otherCores: number | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Wall-clock ms of one request at a time (after a few discarded), the latency without queueing. */
async function alone(server: Server, route: RouteName, key: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 23; i++) {
    const t0 = performance.now();
    await api(server, key, { method: 'GET', path: ROUTES[route] });
    if (i >= 3) samples.push(performance.now() - t0);
  }
  return median(samples);
}

async function measure(
  server: Server,
  key: string,
  { build, route, round }: { build: string; route: RouteName; round: number },
) {
  const aloneMs = await alone(server, route, key);
  const options = {
    url: server.baseUrl + ROUTES[route],
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
  };
  await autocannon({ ...options, duration: WARMUP_S });
  const serverBefore = cpuMs(server.child.pid);
  const machineBefore = machineCpuMs();
  const selfBefore = process.cpuUsage();
  const result = await autocannon({ ...options, duration: DURATION_S });
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineCpuMs();
  const serverAfter = cpuMs(server.child.pid);
  const requests = result.requests.total;
  const serverMs = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null;
  const m: Measurement = {
    build,
    route,
    round,
    aloneMs: Math.round(aloneMs * 100) / 100,
    requestsPerSec: requests / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuUsPerRequest: serverMs !== null && requests > 0 ? (serverMs * 1000) / requests : null,
    otherCores:
      machineBefore !== null && machineAfter !== null && serverMs !== null
        ? Math.round(
            ((machineAfter - machineBefore - serverMs - (self.user + self.system) / 1000) / (result.duration * 1000)) *
              100,
          ) / 100
        : null,
  };
  log(
    `  ${build} ${route} (round ${round}): alone ${m.aloneMs} ms; ${m.requestsPerSec.toFixed(0)} req/s, p50 ${m.latencyP50Ms} ms, ` +
      `p99 ${m.latencyP99Ms} ms, non-2xx ${m.non2xx}, errors ${m.errors}, server ${m.serverCpuUsPerRequest?.toFixed(0) ?? '?'} µs/req, ` +
      `other processes ${m.otherCores ?? '?'} cores`,
  );
  return m;
}

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('npx tsc -p tsconfig.build.json');
    run('npx', ['tsc', '-p', 'tsconfig.build.json']);
  }
  const builds: Build[] = [...(BASE_DIR ? [{ label: 'base', root: BASE_DIR }] : []), { label: 'this', root: ROOT }];
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-embedded-'));
  try {
    // BENCH_SEEDED_DIR keeps the seeded data (and its key) for the next run, or for a look at it.
    const seeded = process.env.BENCH_SEEDED_DIR ?? join(workDir, 'seeded');
    let key: string;
    if (existsSync(join(seeded, 'bench-key'))) {
      key = readFileSync(join(seeded, 'bench-key'), 'utf8');
      log(`using the data seeded in ${seeded}`);
    } else {
      log(`seeding ${ORDERS} orders in ${seeded}`);
      key = await seed(seeded, workDir);
      writeFileSync(join(seeded, 'bench-key'), key);
    }
    const results: Measurement[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const build of builds) {
        // Each server gets a fresh copy of the same data, so no run sees another's writes or caches.
        const dataDir = join(workDir, `${build.label}-${round}`);
        await cp(seeded, dataDir, { recursive: true });
        const server = await startBuild(build, dataDir, workDir, `${build.label}-${round}`);
        try {
          for (const route of ROUTE_NAMES) {
            results.push(await measure(server, key, { build: build.label, route, round }));
          }
        } finally {
          await server.stop();
          await rm(dataDir, { recursive: true, force: true });
        }
      }
    }

    const medianOf = (build: string, route: RouteName) =>
      median(results.filter((m) => m.build === build && m.route === route).map((m) => m.requestsPerSec));
    console.log(
      `PGlite, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, ${ROUNDS} round(s), ` +
        `${ORDERS} orders, node ${process.version}`,
    );
    console.log(
      table(
        ['build', 'route', 'round', 'alone ms', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'server µs/req', 'other cores'],
        results.map((m) => [
          m.build,
          m.route,
          String(m.round),
          String(m.aloneMs),
          m.requestsPerSec.toFixed(0),
          String(m.latencyP50Ms),
          String(m.latencyP99Ms),
          String(m.non2xx + m.errors),
          m.serverCpuUsPerRequest?.toFixed(0) ?? '?',
          String(m.otherCores ?? '?'),
        ]),
      ),
    );
    const summary: Record<string, unknown> = {};
    for (const route of ROUTE_NAMES) {
      const current = medianOf('this', route);
      const entry: Record<string, number | boolean> = { requestsPerSec: Math.round(current) };
      if (BASE_DIR) {
        const base = medianOf('base', route);
        entry.baseRequestsPerSec = Math.round(base);
        entry.ratio = Math.round((current / base) * 100) / 100;
        entry.meetsTarget = current / base >= TARGET;
        console.log(
          `${route}: base ${base.toFixed(0)} req/s → ${current.toFixed(0)} req/s, ×${(current / base).toFixed(2)} ` +
            `(target ≥ ${TARGET}: ${current / base >= TARGET ? 'met' : 'NOT met'})`,
        );
      } else {
        console.log(`${route}: ${current.toFixed(0)} req/s`);
      }
      summary[route] = entry;
    }
    const failures = results.reduce((sum, m) => sum + m.non2xx + m.errors, 0);
    saveResult('embedded', {
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_S,
      durationSeconds: DURATION_S,
      rounds: ROUNDS,
      orders: ORDERS,
      node: process.version,
      ...summary,
      maxOtherCores: Math.max(0, ...results.map((m) => m.otherCores ?? 0)),
      failures,
    });
    if (failures > 0) process.exitCode = 1;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
