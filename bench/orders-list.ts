// Issue 3, figures 1 and 2: GET /v1/orders?limit=50&include=customer,items with a createdAt + tags.name filter,
// Patron (compiled, `node dist/src/cli/main.js serve`, LOG_LEVEL=warn) against a FLOOR that runs the same SQL from a
// bare node:http + pg server (bench/support/orders-list-floor.ts); then a deep page (after 10,000 rows, reached by walking
// nextCursor) against the first page.
//
//   node --import tsx bench/orders-list.ts
//
// Targets: Patron ≥ 0.7 × floor requests/s, and p99 ≤ 25 ms, at 50 connections; the deep page as fast as the first.
// Dataset: bench/datasets/store-dataset.ts (generated when missing). Organization "Bench store 01" (20,000 orders). The SQL of
// the floor is captured from Patron itself: the routes run in this process once (app.inject) with a Kysely query
// log, and every statement issued for the request is written, verbatim, to bench/results/orders-floor-spec.json.
// The floor and Patron must answer with the same JSON before anything is measured.
// Tunables (env): BENCH_CONNECTIONS (50), BENCH_WARMUP_S (10), BENCH_DURATION_S (20), BENCH_ROUNDS (2: floor and
// Patron alternate, the median round counts), BENCH_SEQUENTIAL (200 requests per sequential latency sample),
// BENCH_LOW_CONNECTIONS (10: one more Patron run at this concurrency), BENCH_SKIP_BUILD=1, BENCH_ONLY=floor|deep.
import { mkdtemp, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { hashKey } from '../src/auth/keys.js';
import { canonicalJson } from '../src/util/canonical-json.js';
import { cursorBinding } from '../src/lists/cursor.js';
import type { FloorSpec, FloorStatement, ParamTemplate } from './support/orders-list-floor.js';
import { COMMON_TAG, RARE_TAG, ensureDataset } from './datasets/store-dataset.js';
import {
  RESULTS_DIR,
  ROOT,
  build,
  capture,
  databaseUrl,
  load,
  log,
  saveResult,
  sequential,
  serverEnv,
  startPatron,
  startServer,
  table,
  type Captured,
  type LatencySummary,
  type LoadMeasurement,
  type Server,
} from './support/harness.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LOW_CONNECTIONS = Number(process.env.BENCH_LOW_CONNECTIONS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const ONLY = process.env.BENCH_ONLY;
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 25;
const DEEP_ROWS = 10_000;
const LIMIT = 50;
const FLOOR = join(ROOT, 'bench/support/orders-list-floor.ts');
const SPEC_FILE = join(RESULTS_DIR, 'orders-floor-spec.json');

/** One year before the start of this minute, so every request of a run sends the same filter. */
function oneYearAgo(): string {
  const now = new Date();
  now.setUTCSeconds(0, 0);
  return new Date(now.getTime() - 365 * 24 * 3600 * 1000).toISOString().replace('.000Z', 'Z');
}

export const listPath = (query: Record<string, string | undefined>) =>
  '/v1/orders?' +
  Object.entries(query)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
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

/** The list engine's bounded count that chooses how a to-many filter is written (src/lists/related.ts). */
const isPlanStatement = (s: Captured) => /^\s*select \(select count\(\*\) from \(select 1 from /.test(s.sql);

interface PlanResult {
  tag: string;
  form: 'row by row' | 'semi-join';
  countMs: number | null;
  listMs: number;
  listBuffers: number | null;
  plan: string;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of what Patron sends for a tag filter: the bounded count and the list statement in the
 * form it chose (`exists (… offset 0)` walks the sort index and probes each order; without, a semi-join). Run on a
 * connection with Patron's settings (jit off); the median of 5 runs after one discarded.
 */
async function explainTagFilter(path: string, key: string, tag: string): Promise<PlanResult> {
  const { status, body, statements } = await capture('GET', path, key);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body)}`);
  const count = statements.find(isPlanStatement);
  const list = statements.find((s) => /as _sort/.test(s.sql));
  if (!list) throw new Error(`no list statement captured for ${path}`);
  const client = new pg.Client({ connectionString: databaseUrl(), options: '-c jit=off' });
  await client.connect();
  try {
    const explain = async (statement: Captured) => {
      const runs: { ms: number; plan: string }[] = [];
      for (let i = 0; i < 6; i++) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers) ${statement.sql}`,
          statement.parameters,
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        runs.push({ ms: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN), plan });
      }
      const sorted = runs.slice(1).sort((a, b) => a.ms - b.ms);
      return sorted[Math.floor(sorted.length / 2)]!;
    };
    const listRun = await explain(list);
    const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(listRun.plan);
    return {
      tag,
      form: /offset 0\)/.test(list.sql) ? 'row by row' : 'semi-join',
      countMs: count ? (await explain(count)).ms : null,
      listMs: listRun.ms,
      listBuffers: buffers ? Number(buffers[1]) + Number(buffers[2] ?? 0) : null,
      plan: listRun.plan,
    };
  } finally {
    await client.end();
  }
}

async function buildFloorSpec(
  path: string,
  key: string,
  org: string,
  filter: string,
): Promise<{ spec: FloorSpec; body: any; statements: Captured[] }> {
  const { status, body, statements } = await capture('GET', path, key);
  if (status !== 200) throw new Error(`Patron answered ${status} to GET ${path} (in process): ${JSON.stringify(body)}`);
  const ids = (body.data as { id: string }[]).map((order) => order.id);
  const known = { hash: hashKey(key), org, ids };
  const toStatement = (captured: Captured): FloorStatement => ({
    sql: captured.sql,
    params: template(captured.parameters, known),
  });
  const auth = statements.find((s) => /from "api_keys"/.test(s.sql));
  const plan = statements.find(isPlanStatement);
  const list = statements.find((s) => /as _sort/.test(s.sql));
  const customer = statements.find((s) => s !== list && /customers/.test(s.sql) && !/order_items/.test(s.sql));
  const items = statements.find((s) => s !== list && /order_items/.test(s.sql));
  const unexpected = statements.filter((s) => ![auth, plan, list, customer, items].includes(s));
  if (!auth || !list || !customer || !items || unexpected.length) {
    throw new Error(`unexpected statements for GET ${path}:\n${statements.map((s) => s.sql).join('\n---\n')}`);
  }
  const spec: FloorSpec = {
    path,
    limit: LIMIT,
    binding: cursorBinding('-createdAt', canonicalJson(JSON.parse(filter)), ''),
    auth: toStatement(auth),
    ...(plan ? { plan: toStatement(plan) } : {}),
    list: toStatement(list),
    includes: { customer: toStatement(customer), items: toStatement(items) },
  };
  return { spec, body, statements };
}

async function getJson(
  baseUrl: string,
  path: string,
  key: string,
): Promise<{ status: number; body: any; bytes: number }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/** Walks nextCursor from the first page; returns the cursor of the first full page starting after ≥ `rows` rows (or the deepest full page). */
async function walk(
  baseUrl: string,
  path: string,
  key: string,
  rows: number,
): Promise<{ cursor: string; skipped: number; ms: number }> {
  const t0 = performance.now();
  let cursor: string | null = null;
  let skipped = 0; // rows before the page at `cursor`
  let deepest: { cursor: string; skipped: number } | null = null;
  for (;;) {
    const page = await getJson(baseUrl, cursor ? `${path}&cursor=${cursor}` : path, key);
    if (page.status !== 200)
      throw new Error(
        `GET ${path} (cursor after ${skipped} rows) answered ${page.status}: ${JSON.stringify(page.body)}`,
      );
    if (cursor && page.body.data.length === LIMIT) {
      deepest = { cursor, skipped };
      if (skipped >= rows) break;
    }
    const next = page.body.nextCursor as string | null;
    if (!next) break;
    skipped += page.body.data.length;
    cursor = next;
  }
  if (!deepest) throw new Error(`GET ${path}: fewer than two full pages`);
  return { ...deepest, ms: performance.now() - t0 };
}

interface DeepResult {
  name: string;
  path: string;
  rowsSkipped: number;
  walkSeconds: number;
  firstSequential: LatencySummary;
  deepSequential: LatencySummary;
  firstLoad: LoadMeasurement;
  deepLoad: LoadMeasurement;
}

async function deepPage(
  server: Server,
  name: string,
  { path, key, rows }: { path: string; key: string; rows: number },
): Promise<DeepResult> {
  log(`${name}: walking nextCursor to ${rows.toLocaleString('en-US')} rows`);
  const walked = await walk(server.baseUrl, path, key, rows);
  const deepPath = `${path}&cursor=${walked.cursor}`;
  log(
    `  reached a full page after ${walked.skipped.toLocaleString('en-US')} rows in ${(walked.ms / 1000).toFixed(1)} s`,
  );
  const init = { headers: { authorization: `Bearer ${key}` } };
  const firstSequential = await sequential(`${server.baseUrl}${path}`, init, SEQUENTIAL);
  const deepSequential = await sequential(`${server.baseUrl}${deepPath}`, init, SEQUENTIAL);
  log(
    `  sequential (${SEQUENTIAL}): first p50 ${firstSequential.p50} ms p99 ${firstSequential.p99} ms; deep p50 ${deepSequential.p50} ms p99 ${deepSequential.p99} ms`,
  );
  const headers = { authorization: `Bearer ${key}` };
  const firstLoad = await load(
    `${name} first page`,
    server,
    { path, connections: CONNECTIONS, headers },
    { warmupS: WARMUP_S, durationS: DURATION_S },
  );
  const deepLoad = await load(
    `${name} page after ${walked.skipped} rows`,
    server,
    { path: deepPath, connections: CONNECTIONS, headers },
    { warmupS: WARMUP_S, durationS: DURATION_S },
  );
  return {
    name,
    path,
    rowsSkipped: walked.skipped,
    walkSeconds: walked.ms / 1000,
    firstSequential,
    deepSequential,
    firstLoad,
    deepLoad,
  };
}

function medianRound(rounds: LoadMeasurement[]): LoadMeasurement {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSec - b.requestsPerSec);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const loadRow = (m: LoadMeasurement) => [
  m.name,
  m.requestsPerSec.toFixed(0),
  String(m.latencyP50Ms),
  String(m.latencyP99Ms),
  String(m.latencyMaxMs),
  String(m.non2xx),
  String(m.errors),
  m.serverCpuUsPerRequest === null ? 'n/a' : m.serverCpuUsPerRequest.toFixed(0),
];
const LOAD_HEADER = ['run', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'errors', 'server CPU µs/req'];

async function main(): Promise<void> {
  const dataset = await ensureDataset();
  const org = dataset.organizations['1']!;
  build();

  const since = oneYearAgo();
  const filter = JSON.stringify({ createdAt: { $gte: since }, 'tags.name': COMMON_TAG });
  const rareFilter = JSON.stringify({ createdAt: { $gte: since }, 'tags.name': RARE_TAG });
  const path = listPath({ limit: String(LIMIT), include: 'customer,items', filter });
  const rarePath = listPath({ limit: String(LIMIT), include: 'customer,items', filter: rareFilter });
  const plainPath = listPath({ limit: String(LIMIT), include: 'customer,items' });

  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  const matching = async (tag: string) =>
    Number(
      (
        await client.query<{ n: string }>(
          `select count(*) as n from orders o where o.organization_id = $1 and o.created_at >= $2
             and exists (select 1 from order_tags ot join tags t on t.organization_id = ot.organization_id and t.id = ot.tag_id
                         where ot.organization_id = o.organization_id and ot.order_id = o.id and t.name = $3)`,
          [org.id, since, tag],
        )
      ).rows[0]!.n,
    );
  const selectivity = {
    ordersInOrganization: Number(
      (await client.query<{ n: string }>('select count(*) as n from orders where organization_id = $1', [org.id]))
        .rows[0]!.n,
    ),
    ordersSince: Number(
      (
        await client.query<{ n: string }>(
          'select count(*) as n from orders where organization_id = $1 and created_at >= $2',
          [org.id, since],
        )
      ).rows[0]!.n,
    ),
    matchingCommonTag: await matching(COMMON_TAG),
    matchingRareTag: await matching(RARE_TAG),
  };
  await client.end();
  log(`organization 1: ${JSON.stringify(selectivity)}`);

  const plans = [
    await explainTagFilter(path, org.key, COMMON_TAG),
    await explainTagFilter(rarePath, org.key, RARE_TAG),
  ];
  for (const p of plans) {
    log(
      `tag "${p.tag}": ${p.form}; SQL (EXPLAIN ANALYZE, median) count ${p.countMs ?? 'n/a'} ms, list ${p.listMs} ms, ${p.listBuffers} buffers`,
    );
  }
  const captured = await buildFloorSpec(path, org.key, org.id, filter);
  writeFileSync(SPEC_FILE, JSON.stringify(captured.spec, null, 2) + '\n');
  log(`captured ${captured.statements.length} statements Patron runs for the request → ${SPEC_FILE}`);

  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-orders-'));
  const servers = new Set<Server>();
  const track = async (server: Promise<Server>) => {
    const s = await server;
    servers.add(s);
    return s;
  };
  const stop = async (server: Server) => {
    servers.delete(server);
    await server.stop();
  };
  const stopAll = async () => {
    for (const server of servers) await server.stop().catch(() => {});
    servers.clear();
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  const startFloor = () =>
    track(
      startServer(
        'floor',
        ['--import', 'tsx', FLOOR],
        serverEnv({ DATABASE_URL: databaseUrl(), FLOOR_SPEC: SPEC_FILE }),
        workDir,
      ),
    );
  const headers = { authorization: `Bearer ${org.key}` };

  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_S,
    durationSeconds: DURATION_S,
    rounds: ROUNDS,
    organizationId: org.id,
    filter: JSON.parse(filter),
    path,
    selectivity,
    plans,
    statements: captured.statements.map((s) => ({
      sql: s.sql,
      parameters: s.parameters.map((p) => (Array.isArray(p) ? `[${p.length} values]` : p)),
    })),
  };

  try {
    if (ONLY !== 'deep') {
      // Same answer from both, and the response size.
      const floorCheck = await startFloor();
      const floorSample = await getJson(floorCheck.baseUrl, path, org.key);
      await stop(floorCheck);
      const patronCheck = await track(startPatron('patron-check', workDir));
      const patronSample = await getJson(patronCheck.baseUrl, path, org.key);
      await stop(patronCheck);
      if (patronSample.status !== 200)
        throw new Error(`Patron answered ${patronSample.status}: ${JSON.stringify(patronSample.body)}`);
      if (!isDeepStrictEqual(floorSample.body, patronSample.body)) {
        writeFileSync(
          join(RESULTS_DIR, 'orders-floor-mismatch.json'),
          JSON.stringify({ floor: floorSample, patron: patronSample }, null, 2),
        );
        throw new Error(
          `floor and Patron answer differently (both bodies in ${RESULTS_DIR}/orders-floor-mismatch.json)`,
        );
      }
      if (patronSample.body.data.length !== LIMIT)
        throw new Error(`expected a full page, got ${patronSample.body.data.length} orders`);
      log(`same body from both: ${patronSample.body.data.length} orders, ${patronSample.bytes} bytes`);
      result.responseBytes = patronSample.bytes;

      const floorRounds: LoadMeasurement[] = [];
      const patronRounds: LoadMeasurement[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        log(`round ${round}/${ROUNDS}`);
        const floor = await startFloor();
        floorRounds.push(
          await load(
            `floor (round ${round})`,
            floor,
            { path, connections: CONNECTIONS, headers },
            { warmupS: WARMUP_S, durationS: DURATION_S },
          ),
        );
        await stop(floor);
        const patron = await track(startPatron('patron', workDir));
        patronRounds.push(
          await load(
            `patron (round ${round})`,
            patron,
            { path, connections: CONNECTIONS, headers },
            { warmupS: WARMUP_S, durationS: DURATION_S },
          ),
        );
        await stop(patron);
      }
      const patron = await track(startPatron('patron-extra', workDir));
      const low = await load(
        `patron, ${LOW_CONNECTIONS} connections`,
        patron,
        { path, connections: LOW_CONNECTIONS, headers },
        { warmupS: WARMUP_S, durationS: DURATION_S },
      );
      const sequentialCommon = await sequential(`${patron.baseUrl}${path}`, { headers }, SEQUENTIAL);
      const sequentialRare = await sequential(`${patron.baseUrl}${rarePath}`, { headers }, SEQUENTIAL);
      log(
        `  sequential: common tag p50 ${sequentialCommon.p50} ms p99 ${sequentialCommon.p99} ms; rare tag p50 ${sequentialRare.p50} ms p99 ${sequentialRare.p99} ms`,
      );
      const rare = await load(
        `patron, rare tag "${RARE_TAG}"`,
        patron,
        { path: rarePath, connections: CONNECTIONS, headers },
        { warmupS: WARMUP_S, durationS: DURATION_S },
      );
      await stop(patron);

      const floor = medianRound(floorRounds);
      const median = medianRound(patronRounds);
      const ratio = median.requestsPerSec / floor.requestsPerSec;
      console.log(`GET ${path}`);
      console.log(
        `${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, ${ROUNDS} round(s) (median shown), node ${process.version}`,
      );
      console.log(table(LOAD_HEADER, [floor, median, low, rare].map(loadRow)));
      console.log(
        `all rounds req/s: floor ${floorRounds.map((m) => m.requestsPerSec.toFixed(0)).join(', ')}; Patron ${patronRounds.map((m) => m.requestsPerSec.toFixed(0)).join(', ')}`,
      );
      console.log(
        `ratio Patron/floor: ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
      );
      console.log(
        `Patron p99 at ${CONNECTIONS} connections: ${median.latencyP99Ms} ms (target ≤ ${TARGET_P99_MS} ms: ${median.latencyP99Ms <= TARGET_P99_MS ? 'met' : 'NOT met'})`,
      );
      console.log(
        `sequential (${SEQUENTIAL} requests): common tag p50 ${sequentialCommon.p50} ms, p99 ${sequentialCommon.p99} ms; rare tag p50 ${sequentialRare.p50} ms, p99 ${sequentialRare.p99} ms`,
      );
      Object.assign(result, {
        floor,
        patron: median,
        floorRounds,
        patronRounds,
        patronLowConnections: low,
        patronRareTag: rare,
        rarePath,
        sequentialCommonTag: sequentialCommon,
        sequentialRareTag: sequentialRare,
        ratio: Math.round(ratio * 1000) / 1000,
        meetsRatio: ratio >= TARGET_RATIO,
        meetsP99: median.latencyP99Ms <= TARGET_P99_MS,
      });
    }

    if (ONLY !== 'floor') {
      const patron = await track(startPatron('patron-deep', workDir));
      const deep = [
        await deepPage(patron, 'unfiltered', { path: plainPath, key: org.key, rows: DEEP_ROWS }),
        await deepPage(patron, 'filtered', { path, key: org.key, rows: DEEP_ROWS }),
      ];
      await stop(patron);
      console.log('first page vs deep page (keyset), Patron');
      console.log(
        table(
          ['list', 'rows skipped', 'page', 'seq p50 ms', 'seq p99 ms', 'load req/s', 'load p50 ms', 'load p99 ms'],
          deep.flatMap((d) => [
            [
              d.name,
              '0',
              'first',
              String(d.firstSequential.p50),
              String(d.firstSequential.p99),
              d.firstLoad.requestsPerSec.toFixed(0),
              String(d.firstLoad.latencyP50Ms),
              String(d.firstLoad.latencyP99Ms),
            ],
            [
              d.name,
              String(d.rowsSkipped),
              'deep',
              String(d.deepSequential.p50),
              String(d.deepSequential.p99),
              d.deepLoad.requestsPerSec.toFixed(0),
              String(d.deepLoad.latencyP50Ms),
              String(d.deepLoad.latencyP99Ms),
            ],
          ]),
        ),
      );
      result.deep = deep;
    }
    saveResult('orders-list', result);
  } finally {
    await stopAll();
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
