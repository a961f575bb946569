// Reviews list (issue 6 item 1): GET /v1/reviews pages, sorts, filters, search and a deep cursor page over many
// reviews, to check that each is served by an index of migration 0012 (a sequential scan shows as a latency that
// grows with the organization's reviews).
//
//   node --import tsx bench/reviews-list.ts
//
// PostgreSQL only (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres). The dataset lives in its own
// database, patron_bench_reviews, generated with set-based SQL when missing or when its size differs (BENCH_FRESH=1
// regenerates): BENCH_ORGS organizations (10) of BENCH_REVIEWS_PER_ORG reviews (100,000), 5,000 customers and 1,000
// products each; review text drawn from a small vocabulary plus one rare word per 1,000 reviews. Requests are made in
// process (app.inject, no network), one at a time, BENCH_SEQUENTIAL per scenario (200) after 20 warm-up requests, on
// the first organization; the figure is p50/p99 in ms. Quick check on a small dataset:
//   BENCH_ORGS=2 BENCH_REVIEWS_PER_ORG=2000 BENCH_SEQUENTIAL=20 node --import tsx bench/reviews-list.ts
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createKey } from '../src/auth/keys.js';
import { createRuntime } from '../src/compose.js';
import { loadConfig } from '../src/config/index.js';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'patron_bench_reviews';
const ORGS = Number(process.env.BENCH_ORGS ?? 10);
const REVIEWS_PER_ORG = Number(process.env.BENCH_REVIEWS_PER_ORG ?? 100_000);
const CUSTOMERS_PER_ORG = 5_000;
const PRODUCTS_PER_ORG = 1_000;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const WARMUP = 20;
const log = (line: string) => process.stderr.write(line + '\n');

function databaseUrl(): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(
  url: string,
  statement: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** Organizations, customers, products and reviews in a handful of set-based statements. */
async function generate(): Promise<void> {
  const url = databaseUrl();
  log(`generating ${ORGS} × ${REVIEWS_PER_ORG} reviews…`);
  const words = [
    'fit',
    'quality',
    'delivery',
    'fabric',
    'color',
    'size',
    'comfortable',
    'great',
    'poor',
    'soft',
    'late',
    'perfect',
    'cheap',
    'sturdy',
  ];
  const statements = [
    `insert into organizations (id, name, timezone, api_requests_per_minute)
      select gen_random_uuid(), 'Bench reviews ' || lpad(o::text, 2, '0'), 'UTC', 100000000 from generate_series(1, ${ORGS}) o`,
    `insert into customers (organization_id, id, email, first_name, last_name, metadata)
      select o.id, gen_random_uuid(), 'shopper' || c || '@example.com', 'First' || c, 'Last' || c, '{}'
      from organizations o cross join generate_series(1, ${CUSTOMERS_PER_ORG}) c`,
    `insert into products (organization_id, id, slug, title, description, image_url, url, metadata)
      select o.id, gen_random_uuid(), 'product-' || p, 'Product ' || p, '', '', '', '{}'
      from organizations o cross join generate_series(1, ${PRODUCTS_PER_ORG}) p`,
    `with c as (select organization_id, array_agg(id order by email) ids from customers group by organization_id),
          p as (select organization_id, array_agg(id order by slug) ids from products group by organization_id)
     insert into reviews (organization_id, id, product_id, customer_id, remote_id, rating, title, body, published, verified_buyer,
       flagged, language, metadata, created_at, updated_at)
     select o.id, gen_random_uuid(), p.ids[1 + ((r * 7919) % ${PRODUCTS_PER_ORG})::int], c.ids[1 + ((r * 104729) % ${CUSTOMERS_PER_ORG})::int], 'rv-' || r,
       (1 + (r * 31) % 5)::int,
       initcap((array[${words.map((w) => `'${w}'`).join(',')}])[1 + (r % ${words.length})::int]) || ' review',
       (array[${words.map((w) => `'${w}'`).join(',')}])[1 + ((r * 3) % ${words.length})::int] || ' and ' ||
         (array[${words.map((w) => `'${w}'`).join(',')}])[1 + ((r * 5) % ${words.length})::int] || ', would buy again. ' ||
         case when r % 1000 = 0 then 'zanzibar ' else '' end || 'Order ' || r,
       r % 5 <> 0, r % 3 = 0, r % 97 = 0, case when r % 2 = 0 then 'en' end, '{}',
       now() - make_interval(mins => r::int), now() - make_interval(mins => r::int)
     from organizations o join c on c.organization_id = o.id join p on p.organization_id = o.id
     cross join generate_series(1::bigint, ${REVIEWS_PER_ORG}) r`,
    'analyze',
  ];
  for (const statement of statements) await query(url, statement);
}

async function ensureDataset(): Promise<void> {
  const exists =
    (await query<{ n: string }>(ADMIN_URL, 'select count(*) n from pg_database where datname = $1', [DATABASE]))[0]!
      .n !== '0';
  if (exists && process.env.BENCH_FRESH !== '1') {
    const [row] = await query<{ orgs: string; reviews: string }>(
      databaseUrl(),
      `select (select count(*) from organizations) orgs, (select count(*) from reviews) reviews`,
    ).catch(() => [{ orgs: '0', reviews: '0' }]);
    if (Number(row!.orgs) === ORGS && Number(row!.reviews) === ORGS * REVIEWS_PER_ORG) return;
  }
  await query(ADMIN_URL, `drop database if exists ${DATABASE} with (force)`);
  await query(ADMIN_URL, `create database ${DATABASE}`);
  // Migrate through the runtime (it migrates on open), then fill.
  const runtime = await createRuntime(
    { ...loadConfig({}), databaseUrl: databaseUrl(), logLevel: 'silent' },
    { logger: false },
  );
  await runtime.close();
  await generate();
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  await ensureDataset();
  const runtime = await createRuntime(
    { ...loadConfig({}), databaseUrl: databaseUrl(), logLevel: 'silent' },
    { logger: false },
  );
  try {
    const db = runtime.database.db;
    const org = await db.selectFrom('organizations').select('id').orderBy('name').executeTakeFirstOrThrow();
    const { key } = await createKey(db, { organizationId: org.id, permissions: ['reviews:read'] });
    const product = await db
      .selectFrom('products')
      .select('id')
      .where('organization_id', '=', org.id)
      .where('slug', '=', 'product-1')
      .executeTakeFirstOrThrow();
    const get = async (url: string) => {
      const response = await runtime.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      return response.json() as { data: { id: string }[]; nextCursor: string | null };
    };
    const f = (document: unknown) => encodeURIComponent(JSON.stringify(document));

    // A cursor deep in the default order (after 5,000 rows, or the middle of a small dataset).
    const deepRows = Math.min(5_000, Math.floor(REVIEWS_PER_ORG / 2));
    let cursor: string | null = null;
    for (let seen = 0; seen < deepRows;) {
      const page: { data: { id: string }[]; nextCursor: string | null } = await get(
        `/v1/reviews?limit=250${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen += page.data.length;
      cursor = page.nextCursor;
      if (!cursor) break;
    }

    const scenarios: [string, string][] = [
      ['first page (-createdAt)', '/v1/reviews'],
      [`deep page (after ${deepRows})`, `/v1/reviews${cursor ? `?cursor=${cursor}` : ''}`],
      ['sort -rating', '/v1/reviews?sort=-rating'],
      ['sort updatedAt', '/v1/reviews?sort=updatedAt'],
      ['productId (newest first)', `/v1/reviews?filter=${f({ productId: product.id })}`],
      ['published + rating ≥ 4', `/v1/reviews?filter=${f({ published: true, rating: { $gte: 4 } })}`],
      ['flagged', `/v1/reviews?filter=${f({ flagged: true })}`],
      ['product.slug', `/v1/reviews?filter=${f({ 'product.slug': 'product-7' })}`],
      ['customer.email', `/v1/reviews?filter=${f({ 'customer.email': 'shopper42@example.com' })}`],
      ['search rare word (zanzibar)', '/v1/reviews?search=zanzibar'],
      ['search common word (sturdy)', '/v1/reviews?search=sturdy'],
      ['search customer email (shopper4242@)', '/v1/reviews?search=shopper4242%40'],
      ['include=customer,product', '/v1/reviews?include=customer,product'],
    ];
    const results: { scenario: string; rows: number; p50: number; p99: number }[] = [];
    for (const [scenario, url] of scenarios) {
      const rows = (await get(url)).data.length;
      for (let i = 0; i < WARMUP; i++) await get(url);
      const times: number[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) {
        const start = performance.now();
        await get(url);
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      results.push({
        scenario,
        rows,
        p50: Number(percentile(times, 50).toFixed(2)),
        p99: Number(percentile(times, 99).toFixed(2)),
      });
      log(
        `${scenario}: ${rows} rows, p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`,
      );
    }
    process.stdout.write(
      JSON.stringify({ orgs: ORGS, reviewsPerOrg: REVIEWS_PER_ORG, sequential: SEQUENTIAL, results }, null, 2) + '\n',
    );
  } finally {
    await runtime.close();
  }
}

await main();
