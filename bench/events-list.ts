// The Events API's cost (docs/api.md#events-api): GET /v1/events?type=order.*&limit=50 on an organization with
// 5,000,000 events, against GET /v1/orders?limit=50 on the same store, both at 50 % of the orders list's saturation
// rate. Target: the events list's p99 ≤ 2 × the orders list's.
//
//   npm run bench:events-list          (node --import tsx bench/events-list.ts)
//
// Needs a PostgreSQL server (DATABASE_URL or BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres): a
// fresh database patron_bench_events_<random> is created and dropped at the end. The compiled server (`serve
// --no-dispatch --no-jobs`) runs as a child process. The store (one site, 200 customers, 20 products, BENCH_ORDERS =
// 20,000 orders of two items) is imported through the API; the events are generated set-based (insert … select
// generate_series), BENCH_EVENTS (5,000,000) over the last 29 days, ids UUID v7 of their time as the recorder makes
// them: a third order.*, the rest customer.updated, product.updated, loyaltyTransaction.created and review.created,
// order payloads of an order's size. Then VACUUM ANALYZE.
//
// Saturation: GET /v1/orders?limit=50 closed-loop (autocannon, BENCH_CONNECTIONS = 50) for BENCH_SATURATION_S (15) s.
// Then open-loop at half that rate, each latency counted from when the request was due: orders and events alternate,
// BENCH_ROUNDS (3) rounds of BENCH_DURATION_S (20) s each after 5 s of warm-up; the round of the median ratio counts
// (with an even count, the worse of the two middle ones). The
// plan of the events statement (EXPLAIN ANALYZE, BUFFERS) is printed and must read an index of events. Last, 300
// requests of each one at a time (p50 and p99 without queueing).
// Other tunables: BENCH_SKIP_BUILD=1, BENCH_KEEP=1 (keep the database), BENCH_DATABASE (reuse one kept before).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import {
  ADMIN_URL,
  CLI,
  autocannon,
  build,
  capture,
  log,
  machineBusy,
  run,
  saveResult,
  sequential,
  serverEnv,
  startServer,
  summarize,
  table,
  type LatencySummary,
} from './support/harness.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SATURATION_S = Number(process.env.BENCH_SATURATION_S ?? 15);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_RATIO = 2;
const ORDERS_PATH = '/v1/orders?limit=50';
const EVENTS_PATH = `/v1/events?type=${encodeURIComponent('order.*')}&limit=50`;

const SERVER_URL = process.env.DATABASE_URL || ADMIN_URL;
const reused = process.env.BENCH_DATABASE;
const database = reused ?? `patron_bench_events_${randomBytes(4).toString('hex')}`;
const url = (() => {
  const parsed = new URL(SERVER_URL);
  parsed.pathname = `/${database}`;
  return parsed.toString();
})();

async function sqlOn(connection: string, statement: string, parameters: unknown[] = []) {
  const client = new pg.Client({ connectionString: connection });
  await client.connect();
  try {
    return await client.query(statement, parameters);
  } finally {
    await client.end();
  }
}

const cliJson = (args: string[]): any =>
  JSON.parse(
    run(process.execPath, [CLI, ...args], serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }))
      .trim()
      .split('\n')
      .at(-1)!,
  );

interface Target {
  baseUrl: string;
  key: string;
}

async function api({ baseUrl, key }: Target, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** The store through the API: a site, customers, products with a variant each, ORDERS orders of two items. */
async function store(target: Target): Promise<void> {
  await api(target, 'POST', '/v1/sites', { data: { name: 'Bench', domain: 'bench.example.com' } });
  const customers = Array.from({ length: 200 }, (_, i) => ({ email: `c${i}@example.com`, firstName: `C${i}` }));
  await api(target, 'POST', '/v1/customers/import', { data: customers });
  const products = Array.from({ length: 20 }, (_, i) => ({
    slug: `p${i}`,
    title: `Product ${i}`,
    sites: ['bench.example.com'],
    variants: [{ slug: `p${i}-v`, title: `Product ${i}`, priceCents: 1000 + i * 100, currencyCode: 'USD' }],
  }));
  await api(target, 'POST', '/v1/products/import', { data: products });
  const batch = 1_000;
  for (let from = 0; from < ORDERS; from += batch) {
    const data = Array.from({ length: Math.min(batch, ORDERS - from) }, (_, k) => {
      const i = from + k;
      return {
        site: 'bench.example.com',
        customer: `c${i % 200}@example.com`,
        remoteId: `R${i}`,
        number: `#${10_000 + i}`,
        totalCents: 5000,
        subtotalCents: 5000,
        currencyCode: 'USD',
        createdAt: new Date(Date.now() - (ORDERS - i) * 60_000).toISOString(),
        items: [
          { product: `p${i % 20}`, variant: `p${i % 20}-v`, quantity: 1, unitPriceCents: 2500 },
          { product: `p${(i + 7) % 20}`, variant: `p${(i + 7) % 20}-v`, quantity: 1, unitPriceCents: 2500 },
        ],
      };
    });
    await api(target, 'POST', '/v1/orders/import', { data });
  }
}

/** The UUID v7 of an SQL timestamp expression, random elsewhere, as the application makes them. */
const v7 = (at: string) =>
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
    substring(int8send(floor(extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** EVENTS events of the organization, set-based, in chunks so each statement stays a few seconds long. */
async function events(organizationId: string): Promise<{ seconds: number; tableMb: number; total: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const chunk = 500_000;
    const span = 29 * 24 * 3600; // seconds: inside the 30-day window
    for (let from = 1; from <= EVENTS; from += chunk) {
      const to = Math.min(EVENTS, from + chunk - 1);
      await client.query(`
        insert into events (organization_id, id, name, payload, created_at, object_id)
        select '${organizationId}', ${v7('t')}, x.name, x.payload, t, x.object_id
        from generate_series(${from}, ${to}) i,
          lateral (select now() - interval '29 days' + (i::float8 / ${EVENTS}) * interval '${span} seconds' as t) times,
          lateral (select gen_random_uuid() as object_id,
            (array['order.updated', 'order.updated', 'order.deleted', 'customer.updated', 'customer.updated',
              'product.updated', 'product.updated', 'loyaltyTransaction.created', 'review.created'])[1 + i % 9]
              as name) k,
          lateral (select k.name, k.object_id,
            case when k.name like 'order.%' then json_build_object('id', k.object_id, 'siteId', '${organizationId}',
                'customerId', gen_random_uuid(), 'remoteId', 'R' || i, 'number', '#' || i, 'totalCents', 5000,
                'subtotalCents', 5000, 'shippingCents', 0, 'taxCents', 0, 'currencyCode', 'USD', 'shippedAt', null,
                'deliveredAt', null, 'cancelledAt', null, 'metadata', json_build_object('channel', 'web'), 'notes', '',
                'tags', json_build_array(), 'items', json_build_array(
                  json_build_object('id', gen_random_uuid(), 'productId', gen_random_uuid(), 'quantity', 1, 'unitPriceCents', 2500),
                  json_build_object('id', gen_random_uuid(), 'productId', gen_random_uuid(), 'quantity', 1, 'unitPriceCents', 2500)),
                'createdAt', t, 'updatedAt', t)
              else json_build_object('id', k.object_id, 'name', 'Record ' || i, 'createdAt', t, 'updatedAt', t) end
              as payload) x
        order by i`);
      log(`  inserted ${to.toLocaleString('en')} events`);
    }
    await client.query('vacuum analyze events');
    const size = await client.query(`select pg_total_relation_size('events') as bytes`);
    const count = await client.query(`select count(*)::int as n from events where organization_id = $1`, [
      organizationId,
    ]);
    return {
      seconds: (performance.now() - started) / 1000,
      tableMb: Math.round(Number(size.rows[0].bytes) / 2 ** 20),
      total: count.rows[0].n,
    };
  } finally {
    await client.end();
  }
}

interface Sample {
  dueAt: number;
  ms: number;
  status: number;
}

/** Open-loop: one GET of `path` every 1000/rate ms for `seconds`, each latency counted from when it was due. */
async function openLoop({ baseUrl, key }: Target, path: string, { rate, seconds }: { rate: number; seconds: number }) {
  const pool = new Pool(baseUrl, { connections: 128, pipelining: 1 });
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const interval = 1000 / rate;
  const start = performance.now();
  const end = start + seconds * 1000;
  let index = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (start + index * interval <= Math.min(now, end)) {
        const dueAt = start + index * interval;
        index += 1;
        const request = pool
          .request({ method: 'GET', path, headers: { authorization: `Bearer ${key}` } })
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
      if (now >= end) return resolve();
      setTimeout(tick, Math.max(0, Math.min(end, start + index * interval) - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  await pool.close();
  return {
    latency: summarize(samples.map((sample) => sample.ms)),
    errors: samples.filter((sample) => sample.status !== 200).length,
    requests: samples.length,
  };
}

async function main(): Promise<void> {
  if (!process.env.BENCH_SKIP_BUILD) build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-events-'));
  if (!reused) await sqlOn(SERVER_URL, `create database ${database}`);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    run(process.execPath, [CLI, 'migrate'], serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
    const organization = reused
      ? (await sqlOn(url, `select id from organizations where name = 'Events bench'`)).rows[0]
      : cliJson(['org', 'create', '--name', 'Events bench', '--api-requests-per-minute', '100000000', '--json']);
    const { key } = cliJson(['key', 'create', '--org', organization.id, '--json']);
    server = await startServer(
      'patron',
      [CLI, 'serve', '--no-dispatch', '--no-jobs'],
      serverEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn', PATRON_DATA_DIR: join(workDir, 'data') }),
      workDir,
    );
    let filled = { seconds: 0, tableMb: 0, total: 0 };
    if (!reused) {
      log(`importing ${ORDERS.toLocaleString('en')} orders through the API`);
      await store({ baseUrl: server.baseUrl, key });
      log(`generating ${EVENTS.toLocaleString('en')} events set-based`);
      filled = await events(organization.id);
      log(
        `  ${filled.total.toLocaleString('en')} events in ${filled.seconds.toFixed(0)} s; events is ${filled.tableMb} MB`,
      );
    }

    // The statement the events page runs, as Patron sends it, and its plan.
    const captured = await capture('GET', EVENTS_PATH, key, { database });
    const list = captured.statements.find((statement) => /as _sort/.test(statement.sql));
    if (captured.status !== 200 || !list) throw new Error(`capturing ${EVENTS_PATH}: ${JSON.stringify(captured.body)}`);
    const plan = (
      await sqlOn(url, `explain (analyze, buffers) ${list.sql.replace(/^\/\*.*?\*\/\s*/, '')}`, list.parameters)
    ).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    log(`plan of the events page:\n${plan}`);
    const usesIndex = /Index (Only )?Scan (Backward )?using events_(pkey|name_idx)/.test(plan);
    if (!usesIndex) throw new Error('the events page does not read an index of events');

    const busy = await machineBusy(3_000);
    log(
      `saturation: GET ${ORDERS_PATH}, ${CONNECTIONS} connections, ${SATURATION_S} s (machine ${busy === null ? '?' : Math.round(busy * 100)} % busy)`,
    );
    const headers = { authorization: `Bearer ${key}` };
    await autocannon({ url: `${server.baseUrl}${ORDERS_PATH}`, connections: CONNECTIONS, duration: 5, headers });
    const saturated = await autocannon({
      url: `${server.baseUrl}${ORDERS_PATH}`,
      connections: CONNECTIONS,
      duration: SATURATION_S,
      headers,
    });
    const saturation = saturated.requests.total / saturated.duration;
    const rate = Math.max(1, Math.round(saturation / 2));
    log(`  ${saturation.toFixed(0)} req/s; open-loop at ${rate}/s`);

    const rounds: { orders: LatencySummary; events: LatencySummary; errors: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const target = { baseUrl: server.baseUrl, key };
      await openLoop(target, ORDERS_PATH, { rate, seconds: 5 });
      const orders = await openLoop(target, ORDERS_PATH, { rate, seconds: DURATION_S });
      await openLoop(target, EVENTS_PATH, { rate, seconds: 5 });
      const events = await openLoop(target, EVENTS_PATH, { rate, seconds: DURATION_S });
      log(
        `  round ${round + 1}: orders p99 ${orders.latency.p99.toFixed(1)} ms, events p99 ${events.latency.p99.toFixed(1)} ms`,
      );
      rounds.push({ orders: orders.latency, events: events.latency, errors: orders.errors + events.errors });
    }
    // One request at a time as well: the cost of each page without queueing, which other work on the machine
    // disturbs far less than the p99 under load.
    const alone = { headers: { authorization: `Bearer ${key}` } };
    const ordersAlone = await sequential(`${server.baseUrl}${ORDERS_PATH}`, alone, 300);
    const eventsAlone = await sequential(`${server.baseUrl}${EVENTS_PATH}`, alone, 300);
    log(
      `  one at a time: orders p50 ${ordersAlone.p50} ms p99 ${ordersAlone.p99} ms, events p50 ${eventsAlone.p50} ms p99 ${eventsAlone.p99} ms`,
    );
    rounds.sort((a, b) => a.events.p99 / a.orders.p99 - b.events.p99 / b.orders.p99);
    const median = rounds[Math.floor(rounds.length / 2)]!;
    const ratio = median.events.p99 / median.orders.p99;
    const busyAfter = await machineBusy(3_000);
    log(
      table(
        ['', 'p50 ms', 'p99 ms'],
        [
          [ORDERS_PATH, median.orders.p50.toFixed(1), median.orders.p99.toFixed(1)],
          [EVENTS_PATH, median.events.p50.toFixed(1), median.events.p99.toFixed(1)],
        ],
      ),
    );
    log(`  ratios by round: ${rounds.map((each) => (each.events.p99 / each.orders.p99).toFixed(2)).join(', ')}`);
    log(
      `events p99 / orders p99 = ${ratio.toFixed(2)} at ${rate}/s (half of ${saturation.toFixed(0)}/s), ${filled.total || 'reused'} events, errors ${median.errors}; target ≤ ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
    );
    saveResult('events-list', {
      events: filled.total,
      orders: ORDERS,
      saturationPerSec: saturation,
      ratePerSec: rate,
      rounds,
      ratio,
      target: TARGET_RATIO,
      sequential: { orders: ordersAlone, events: eventsAlone },
      plan,
      machineBusyBefore: busy,
      machineBusyAfter: busyAfter,
    });
  } finally {
    await server?.stop();
    await rm(workDir, { recursive: true, force: true });
    if (!process.env.BENCH_KEEP && !reused) await sqlOn(SERVER_URL, `drop database ${database}`);
    else log(`kept database ${database} (BENCH_DATABASE=${database} reuses it)`);
  }
}

await main();
