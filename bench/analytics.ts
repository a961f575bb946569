// Issue 7 figures: POST /v1/analytics/query on 1,000,000 orders of one organization over two years (PostgreSQL):
//   1. orders revenue by day for a year (2025) in Europe/Berlin with fillGaps: p50 ≤ 300 ms;
//   2. orders count by currencyCode and tags.name, limit 10 with Other: p50 ≤ 500 ms;
//   each within 1.2 × the best hand-written SQL for the same answer, measured in the same run.
//
//   node --import tsx bench/analytics.ts
//
// Dataset: bench/datasets/analytics-dataset.ts (generated when missing). Patron runs in this process (createRuntime on the
// bench database, requests through app.inject: routing, authentication, rate limit, validation, the statement and
// the JSON serialization are all in the time). The hand-written SQL runs on a pg pool with Patron's session settings
// (jit off), its rows read by the driver. Every hand-written variant must give the same answer as the API (checked
// before timing); the fastest variant's p50 is the floor. Runs alternate API / variants, so background load hits
// both alike. EXPLAIN (ANALYZE, BUFFERS) of Patron's statement and of the best variant is printed for each figure.
// Tunables (env): BENCH_RUNS (15 timed runs of each), BENCH_WARMUP (3), BENCH_ONLY=revenue|tags, BENCH_EXPLAIN=0.
import pg from 'pg';
import { createRuntime } from '../src/compose.js';
import { loadConfig } from '../src/config/index.js';
import { compileSelection } from '../src/lists/engine.js';
import { planQuery } from '../src/resources/analytics/plan.js';
import { analyticsStatement } from '../src/resources/analytics/queries.js';
import type { AnalyticsQueryBody } from '../src/resources/analytics/schemas.js';
import { ensureAnalyticsDataset, log, TIMEZONE } from './datasets/analytics-dataset.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ONLY = process.env.BENCH_ONLY;
const EXPLAIN = process.env.BENCH_EXPLAIN !== '0';

interface Variant {
  name: string;
  sql: string;
  params: (organizationId: string) => unknown[];
  /** The variant's rows as the API's rows, to compare the answers. */
  toApi: (rows: Record<string, unknown>[]) => Record<string, unknown>[];
}

interface Figure {
  name: string;
  targetMs: number;
  body: AnalyticsQueryBody;
  variants: Variant[];
}

const YEAR_FROM = '2025-01-01T00:00:00+01:00';
const YEAR_TO = '2026-01-01T00:00:00+01:00';
const iso = (value: unknown) => new Date(value as string).toISOString();

const FIGURES: Figure[] = [
  {
    name: 'revenue',
    targetMs: 300,
    body: {
      resource: 'orders',
      measures: ['revenue'],
      groupBy: ['createdAt'],
      granularity: 'day',
      timezone: TIMEZONE,
      fillGaps: true,
      filter: JSON.stringify({ createdAt: { $gte: YEAR_FROM, $lt: YEAR_TO } }),
    },
    variants: [
      {
        name: 'group by date_trunc in the zone, left join a generate_series of local days',
        sql: `with days as (
                select date_trunc('day', created_at, $4) as day, sum(total_cents) as revenue
                from orders where organization_id = $1 and created_at >= $2 and created_at < $3
                group by 1)
              select s.day, coalesce(d.revenue, 0)::float8 as revenue
              from (select local_day at time zone $4 as day
                    from generate_series(date_trunc('day', $2::timestamptz at time zone $4), ($3::timestamptz - interval '1 microsecond') at time zone $4, interval '1 day') local_day) s
              left join days d on d.day = s.day
              order by s.day`,
        params: (org) => [org, YEAR_FROM, YEAR_TO, TIMEZONE],
        toApi: (rows) => rows.map((row) => ({ createdAt: iso(row.day), revenue: Number(row.revenue) })),
      },
      {
        name: 'group by the local date ((created_at at time zone) :: date), series of dates',
        sql: `with days as (
                select (created_at at time zone $4)::date as day, sum(total_cents) as revenue
                from orders where organization_id = $1 and created_at >= $2 and created_at < $3
                group by 1)
              select s.day::timestamp at time zone $4 as day, coalesce(d.revenue, 0)::float8 as revenue
              from generate_series(($2::timestamptz at time zone $4)::date, (($3::timestamptz - interval '1 microsecond') at time zone $4)::date, interval '1 day') s(day)
              left join days d on d.day = s.day::date
              order by s.day`,
        params: (org) => [org, YEAR_FROM, YEAR_TO, TIMEZONE],
        toApi: (rows) => rows.map((row) => ({ createdAt: iso(row.day), revenue: Number(row.revenue) })),
      },
      {
        name: 'sum per 15-minute slot (date_bin), then bucket the slots in the zone (exact for Berlin)',
        sql: `with slots as (
                select date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') as slot, sum(total_cents) as revenue
                from orders where organization_id = $1 and created_at >= $2 and created_at < $3
                group by 1),
              days as (select date_trunc('day', slot, $4) as day, sum(revenue) as revenue from slots group by 1)
              select s.day, coalesce(d.revenue, 0)::float8 as revenue
              from (select local_day at time zone $4 as day
                    from generate_series(date_trunc('day', $2::timestamptz at time zone $4), ($3::timestamptz - interval '1 microsecond') at time zone $4, interval '1 day') local_day) s
              left join days d on d.day = s.day
              order by s.day`,
        params: (org) => [org, YEAR_FROM, YEAR_TO, TIMEZONE],
        toApi: (rows) => rows.map((row) => ({ createdAt: iso(row.day), revenue: Number(row.revenue) })),
      },
    ],
  },
  {
    name: 'tags',
    targetMs: 500,
    body: { resource: 'orders', measures: ['count'], groupBy: ['currencyCode', 'tags.name'], limit: 10 },
    variants: [
      {
        name: 'join order_tags and tags, group, rank, sum the rest',
        sql: `with combos as (
                select o.currency_code, t.name, count(*) as n
                from orders o
                left join order_tags ot on ot.organization_id = o.organization_id and ot.order_id = o.id
                left join tags t on t.organization_id = ot.organization_id and t.id = ot.tag_id
                where o.organization_id = $1
                group by 1, 2),
              ranked as (select *, row_number() over (order by n desc, currency_code collate "C", name collate "C" nulls last) as rank from combos)
              select currency_code, name, n, rank from ranked where rank <= 10
              union all
              select 'Other', 'Other', sum(n), 11 from ranked where rank > 10 having count(*) > 0
              order by n desc, rank`,
        params: (org) => [org],
        toApi: (rows) =>
          rows.map((row) => ({ currencyCode: row.currency_code, 'tags.name': row.name, count: Number(row.n) })),
      },
      {
        name: 'group by tag id first, name the ten after',
        sql: `with combos as (
                select o.currency_code, ot.tag_id, count(*) as n
                from orders o
                left join order_tags ot on ot.organization_id = o.organization_id and ot.order_id = o.id
                where o.organization_id = $1
                group by 1, 2),
              named as (select c.currency_code, t.name, c.n from combos c left join tags t on t.organization_id = $1 and t.id = c.tag_id),
              ranked as (select *, row_number() over (order by n desc, currency_code collate "C", name collate "C" nulls last) as rank from named)
              select currency_code, name, n, rank from ranked where rank <= 10
              union all
              select 'Other', 'Other', sum(n), 11 from ranked where rank > 10 having count(*) > 0
              order by n desc, rank`,
        params: (org) => [org],
        toApi: (rows) =>
          rows.map((row) => ({ currencyCode: row.currency_code, 'tags.name': row.name, count: Number(row.n) })),
      },
    ],
  },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function explain(pool: pg.Pool, label: string, text: string, params: unknown[]): Promise<void> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, params);
  log(`  ${label}\n${rows.map((row) => `      ${row['QUERY PLAN']}`).join('\n')}`);
}

async function main(): Promise<void> {
  const dataset = await ensureAnalyticsDataset({ fresh: process.argv.includes('--fresh') });
  const config = loadConfig({
    DATABASE_URL: dataset.databaseUrl,
    LOG_LEVEL: 'warn',
    PATRON_SECRET_KEY: 'analytics-bench-secret-0123456789abcdef',
  });
  const runtime = await createRuntime(config, { logger: false });
  // Patron's own session settings (src/db/engine.ts): no JIT.
  const pool = new pg.Pool({ connectionString: dataset.databaseUrl, max: 2, options: '-c jit=off' });
  const results: Record<string, unknown>[] = [];
  try {
    await runtime.app.ready();
    const post = async (body: AnalyticsQueryBody) => {
      const response = await runtime.app.inject({
        method: 'POST',
        url: '/v1/analytics/query',
        headers: { authorization: `Bearer ${dataset.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      if (response.statusCode !== 200)
        throw new Error(`POST /v1/analytics/query answered ${response.statusCode}: ${response.body}`);
      return response.json<{ data: Record<string, unknown>[] }>().data;
    };
    for (const figure of FIGURES.filter((f) => !ONLY || f.name === ONLY)) {
      log(`\n${figure.name}: ${JSON.stringify(figure.body)}`);
      const answer = await post(figure.body);
      for (const variant of figure.variants) {
        const { rows } = await pool.query(variant.sql, variant.params(dataset.organizationId));
        const mine = JSON.stringify(variant.toApi(rows));
        if (mine !== JSON.stringify(answer))
          throw new Error(
            `${figure.name}: "${variant.name}" answers differently:\n${mine.slice(0, 400)}\nvs API\n${JSON.stringify(answer).slice(0, 400)}`,
          );
      }
      log(`  ${answer.length} rows; every hand-written variant gives the same answer`);

      const timings: number[][] = [[], ...figure.variants.map(() => [])];
      for (let run = 0; run < WARMUP + RUNS; run++) {
        let t0 = performance.now();
        await post(figure.body);
        if (run >= WARMUP) timings[0]!.push(performance.now() - t0);
        for (const [index, variant] of figure.variants.entries()) {
          t0 = performance.now();
          await pool.query(variant.sql, variant.params(dataset.organizationId));
          if (run >= WARMUP) timings[index + 1]!.push(performance.now() - t0);
        }
      }
      const api = median(timings[0]!);
      const floors = figure.variants.map((variant, index) => ({
        name: variant.name,
        p50: median(timings[index + 1]!),
      }));
      const best = floors.reduce((a, b) => (b.p50 < a.p50 ? b : a));
      log(
        `  API p50 ${api.toFixed(1)} ms (target ≤ ${figure.targetMs} ms: ${api <= figure.targetMs ? 'met' : 'NOT met'})`,
      );
      for (const floor of floors) log(`  SQL p50 ${floor.p50.toFixed(1)} ms  ${floor.name}`);
      const ratio = api / best.p50;
      log(`  ratio API / best SQL = ${ratio.toFixed(2)} (target ≤ 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'})`);
      results.push({
        figure: figure.name,
        apiP50Ms: api,
        bestSqlP50Ms: best.p50,
        best: best.name,
        ratio,
        rows: answer.length,
        runs: RUNS,
      });

      if (EXPLAIN) {
        const plan = planQuery(figure.body);
        const selection = compileSelection(
          plan.source.list,
          dataset.organizationId,
          { filter: plan.filter },
          { filterPath: 'body.filter' },
        );
        const compiled = analyticsStatement(plan, dataset.organizationId, selection).compile(runtime.database.db);
        await explain(pool, "Patron's statement", compiled.sql, [...compiled.parameters]);
        const variant = figure.variants.find((v) => v.name === best.name)!;
        await explain(pool, `best hand-written: ${variant.name}`, variant.sql, variant.params(dataset.organizationId));
      }
    }
    process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  } finally {
    await pool.end();
    await runtime.close();
  }
}

await main();
