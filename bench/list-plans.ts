// The generic plans of the prepared list statements, checked on the large datasets before they are relied on.
//
//   npm run bench:list-plans
//
// List pages and their includes are prepared per connection (src/db/prepared.ts), and after five executions
// PostgreSQL may answer a prepared statement with one generic plan, made without knowing the parameters: the
// organization, the cursor, the filter's values. A generic plan that is fine for an organization of 20,000 orders
// could be a disaster for one of 1,000,000. For each route below this script captures the statements Patron runs for
// one request (harness `capture`), prepares each on a fresh connection and times it with EXPLAIN ANALYZE twice:
// planned for its parameters (plan_cache_mode force_custom_plan) and generically (force_generic_plan), median of
// BENCH_RUNS executions each. Then it executes it ten times under the default mode (auto) and reads from
// pg_prepared_statements which plan PostgreSQL chose. A statement passes when its generic plan runs within 2 × its
// custom plan + 0.5 ms, or when PostgreSQL keeps planning it per execution anyway (auto chose custom plans).
//
// Datasets (built when missing): the analytics dataset (one organization of 1,000,000 orders), the store dataset (50
// organizations of 20,000 orders, 2,000 products and 400 reviews each), and the loyalty dataset (1,000,000 rewards on
// the store) unless BENCH_LOYALTY=0. Tunables: BENCH_RUNS (5).
import pg from 'pg';
import { ensureAnalyticsDataset } from './datasets/analytics-dataset.js';
import { COMMON_TAG, ensureDataset } from './datasets/store-dataset.js';
import { ensureLoyaltyDataset } from './datasets/loyalty-dataset.js';
import { capture, log, saveResult, table } from './support/harness.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GENERIC_MAX_RATIO = 2;
const GENERIC_SLACK_MS = 0.5;
const PREPARE_MARKER = '/* prepared */ ';

interface Route {
  name: string;
  database: string;
  key: string;
  path: string;
}

interface StatementCheck {
  route: string;
  statement: string;
  customMs: number;
  genericMs: number;
  /** What plan_cache_mode auto used for the last of ten executions: generic or custom. */
  autoChose: 'generic' | 'custom';
  genericPlan: string;
  ok: boolean;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const query = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params).toString()}`;

/** The plan's node types, outermost first, as one line (e.g. "Limit > Nested Loop > Index Scan orders_…"). */
function planShape(plan: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    parts.push(`${String(node['Node Type'])}${node['Index Name'] ? ` ${String(node['Index Name'])}` : ''}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan);
  return parts.join(' > ');
}

async function checkRoute(route: Route): Promise<StatementCheck[]> {
  const { status, body, statements } = await capture('GET', route.path, route.key, { database: route.database });
  if (status !== 200) throw new Error(`${route.name}: GET ${route.path} answered ${status}: ${JSON.stringify(body)}`);
  const prepared = statements.filter((s) => s.sql.startsWith(PREPARE_MARKER) && !/api_keys/.test(s.sql));
  log(`${route.name}: ${statements.length} statements, ${prepared.length} prepared`);
  const checks: StatementCheck[] = [];
  for (const [index, statement] of prepared.entries()) {
    const client = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:5432/${route.database}`,
      options: '-c jit=off',
    });
    await client.connect();
    try {
      const name = `check_${index}`;
      await client.query({ name, text: statement.sql, values: statement.parameters });
      // EXPLAIN EXECUTE takes no bound parameters: the values go in as literals, cast by the statement's own types.
      const literal = (value: unknown) =>
        value === null || value === undefined
          ? 'NULL'
          : client.escapeLiteral(
              value instanceof Date
                ? value.toISOString()
                : typeof value === 'object'
                  ? JSON.stringify(value)
                  : String(value),
            );
      const placeholders = statement.parameters.map(literal).join(', ');
      const explain = async (mode: string) => {
        await client.query(`set plan_cache_mode = ${mode}`);
        const times: number[] = [];
        let plan: Record<string, unknown> = {};
        for (let run = 0; run < RUNS; run++) {
          const { rows } = await client.query<{
            'QUERY PLAN': [{ Plan: Record<string, unknown>; 'Execution Time': number; 'Planning Time': number }];
          }>(`explain (analyze, format json) execute ${name}(${placeholders})`);
          const [result] = rows[0]!['QUERY PLAN'];
          times.push(result['Execution Time'] + result['Planning Time']);
          plan = result.Plan;
        }
        return { ms: median(times), plan };
      };
      const custom = await explain('force_custom_plan');
      const generic = await explain('force_generic_plan');
      await client.query('set plan_cache_mode = auto');
      // A fresh statement, so that auto's choice is made from its own first executions.
      await client.query({ name: `${name}_auto`, text: statement.sql, values: statement.parameters });
      for (let run = 0; run < 10; run++) {
        await client.query({ name: `${name}_auto`, text: statement.sql, values: statement.parameters });
      }
      const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
        `select generic_plans, custom_plans from pg_prepared_statements where name = $1`,
        [`${name}_auto`],
      );
      const autoChose = Number(rows[0]?.generic_plans ?? 0) > 0 ? 'generic' : 'custom';
      const ok = autoChose === 'custom' || generic.ms <= GENERIC_MAX_RATIO * custom.ms + GENERIC_SLACK_MS;
      checks.push({
        route: route.name,
        statement: statement.sql.slice(PREPARE_MARKER.length).replace(/\s+/g, ' ').trim().slice(0, 90),
        customMs: custom.ms,
        genericMs: generic.ms,
        autoChose,
        genericPlan: planShape(generic.plan),
        ok,
      });
    } finally {
      await client.end();
    }
  }
  return checks;
}

async function main(): Promise<void> {
  const analytics = await ensureAnalyticsDataset();
  const store = await ensureDataset();
  const storeOrg = store.organizations['1']!;
  const since = new Date(Date.now() - 365 * 86_400_000).toISOString();
  const analyticsTag = await (async () => {
    const client = new pg.Client({ connectionString: analytics.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        'select name from tags where organization_id = $1 order by name limit 1',
        [analytics.organizationId],
      );
      return rows[0]!.name;
    } finally {
      await client.end();
    }
  })();
  const { rows: products } = await (async () => {
    const client = new pg.Client({ connectionString: store.databaseUrl });
    await client.connect();
    try {
      return await client.query<{ id: string }>('select id from products where organization_id = $1 limit 1', [
        storeOrg.id,
      ]);
    } finally {
      await client.end();
    }
  })();
  const ordersPage = (filter: object) =>
    query('/v1/orders', { limit: '50', include: 'customer,items', filter: JSON.stringify(filter) });
  const routes: Route[] = [
    {
      name: 'orders page, 1,000,000-order organization (createdAt + tags.name)',
      database: 'patron_bench_analytics',
      key: analytics.key,
      path: ordersPage({ createdAt: { $gte: '2025-01-01T00:00:00.000Z' }, 'tags.name': analyticsTag }),
    },
    {
      name: 'orders page, 1,000,000-order organization (no filter)',
      database: 'patron_bench_analytics',
      key: analytics.key,
      path: query('/v1/orders', { limit: '50', include: 'customer,items' }),
    },
    {
      name: 'orders page, 20,000-order organization (createdAt + tags.name)',
      database: 'patron_bench_store',
      key: storeOrg.key,
      path: ordersPage({ createdAt: { $gte: since }, 'tags.name': COMMON_TAG }),
    },
    {
      name: 'reviews page, store organization',
      database: 'patron_bench_store',
      key: storeOrg.key,
      path: query('/v1/reviews', { limit: '50', include: 'customer,product' }),
    },
    {
      name: 'GET /v1/products/{id}, every include',
      database: 'patron_bench_store',
      key: storeOrg.key,
      path: query(`/v1/products/${products[0]!.id}`, {
        include: 'importJob,reviewsCount,wishlistsCount,variantsCount,tags,variants',
      }),
    },
  ];
  if (process.env.BENCH_LOYALTY !== '0') {
    const loyalty = await ensureLoyaltyDataset();
    const org = loyalty.organizations['1']!;
    const client = new pg.Client({ connectionString: loyalty.databaseUrl });
    await client.connect();
    const { rows } = await client
      .query<{ email: string }>(
        `select c.email from loyalty_rewards r join customers c on c.organization_id = r.organization_id and c.id = r.customer_id
         where r.organization_id = $1 and c.email is not null limit 1`,
        [org.id],
      )
      .finally(() => client.end());
    routes.push({
      name: 'rewards page (customer.email)',
      database: 'patron_bench_store',
      key: org.key,
      path: query('/v1/loyalty-rewards', {
        limit: '50',
        include: 'customer,membership,rule',
        filter: JSON.stringify({ 'customer.email': rows[0]!.email }),
      }),
    });
  }

  const checks: StatementCheck[] = [];
  for (const route of routes) checks.push(...(await checkRoute(route)));
  console.log(
    table(
      ['route', 'statement', 'custom ms', 'generic ms', 'auto chose', 'ok'],
      checks.map((check) => [
        check.route,
        check.statement,
        check.customMs.toFixed(2),
        check.genericMs.toFixed(2),
        check.autoChose,
        check.ok ? 'yes' : 'NO',
      ]),
    ),
  );
  for (const check of checks.filter((c) => c.autoChose === 'generic' || !c.ok)) {
    console.log(`${check.ok ? 'generic plan' : 'BAD generic plan'} (${check.route}): ${check.genericPlan}`);
  }
  const failed = checks.filter((check) => !check.ok);
  const result = {
    runs: RUNS,
    checks: checks.map(({ genericPlan: _plan, ...rest }) => ({
      ...rest,
      customMs: Math.round(rest.customMs * 100) / 100,
      genericMs: Math.round(rest.genericMs * 100) / 100,
    })),
    statements: checks.length,
    failed: failed.length,
  };
  saveResult('list-plans', result);
  console.log(`RESULT ${JSON.stringify({ statements: checks.length, failed: failed.length })}`);
  if (failed.length > 0) process.exitCode = 1;
}

await main();
