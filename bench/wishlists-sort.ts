// Wishlists, figure 1: GET /v1/products?sort=-wishlistsCount&limit=50 on one organization of 1,000,000 products, p50
// latency of the first page and of a page deep in the list, each as a RATIO against the same page sorted by
// -createdAt (the default sort, walked through products_created_idx) in the same run: first against first, deep
// against deep at the same depth.
//
//   node --import tsx bench/wishlists-sort.ts        (npm run bench:wishlists-sort)
//
// Target: each ratio ≤ 1.2. Dataset: bench/datasets/wishlists-dataset.ts (database patron_bench_wishlists, generated
// when missing: 1,000,000 products, wishlistsCount 0 for 80 % and a long tail for the rest). Patron is the compiled
// server (`node dist/src/cli/main.js serve`, LOG_LEVEL=warn) as a child process.
// The deep pages: nextCursor followed from the first page, BENCH_WALK_LIMIT (250) rows a page (the cursor binds the
// sort, not the page size), until BENCH_DEEP_ROWS (10,000) rows are behind; that cursor is then requested again and
// again with limit=50. Both deep pages are checked against `order by … offset` in SQL first (no row skipped or repeated).
// Latency is open-loop (bench/support/open-loop.ts): BENCH_RATE (40) requests a second, the two sorts in turn on one
// schedule (20 a second each), each latency from when its request was due, so both meet the same background load;
// BENCH_WARMUP_S (5, discarded) then BENCH_DURATION_S (20) per run. BENCH_ROUNDS (3) rounds of the first-page pair and
// the deep pair, the sort that starts the schedule alternating; a round's ratio is p50(wishlistsCount) / p50(createdAt),
// and the figure is the median of the rounds' ratios.
// Also printed: EXPLAIN (ANALYZE, BUFFERS) of the statement Patron runs for each page, captured verbatim from the real
// routes in this process (Kysely query log), on a session with Patron's settings (jit off); the median of 5 runs.
// Other tunables: BENCH_SKIP_BUILD=1, BENCH_QUIET_WAIT_S / BENCH_QUIET_BUSY (harness: wait for a quieter machine
// before each round).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DATABASE, ensureWishlistsDataset } from './datasets/wishlists-dataset.js';
import { openLoop, type OpenLoopResult } from './support/open-loop.js';
import {
  build,
  capture,
  cpuMs,
  databaseCpuMs,
  log,
  machineCpuMs,
  saveResult,
  startPatron,
  table,
  waitForQuiet,
  type Captured,
  type Server,
} from './support/harness.js';

const RATE = Number(process.env.BENCH_RATE ?? 40);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DEEP_ROWS = Number(process.env.BENCH_DEEP_ROWS ?? 10_000);
const WALK_LIMIT = Number(process.env.BENCH_WALK_LIMIT ?? 250);
const LIMIT = 50;
const TARGET_RATIO = 1.2;

const SORTS = {
  wishlistsCount: { sort: '-wishlistsCount', order: 'wishlists_count desc, id desc' },
  createdAt: { sort: '-createdAt', order: 'created_at desc, id desc' },
} as const;
type SortName = keyof typeof SORTS;
/** The products with their wishlistsCount as the API counts it: 0 without a row in product_wishlist_counts. */
const COUNTED = `(select p.organization_id, p.id, p.created_at, coalesce(c.wishlists_count, 0) as wishlists_count
  from products p left join product_wishlist_counts c on c.organization_id = p.organization_id and c.product_id = p.id) products`;

const listPath = (sort: string, limit: number, cursor?: string) =>
  `/v1/products?sort=${encodeURIComponent(sort)}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;

interface Page {
  data: { id: string }[];
  nextCursor: string | null;
}

async function get(server: Server, path: string, key: string): Promise<Page> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Page;
}

/** Follows nextCursor until `rows` rows are behind; returns that cursor. */
async function walk(server: Server, sort: string, key: string, rows: number) {
  const t0 = performance.now();
  let cursor: string | undefined;
  let skipped = 0;
  let requests = 0;
  while (skipped < rows) {
    const page = await get(server, listPath(sort, Math.min(WALK_LIMIT, rows - skipped), cursor), key);
    requests += 1;
    if (!page.nextCursor) throw new Error(`GET /v1/products?sort=${sort}: the list ends before ${rows} rows`);
    skipped += page.data.length;
    cursor = page.nextCursor;
  }
  return { cursor: cursor!, skipped, requests, seconds: (performance.now() - t0) / 1000 };
}

interface Plan {
  page: string;
  executionMs: number;
  buffers: number | null;
  indexes: string[];
  sorts: boolean;
  rowsRead: number | null;
  sql: string;
  parameters: unknown[];
  plan: string;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the list statement Patron runs for `path`: the median of 5 runs after one discarded. */
async function explain(client: pg.Client, page: string, path: string, key: string): Promise<Plan> {
  const captured = await capture('GET', path, key, { database: DATABASE });
  if (captured.status !== 200) throw new Error(`GET ${path} answered ${captured.status} in process`);
  const list = captured.statements.find((s: Captured) => /as _sort/.test(s.sql));
  if (!list) throw new Error(`no list statement captured for ${path}`);
  const runs: { ms: number; plan: string }[] = [];
  for (let i = 0; i < 6; i++) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `explain (analyze, buffers) ${list.sql}`,
      list.parameters,
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    runs.push({ ms: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN), plan });
  }
  const { ms, plan } = runs.slice(1).sort((a, b) => a.ms - b.ms)[2]!;
  const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(plan);
  const scan = /Index (?:Only )?Scan.*\(.*actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(plan);
  return {
    page,
    executionMs: ms,
    buffers: buffers ? Number(buffers[1]) + Number(buffers[2] ?? 0) : null,
    indexes: [...new Set([...plan.matchAll(/ using (\w+)/g)].map((m) => m[1]!))],
    sorts: /\bSort\b/.test(plan.replace(/Sort Key|Sort Method/g, '')),
    rowsRead: scan ? Number(scan[1]) : null,
    sql: list.sql.replace(/\s+/g, ' ').trim(),
    parameters: list.parameters,
    plan,
  };
}

interface PairRun {
  round: number;
  page: 'first' | 'deep';
  startedWith: SortName;
  run: Omit<OpenLoopResult, 'samples'>;
  p50: Record<SortName, number>;
  ratio: number;
  serverCpuUsPerRequest: number | null;
  databaseCpuUsPerRequest: number | null;
  /**
   * Cores the machine's other work used on average during the measured run (2 in all): its busy time from /proc/stat
   * less Patron's, its PostgreSQL backends' and this process's.
   */
  backgroundCores: number | null;
}

async function measurePair(
  server: Server,
  key: string,
  { round, page, paths }: { round: number; page: 'first' | 'deep'; paths: Record<SortName, string> },
): Promise<PairRun> {
  const targets = (Object.keys(SORTS) as SortName[]).map((name) => ({ name, path: paths[name] }));
  const first = round % 2 === 1 ? 0 : 1;
  const headers = { authorization: `Bearer ${key}` };
  if (WARMUP_S > 0) await openLoop({ baseUrl: server.baseUrl, targets, headers, rate: RATE, durationS: WARMUP_S });
  const cpuBefore = cpuMs(server.child.pid);
  const dbBefore = databaseCpuMs(DATABASE);
  const machineBefore = machineCpuMs();
  const clientBefore = process.cpuUsage();
  const { samples: _samples, ...run } = await openLoop({
    baseUrl: server.baseUrl,
    targets,
    headers,
    rate: RATE,
    durationS: DURATION_S,
    first,
  });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = cpuMs(server.child.pid);
  const dbAfter = databaseCpuMs(DATABASE);
  const machineAfter = machineCpuMs();
  const requests = run.targets.reduce((sum, t) => sum + t.requests, 0);
  const errors = run.targets.reduce((sum, t) => sum + t.errors, 0);
  if (errors) throw new Error(`${page} pages, round ${round}: ${errors} requests failed or answered other than 200`);
  const p50 = Object.fromEntries(run.targets.map((t) => [t.name, t.latency.p50])) as Record<SortName, number>;
  const result: PairRun = {
    round,
    page,
    startedWith: targets[first]!.name,
    run,
    p50,
    ratio: Math.round((p50.wishlistsCount / p50.createdAt) * 1000) / 1000,
    serverCpuUsPerRequest:
      cpuBefore !== null && cpuAfter !== null ? Math.round(((cpuAfter - cpuBefore) * 1000) / requests) : null,
    databaseCpuUsPerRequest:
      dbBefore !== null && dbAfter !== null ? Math.round(((dbAfter - dbBefore) * 1000) / requests) : null,
    backgroundCores:
      machineBefore !== null &&
      machineAfter !== null &&
      cpuBefore !== null &&
      cpuAfter !== null &&
      dbBefore !== null &&
      dbAfter !== null
        ? Math.round(
            ((machineAfter -
              machineBefore -
              (cpuAfter - cpuBefore) -
              (dbAfter - dbBefore) -
              (client.user + client.system) / 1000) /
              (run.seconds * 1000)) *
              100,
          ) / 100
        : null,
  };
  const [w, c] = [
    run.targets.find((t) => t.name === 'wishlistsCount')!,
    run.targets.find((t) => t.name === 'createdAt')!,
  ];
  log(
    `  round ${round}, ${page} pages: wishlistsCount p50 ${w.latency.p50} ms (p99 ${w.latency.p99}), createdAt p50 ${c.latency.p50} ms (p99 ${c.latency.p99}); ratio ${result.ratio}; ` +
      `${requests} requests, send lag p99 ${run.sendLag.p99} ms, Patron ${result.serverCpuUsPerRequest} µs/req, PostgreSQL ${result.databaseCpuUsPerRequest} µs/req, background ${result.backgroundCores} cores`,
  );
  return result;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const dataset = await ensureWishlistsDataset({ fresh: process.argv.includes('--fresh') });
  log(`organization ${dataset.organizationId}: ${JSON.stringify(dataset.distribution)}`);
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-wishlists-sort-'));
  const client = new pg.Client({ connectionString: dataset.databaseUrl, options: '-c jit=off' });
  await client.connect();
  let server: Server | null = null;
  try {
    server = await startPatron('patron', workDir, { DATABASE_URL: dataset.databaseUrl });
    const key = dataset.key;
    const paths: Record<'first' | 'deep', Record<SortName, string>> = { first: {} as never, deep: {} as never };
    const walks: Record<string, unknown> = {};
    for (const name of Object.keys(SORTS) as SortName[]) {
      const { sort, order } = SORTS[name];
      paths.first[name] = listPath(sort, LIMIT);
      const walked = await walk(server, sort, key, DEEP_ROWS);
      paths.deep[name] = listPath(sort, LIMIT, walked.cursor);
      walks[name] = { rowsSkipped: walked.skipped, requests: walked.requests, seconds: round3(walked.seconds) };
      log(
        `${sort}: walked ${walked.skipped.toLocaleString('en-US')} rows in ${walked.requests} pages (${walked.seconds.toFixed(1)} s)`,
      );
      // The pages must be the ones SQL puts there: nothing skipped or repeated on the way.
      for (const [page, offset] of [
        ['first', 0],
        ['deep', walked.skipped],
      ] as const) {
        const answer = await get(server, paths[page][name], key);
        const { rows } = await client.query<{ id: string }>(
          `select id from ${COUNTED} where organization_id = $1 order by ${order} offset ${offset} limit ${LIMIT}`,
          [dataset.organizationId],
        );
        if (JSON.stringify(answer.data.map((p) => p.id)) !== JSON.stringify(rows.map((r) => r.id)))
          throw new Error(`${sort}, ${page} page: the API's rows differ from SQL's order by ${order} offset ${offset}`);
      }
    }
    const { rows: deepValues } = await client.query<{ wishlists_count: number }>(
      `select wishlists_count from ${COUNTED} where organization_id = $1 order by wishlists_count desc, id desc offset $2 limit 1`,
      [dataset.organizationId, DEEP_ROWS],
    );
    log(
      `pages checked against SQL; the deep wishlistsCount page starts at wishlistsCount ${deepValues[0]?.wishlists_count}`,
    );

    const plans: Plan[] = [];
    for (const page of ['first', 'deep'] as const)
      for (const name of Object.keys(SORTS) as SortName[])
        plans.push(await explain(client, `${name} ${page}`, paths[page][name], key));
    for (const plan of plans) {
      log(
        `EXPLAIN ${plan.page}: ${plan.executionMs} ms, ${plan.buffers} buffers, index ${plan.indexes.join(', ') || 'none'}${plan.sorts ? ', SORT NODE' : ', no sort'}, ${plan.rowsRead} index rows`,
      );
      if (plan.page.startsWith('wishlistsCount')) {
        log(`  ${plan.sql}\n  parameters ${JSON.stringify(plan.parameters)}`);
        log(plan.plan.replace(/^/gm, '    '));
      }
    }

    const runs: PairRun[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const busy = await waitForQuiet(`round ${round}`);
      log(
        `round ${round} of ${ROUNDS} (machine ${busy === null ? '?' : Math.round(busy * 100)} % busy before): open-loop ${RATE} req/s, ${WARMUP_S} s warm-up + ${DURATION_S} s`,
      );
      runs.push(await measurePair(server, key, { round, page: 'first', paths: paths.first }));
      runs.push(await measurePair(server, key, { round, page: 'deep', paths: paths.deep }));
    }
    await server.stop();
    server = null;

    const summary = (['first', 'deep'] as const).map((page) => {
      const mine = runs.filter((r) => r.page === page);
      const ratio = median(mine.map((r) => r.ratio));
      const p50 = {
        wishlistsCount: median(mine.map((r) => r.p50.wishlistsCount)),
        createdAt: median(mine.map((r) => r.p50.createdAt)),
      };
      return {
        page,
        rowsBefore: page === 'first' ? 0 : DEEP_ROWS,
        ratio: round3(ratio),
        ratioOfMedians: round3(p50.wishlistsCount / p50.createdAt),
        medianP50Ms: p50,
        ratios: mine.map((r) => r.ratio),
        meets: ratio <= TARGET_RATIO,
      };
    });

    console.log(
      `GET /v1/products?limit=${LIMIT}, 1 organization of ${dataset.counts.products!.toLocaleString('en-US')} products; open-loop ${RATE} req/s (the two sorts in turn), ${WARMUP_S} s warm-up + ${DURATION_S} s per run, ${ROUNDS} rounds, node ${process.version}`,
    );
    console.log(
      table(
        [
          'round',
          'page',
          'wishlistsCount p50',
          'p99',
          'createdAt p50',
          'p99',
          'ratio',
          'Patron µs/req',
          'PG µs/req',
          'background cores',
        ],
        runs.map((r) => {
          const w = r.run.targets.find((t) => t.name === 'wishlistsCount')!.latency;
          const c = r.run.targets.find((t) => t.name === 'createdAt')!.latency;
          return [
            String(r.round),
            r.page,
            `${w.p50} ms`,
            `${w.p99} ms`,
            `${c.p50} ms`,
            `${c.p99} ms`,
            r.ratio.toFixed(3),
            String(r.serverCpuUsPerRequest ?? 'n/a'),
            String(r.databaseCpuUsPerRequest ?? 'n/a'),
            String(r.backgroundCores ?? 'n/a'),
          ];
        }),
      ),
    );
    console.log(
      table(
        ['statement (EXPLAIN ANALYZE, median of 5)', 'ms', 'buffers', 'index rows', 'index', 'sort node'],
        plans.map((p) => [
          p.page,
          String(p.executionMs),
          String(p.buffers),
          String(p.rowsRead),
          p.indexes.join(', '),
          p.sorts ? 'yes' : 'no',
        ]),
      ),
    );
    for (const s of summary)
      console.log(
        `${s.page} page${s.page === 'deep' ? ` (after ${DEEP_ROWS.toLocaleString('en-US')} rows)` : ''}: -wishlistsCount / -createdAt p50 = ${s.ratio.toFixed(3)} (median of rounds ${s.ratios.join(', ')}; medians ${s.medianP50Ms.wishlistsCount} vs ${s.medianP50Ms.createdAt} ms) (target ≤ ${TARGET_RATIO}: ${s.meets ? 'met' : 'NOT met'})`,
      );
    saveResult('wishlists-sort', {
      date: new Date().toISOString(),
      node: process.version,
      database: DATABASE,
      organizationId: dataset.organizationId,
      products: dataset.counts.products,
      distribution: dataset.distribution,
      rate: RATE,
      warmupS: WARMUP_S,
      durationS: DURATION_S,
      rounds: ROUNDS,
      deepRows: DEEP_ROWS,
      walks,
      summary,
      runs,
      plans: plans.map(({ plan, ...rest }) => ({ ...rest, plan: plan.split('\n') })),
    });
  } finally {
    await server?.stop();
    await client.end();
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
