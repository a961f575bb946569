// The analytics dataset of issue 7: one organization with 1,000,000 orders over two years.
//
//   node --import tsx bench/datasets/analytics-dataset.ts            reuse patron_bench_analytics when it holds the expected rows
//   node --import tsx bench/datasets/analytics-dataset.ts --fresh    drop it and generate again
//
// Database patron_bench_analytics on the local PostgreSQL (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/
// postgres), generated set-based (generate_series, insert … select) in one transaction:
//   organization "Analytics bench" (time zone Europe/Berlin, rate-limit ceiling 100,000,000 a minute), 3 sites,
//   50,000 customers (8 countries), 30 order tags, 1,000,000 orders placed from 2024-01-01 to 2025-12-31 in Berlin
//   (uniform over the two years, none on 25 December, so a daily series has real gaps), a random customer and site,
//   totals 5.00..500.00, 8 currencies (EUR about half, a long tail), metadata {"channel": web|pos|app}; tags: each
//   order gets up to three of the 30 (about 1.1 on average, the first tags far more often), ~1.1 M order_tags rows.
//   Orders are written in createdAt order, as a store's history arrives. VACUUM (ANALYZE) at the end, so index-only
//   scans see an all-visible table. No order items: the analytics figures do not read them.
// The API key (permissions all) goes to bench/results/analytics-key.json (gitignored) and is reused while valid.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createKey, hashKey } from '../../src/auth/keys.js';
import { bulkLoad, prepareDataset } from './store-dataset.js';
import { openDatabase } from '../../src/db/engine.js';

export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATABASE = 'patron_bench_analytics';
export const ORGANIZATION = 'Analytics bench';
export const TIMEZONE = 'Europe/Berlin';
export const ORDERS = 1_000_000;
export const CUSTOMERS = 50_000;
export const SITES = 3;
export const TAGS = 30;
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'PLN', 'DKK', 'NOK'];
/** The two Berlin years the orders cover: [from, to). */
export const FROM_LOCAL = '2024-01-01 00:00';
export const TO_LOCAL = '2026-01-01 00:00';
const ROOT = new URL('../..', import.meta.url).pathname;
const KEY_FILE = join(ROOT, 'bench/results/analytics-key.json');

export const log = (line: string) => process.stderr.write(line + '\n');

export function databaseUrl(database = DATABASE): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface AnalyticsDataset {
  databaseUrl: string;
  organizationId: string;
  key: string;
  counts: Record<string, number>;
  generatedSeconds: number | null;
}

const EXPECTED = { organizations: 1, customers: CUSTOMERS, orders: ORDERS, tags: TAGS };

async function counts(client: pg.Client): Promise<Record<string, number>> {
  const scope = `organization_id in (select id from organizations where name = '${ORGANIZATION}')`;
  const { rows } = await client.query<Record<string, string>>(`select
    (select count(*) from organizations where name = '${ORGANIZATION}') as organizations,
    (select count(*) from customers where ${scope}) as customers,
    (select count(*) from orders where ${scope}) as orders,
    (select count(*) from tags where ${scope}) as tags,
    (select count(*) from order_tags where ${scope}) as order_tags`);
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

const quoted = (values: readonly string[]) => `array[${values.map((value) => `'${value}'`).join(', ')}]`;

/** Every step set-based; ids from gen_random_uuid (the figures do not depend on their order). */
function steps(): [string, string][] {
  const window = `(timestamp '${FROM_LOCAL}' at time zone '${TIMEZONE}')`;
  const span = `((timestamp '${TO_LOCAL}' at time zone '${TIMEZONE}') - ${window})`;
  return [
    [
      'organization, sites, customers, tags',
      `insert into organizations (id, name, timezone, api_requests_per_minute) values (gen_random_uuid(), '${ORGANIZATION}', '${TIMEZONE}', 100000000);
       create temp table b_org as select id from organizations where name = '${ORGANIZATION}';
       insert into loyalty_programs (organization_id, id, name) select id, gen_random_uuid(), 'Loyalty program' from b_org;
       create temp table b_sites as select g as ord, gen_random_uuid() as id from generate_series(1, ${SITES}) g;
       insert into sites (organization_id, id, name, domain, platform, currency_code)
         select o.id, s.id, 'Shop ' || s.ord, 'shop-' || s.ord || '.example.com', 'shopify', 'EUR' from b_org o, b_sites s;
       create temp table b_customers as select g as ord, gen_random_uuid() as id from generate_series(1, ${CUSTOMERS}) g;
       insert into customers (organization_id, id, email, country, created_at, updated_at)
         select o.id, c.id, 'customer' || c.ord || '@example.com',
                (array['DE', 'AT', 'CH', 'FR', 'NL', 'GB', 'US', 'PL'])[1 + floor(power(random(), 2) * 8)::int],
                ${window}, ${window}
         from b_org o, b_customers c;
       create temp table b_tags as select g as ord, gen_random_uuid() as id from generate_series(1, ${TAGS}) g;
       insert into tags (organization_id, id, kind, name) select o.id, t.id, 'order', 'tag-' || lpad(t.ord::text, 2, '0') from b_org o, b_tags t;
       create index on b_customers (ord); create index on b_tags (ord); analyze b_customers; analyze b_tags; analyze b_sites`,
    ],
    [
      'orders',
      `insert into orders (organization_id, id, site_id, customer_id, remote_id, number, total_cents, subtotal_cents, currency_code,
                           metadata, earn_loyalty, created_at, updated_at)
         select o.id, gen_random_uuid(), s.id, c.id, 'R' || x.ord, '#' || (100000 + x.ord), x.total, x.total,
                (${quoted(CURRENCIES)})[1 + floor(power(x.r, 3) * ${CURRENCIES.length})::int],
                jsonb_build_object('channel', (array['web', 'pos', 'app'])[1 + floor(x.r * 3)::int]),
                false, x.created_at, x.created_at
         from (select g as ord, random() as r, (500 + floor(random() * 49500))::bigint as total,
                      1 + floor(random() * ${CUSTOMERS})::int as customer_ord, 1 + floor(random() * ${SITES})::int as site_ord,
                      ${window} + random() * ${span} as created_at
               from generate_series(1, ${ORDERS}) g) x
         cross join b_org o
         join b_customers c on c.ord = x.customer_ord
         join b_sites s on s.ord = x.site_ord
         order by x.created_at`,
    ],
    [
      'closed on 25 December',
      // Christmas orders move a day on, so the series has empty days (the gaps fillGaps materialises).
      `update orders set created_at = created_at + interval '1 day', updated_at = updated_at + interval '1 day'
       where organization_id = (select id from b_org)
         and to_char(created_at at time zone '${TIMEZONE}', 'MM-DD') = '12-25'`,
    ],
    [
      'order tags',
      // Up to three picks per order from a skewed distribution (tag-01 most often); a repeated pick collapses.
      `insert into order_tags (organization_id, order_id, tag_id)
         select distinct p.organization_id, p.order_id, t.id
         from (select o.organization_id, o.id as order_id, k, random() as r, 1 + floor(power(random(), 2.5) * ${TAGS})::int as tag_ord
               from orders o cross join generate_series(1, 3) k
               where o.organization_id = (select id from b_org)) p
         join b_tags t on t.ord = p.tag_ord
         where p.r < (array[0.6, 0.35, 0.15])[p.k]`,
    ],
  ];
}

async function generate(): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await bulkLoad(client, steps());
    const t0 = performance.now();
    await client.query('vacuum (analyze)');
    log(`  vacuum (analyze): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}

async function ensureKey(organizationId: string): Promise<string> {
  const database = await openDatabase({ databaseUrl: databaseUrl(), dataDir: 'memory://', poolSize: 2 });
  try {
    if (existsSync(KEY_FILE)) {
      const stored = JSON.parse(readFileSync(KEY_FILE, 'utf8')) as { organizationId?: string; key?: string };
      if (stored.organizationId === organizationId && stored.key) {
        const live = await database.db
          .selectFrom('api_keys')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('key_hash', '=', hashKey(stored.key))
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (live) return stored.key;
      }
    }
    const { key } = await createKey(database.db, { organizationId, permissions: ['all'], name: 'analytics bench' });
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(KEY_FILE, JSON.stringify({ database: DATABASE, organizationId, key }, null, 2) + '\n', {
      mode: 0o600,
    });
    return key;
  } finally {
    await database.close();
  }
}

/** Makes sure patron_bench_analytics holds the dataset (generating it when missing, incomplete or `fresh`). */
export async function ensureAnalyticsDataset(options: { fresh?: boolean } = {}): Promise<AnalyticsDataset> {
  const generatedSeconds = await prepareDataset(
    { database: DATABASE, expected: EXPECTED, counts, generate },
    options.fresh,
  );
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('select id from organizations where name = $1', [ORGANIZATION]);
    const organizationId = rows[0]!.id;
    return {
      databaseUrl: databaseUrl(),
      organizationId,
      key: await ensureKey(organizationId),
      counts: await counts(client),
      generatedSeconds,
    };
  } finally {
    await client.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const info = await ensureAnalyticsDataset({ fresh: process.argv.includes('--fresh') });
  log(JSON.stringify({ ...info, key: '(in bench/results/analytics-key.json)' }, null, 2));
}
