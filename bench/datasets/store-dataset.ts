// The store dataset of issue 3, and the harness the store benchmarks share (bench/orders-list.ts,
// bench/customers-search.ts, bench/orders-import.ts).
//
//   node --import tsx bench/datasets/store-dataset.ts            reuse patron_bench_store when it holds the expected rows
//   node --import tsx bench/datasets/store-dataset.ts --fresh    drop it and generate again
//
// Dataset (database patron_bench_store on the local PostgreSQL, BENCH_ADMIN_URL, default
// postgres://postgres@127.0.0.1:5432/postgres), generated set-based with generate_series / insert … select:
//   50 organizations "Bench store 01".."Bench store 50" (rate-limit ceiling 100,000,000 requests/minute), each with
//   1 site, 4,000 customers, 2,000 products with one variant each, 20 order tags, 20,000 orders created over the last
//   two years (random customer of the organization, random totals), 3 items per order (random product of the
//   organization, its variant, quantity 1..3, the variant's price). Order tags: "repeat-buyer" on ~20 % of orders,
//   one of the 19 other tags on another ~15 % (each ~0.8 %). Totals: 1,000,000 orders, 3,000,000 items,
//   200,000 customers, 100,000 products and variants. Ids are UUIDv7 built from the record's creation time, like the
//   ids Patron generates (uuidv7). ANALYZE (with VACUUM, so the visibility map is set) at the end.
// API keys (createKey, permissions "all") for the organizations the benchmarks use go to bench/results/keys.json
// (gitignored) and are reused while they stay valid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { freePort } from '../../test/support/processes.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createKey, hashKey } from '../../src/auth/keys.js';
import { createRuntime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/engine.js';
import type { DB } from '../../src/db/schema.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLI = join(ROOT, 'dist/src/cli/main.js');
export const RESULTS_DIR = join(ROOT, 'bench/results');
export const KEYS_FILE = join(RESULTS_DIR, 'keys.json');
export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATABASE = 'patron_bench_store';
export const CEILING = 100_000_000;
export const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

export const ORGANIZATIONS = 50;
export const CUSTOMERS_PER_ORG = 4_000;
export const PRODUCTS_PER_ORG = 2_000;
export const TAGS_PER_ORG = 20;
export const ORDERS_PER_ORG = 20_000;
export const ITEMS_PER_ORDER = 3;
/** The tag on ~20 % of orders, the one the list benchmark filters on. */
export const COMMON_TAG = 'repeat-buyer';
export const COMMON_TAG_SHARE = 0.2;
export const OTHER_TAG_SHARE = 0.15;
/** One of the rare tags (~0.8 % of orders), for the selective-filter variant of the list benchmark. */
export const RARE_TAG = 'gift';
const OTHER_TAGS = [
  'gift',
  'wholesale',
  'priority',
  'fragile',
  'subscription',
  'pre-order',
  'international',
  'vip',
  'promo-spring',
  'promo-summer',
  'promo-fall',
  'promo-winter',
  'marketplace',
  'pos',
  'b2b',
  'influencer',
  'sample',
  'replacement',
  'flagged',
];
/** Organizations that get an API key: 1 for the reads, 50 for the imports (they clean up after themselves). */
export const KEYED_ORGS = [1, 50];

export const FIRST_NAMES = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'William',
  'Elizabeth',
  'David',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Christopher',
  'Nancy',
  'Daniel',
  'Lisa',
  'Matthew',
  'Betty',
  'Anthony',
  'Margaret',
  'Mark',
  'Sandra',
  'Donald',
  'Ashley',
  'Steven',
  'Kimberly',
  'Paul',
  'Emily',
  'Andrew',
  'Donna',
  'Joshua',
  'Michelle',
  'Kenneth',
  'Dorothy',
  'Kevin',
  'Carol',
  'Brian',
  'Amanda',
  'George',
  'Melissa',
  'Edward',
  'Deborah',
  'Lukas',
  'Sofia',
  'Mateo',
  'Chloe',
  'Hugo',
  'Lea',
  'Yuki',
  'Aiko',
  'Ravi',
  'Priya',
];
export const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Muller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Dubois',
  'Moreau',
  'Tanaka',
  'Sato',
  'Kumar',
];
export const EMAIL_DOMAINS = ['example.com', 'mail.example.org', 'inbox.example.net', 'post.example.de'];
const ADJECTIVES = [
  'Classic',
  'Organic',
  'Vintage',
  'Modern',
  'Handmade',
  'Premium',
  'Eco',
  'Smart',
  'Compact',
  'Deluxe',
];
const NOUNS = [
  'Mug',
  'Backpack',
  'Candle',
  'Notebook',
  'Lamp',
  'Scarf',
  'Bottle',
  'Chair',
  'Jacket',
  'Teapot',
  'Wallet',
  'Blanket',
];

export const log = (line: string) => process.stderr.write(line + '\n');

export function databaseUrl(database = DATABASE): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface BenchOrganization {
  index: number;
  id: string;
  key: string;
}

export interface DatasetInfo {
  databaseUrl: string;
  organizations: Record<string, BenchOrganization>;
  counts: Record<string, number>;
  generatedSeconds: number | null;
}

export const sqlArray = (values: readonly string[]) =>
  `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;

/** Rows per table for the 50 bench organizations (other organizations in the database are not counted). */
async function counts(client: pg.Client): Promise<Record<string, number>> {
  const scope = `organization_id in (select id from organizations where name like 'Bench store %')`;
  const { rows } = await client.query<Record<string, string>>(`select
    (select count(*) from organizations where name like 'Bench store %') as organizations,
    (select count(*) from sites where ${scope}) as sites,
    (select count(*) from customers where ${scope}) as customers,
    (select count(*) from products where ${scope}) as products,
    (select count(*) from product_variants where ${scope}) as product_variants,
    (select count(*) from tags where ${scope}) as tags,
    (select count(*) from orders where ${scope}) as orders,
    (select count(*) from order_items where ${scope}) as order_items,
    (select count(*) from order_tags where ${scope}) as order_tags`);
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

const EXPECTED: Record<string, number> = {
  organizations: ORGANIZATIONS,
  sites: ORGANIZATIONS,
  customers: ORGANIZATIONS * CUSTOMERS_PER_ORG,
  products: ORGANIZATIONS * PRODUCTS_PER_ORG,
  product_variants: ORGANIZATIONS * PRODUCTS_PER_ORG,
  tags: ORGANIZATIONS * TAGS_PER_ORG,
  orders: ORGANIZATIONS * ORDERS_PER_ORG,
  order_items: ORGANIZATIONS * ORDERS_PER_ORG * ITEMS_PER_ORDER,
};

/** The generation, step by step; every statement is set-based. */
function generationSteps(): [string, string][] {
  // A UUIDv7 for a timestamp: 48 bits of Unix milliseconds, version 7, 74 random bits with the RFC 4122 variant.
  // Written as one expression (no FROM) so PostgreSQL inlines it instead of calling a function per row.
  const uuid7 = `create function pg_temp.uuid7(ts timestamptz) returns uuid language sql volatile as $$
    select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
      || substr('89ab', 1 + floor(random() * 4)::int, 1) || substr(md5(random()::text), 1, 15))::uuid $$`;
  const now = `timestamptz '${new Date().toISOString()}'`;
  return [
    ['uuid7 function', uuid7],
    [
      'organizations',
      `create temp table b_orgs as
         select g as idx, pg_temp.uuid7(${now} - interval '1100 days' + g * interval '1 minute') as id from generate_series(1, ${ORGANIZATIONS}) g;
       insert into organizations (id, name, timezone, api_requests_per_minute, created_at, updated_at)
         select id, 'Bench store ' || lpad(idx::text, 2, '0'), 'UTC', ${CEILING}, ${now} - interval '1100 days', ${now} - interval '1100 days' from b_orgs`,
    ],
    [
      'sites',
      `create temp table b_sites as select o.idx as org_idx, o.id as org_id, pg_temp.uuid7(${now} - interval '1099 days') as id from b_orgs o;
       insert into sites (organization_id, id, name, domain, platform, currency_code, created_at, updated_at)
         select org_id, id, 'Shop ' || org_idx, 'shop-' || org_idx || '.example.com', 'shopify', 'USD', ${now} - interval '1099 days', ${now} - interval '1099 days' from b_sites`,
    ],
    [
      'customers',
      `create temp table b_customers as
         select org_idx, org_id, ord, pg_temp.uuid7(created_at) as id, created_at, first_name, last_name,
                lower(first_name) || '.' || lower(last_name) || '.' || ord || '@' || (${sqlArray(EMAIL_DOMAINS)})[1 + ord % ${EMAIL_DOMAINS.length}] as email
         from (select o.idx as org_idx, o.id as org_id, g as ord,
                      ${now} - random() * interval '1095 days' as created_at,
                      (${sqlArray(FIRST_NAMES)})[1 + floor(random() * ${FIRST_NAMES.length})::int] as first_name,
                      (${sqlArray(LAST_NAMES)})[1 + floor(random() * ${LAST_NAMES.length})::int] as last_name
               from b_orgs o cross join generate_series(1, ${CUSTOMERS_PER_ORG}) g) s;
       create index on b_customers (org_idx, ord);
       analyze b_customers;
       insert into customers (organization_id, id, email, phone, first_name, last_name, country, birthday, metadata, created_at, updated_at)
         select org_id, id, email,
                '+1' || (2000000000 + floor(random() * 7999999999))::bigint,
                first_name, last_name,
                (array['US', 'GB', 'DE', 'FR', 'CA', 'ES', 'IT', 'NL'])[1 + floor(random() * 8)::int],
                case when random() < 0.5 then lpad((1 + floor(random() * 12))::int::text, 2, '0') || '-' || lpad((1 + floor(random() * 28))::int::text, 2, '0') end,
                case when random() < 0.3 then '{"source":"pos"}'::jsonb else '{}'::jsonb end,
                created_at, created_at
         from b_customers`,
    ],
    [
      'products and variants',
      `create temp table b_products as
         select org_idx, org_id, ord, pg_temp.uuid7(created_at) as id, pg_temp.uuid7(created_at) as variant_id, created_at,
                (500 + floor(random() * 20000))::bigint as price_cents,
                (${sqlArray(ADJECTIVES)})[1 + floor(random() * ${ADJECTIVES.length})::int] || ' ' || (${sqlArray(NOUNS)})[1 + floor(random() * ${NOUNS.length})::int] || ' ' || ord as title
         from (select o.idx as org_idx, o.id as org_id, g as ord, ${now} - interval '1000 days' + random() * interval '900 days' as created_at
               from b_orgs o cross join generate_series(1, ${PRODUCTS_PER_ORG}) g) s;
       create index on b_products (org_idx, ord);
       analyze b_products;
       insert into products (organization_id, id, slug, title, description, image_url, url, created_at, updated_at)
         select org_id, id, 'product-' || ord, title, 'The ' || lower(title) || '.', 'https://cdn.example.com/p/' || ord || '.jpg',
                'https://shop-' || org_idx || '.example.com/products/product-' || ord, created_at, created_at
         from b_products;
       insert into product_variants (organization_id, id, product_id, slug, title, image_url, price_cents, currency_code, available, position, created_at, updated_at)
         select org_id, variant_id, id, 'default', 'Default', '', price_cents, 'USD', true, 0, created_at, created_at from b_products`,
    ],
    [
      'order tags',
      `create temp table b_tags as
         select o.idx as org_idx, o.id as org_id, t.ord::int as ord, t.name, pg_temp.uuid7(${now} - interval '1000 days') as id
         from b_orgs o cross join unnest(${sqlArray([COMMON_TAG, ...OTHER_TAGS])}) with ordinality as t(name, ord);
       insert into tags (organization_id, id, kind, name, created_at, updated_at)
         select org_id, id, 'order', name, ${now} - interval '1000 days', ${now} - interval '1000 days' from b_tags`,
    ],
    [
      'orders',
      `insert into orders (organization_id, id, site_id, customer_id, remote_id, number, total_cents, subtotal_cents, shipping_cents,
                           tax_cents, currency_code, shipped_at, delivered_at, cancelled_at, metadata, earn_loyalty, created_at, updated_at)
         select s.org_id, pg_temp.uuid7(s.created_at), st.id, c.id, 'R' || s.org_idx || '-' || s.ord, '#' || (1000 + s.ord),
                s.subtotal + s.shipping + s.subtotal / 10, s.subtotal, s.shipping, s.subtotal / 10, 'USD',
                case when s.created_at < ${now} - interval '3 days' then s.created_at + interval '1 day' end,
                case when s.created_at < ${now} - interval '7 days' then s.created_at + interval '4 days' end,
                case when s.r < 0.02 then s.created_at + interval '2 hours' end,
                jsonb_build_object('channel', (array['web', 'pos', 'app'])[1 + floor(s.r * 3)::int]),
                false, s.created_at, s.created_at
         from (select o.idx as org_idx, o.id as org_id, g as ord, random() as r,
                      ${now} - random() * interval '730 days' as created_at,
                      1 + floor(random() * ${CUSTOMERS_PER_ORG})::int as customer_ord,
                      (1000 + floor(random() * 40000))::bigint as subtotal,
                      (floor(random() * 4) * 500)::bigint as shipping
               from b_orgs o cross join generate_series(1, ${ORDERS_PER_ORG}) g) s
         join b_sites st on st.org_idx = s.org_idx
         join b_customers c on c.org_idx = s.org_idx and c.ord = s.customer_ord
         order by s.created_at`,
    ],
    [
      'order items',
      `insert into order_items (organization_id, id, order_id, product_id, product_variant_id, quantity, unit_price_cents, position)
         select x.organization_id, pg_temp.uuid7(x.created_at), x.order_id, p.id, p.variant_id, x.quantity, p.price_cents, x.position
         from (select o.organization_id, o.id as order_id, o.created_at, bo.idx as org_idx, pos.position,
                      1 + floor(random() * ${PRODUCTS_PER_ORG})::int as product_ord, 1 + floor(random() * 3)::int as quantity
               from orders o join b_orgs bo on bo.id = o.organization_id cross join generate_series(0, ${ITEMS_PER_ORDER - 1}) as pos(position)) x
         join b_products p on p.org_idx = x.org_idx and p.ord = x.product_ord
         order by x.created_at, x.order_id, x.position`,
    ],
    [
      'order tag links',
      `insert into order_tags (organization_id, order_id, tag_id)
         select o.organization_id, o.id, t.id
         from (select organization_id, id, random() as r, 2 + floor(random() * ${OTHER_TAGS.length})::int as other from orders) o
         join b_tags t on t.org_id = o.organization_id
                      and ((o.r < ${COMMON_TAG_SHARE} and t.ord = 1)
                        or (o.r >= ${COMMON_TAG_SHARE} and o.r < ${COMMON_TAG_SHARE + OTHER_TAG_SHARE} and t.ord = o.other))`,
    ],
  ];
}

/**
 * Runs named generation statements as one transaction, each timed and logged: a bulk load, so no synchronous
 * commit, more memory for sorts and index builds, and no row-by-row foreign-key checks (session_replication_role =
 * replica skips the RI triggers); the generators build every reference from rows that exist.
 */
export async function bulkLoad(
  client: pg.Client,
  steps: readonly (readonly [name: string, statement: string])[],
): Promise<void> {
  await client.query(`set synchronous_commit = off; set maintenance_work_mem = '512MB'; set work_mem = '256MB';
                      set session_replication_role = replica`);
  await client.query('begin');
  for (const [name, statement] of steps) {
    const t0 = performance.now();
    await client.query(statement);
    log(`  ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  await client.query('commit');
  await client.query('set session_replication_role = origin');
}

async function generate(): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    // Every reference is built from the organization's own rows; verify() checks them once, set-based.
    await bulkLoad(client, generationSteps());
    await verify(client);
    const t0 = performance.now();
    await client.query('vacuum (analyze)');
    log(`  vacuum (analyze): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
  return (performance.now() - started) / 1000;
}

/** The references the foreign keys would have checked, each set-based: every one must resolve within its organization. */
async function verify(client: pg.Client): Promise<void> {
  const checks: [string, string][] = [
    [
      'orders → customers',
      `select count(*) from orders o where not exists (select 1 from customers c where c.organization_id = o.organization_id and c.id = o.customer_id)`,
    ],
    [
      'orders → sites',
      `select count(*) from orders o where not exists (select 1 from sites s where s.organization_id = o.organization_id and s.id = o.site_id)`,
    ],
    [
      'items → orders',
      `select count(*) from order_items i where not exists (select 1 from orders o where o.organization_id = i.organization_id and o.id = i.order_id)`,
    ],
    [
      'items → variants',
      `select count(*) from order_items i where not exists (select 1 from product_variants v where v.organization_id = i.organization_id and v.id = i.product_variant_id and v.product_id = i.product_id)`,
    ],
    [
      'order_tags → tags',
      `select count(*) from order_tags ot where not exists (select 1 from tags t where t.organization_id = ot.organization_id and t.id = ot.tag_id and t.kind = 'order')`,
    ],
  ];
  for (const [name, query] of checks) {
    const { rows } = await client.query<{ count: string }>(query);
    if (Number(rows[0]!.count) !== 0)
      throw new Error(`dataset check failed: ${name}: ${rows[0]!.count} dangling references`);
  }
  log('  references checked: none dangling');
}

async function ensureKeys(): Promise<Record<string, BenchOrganization>> {
  const database = await openDatabase({ databaseUrl: databaseUrl(), dataDir: 'memory://', poolSize: 2 });
  try {
    const stored = existsSync(KEYS_FILE)
      ? ((
          JSON.parse(readFileSync(KEYS_FILE, 'utf8')) as {
            database?: string;
            organizations?: Record<string, BenchOrganization>;
          }
        ).organizations ?? {})
      : {};
    const organizations: Record<string, BenchOrganization> = {};
    for (const index of KEYED_ORGS) {
      const name = `Bench store ${String(index).padStart(2, '0')}`;
      const org = await database.db
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      const previous = stored[String(index)];
      if (previous && previous.id === org.id) {
        const live = await database.db
          .selectFrom('api_keys')
          .select('id')
          .where('organization_id', '=', org.id)
          .where('key_hash', '=', hashKey(previous.key))
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (live) {
          organizations[String(index)] = previous;
          continue;
        }
      }
      const { key } = await createKey(database.db, { organizationId: org.id, permissions: ['all'], name: 'bench' });
      organizations[String(index)] = { index, id: org.id, key };
      log(`  created an API key for ${name}`);
    }
    await database.db
      .updateTable('organizations')
      .set({ api_requests_per_minute: CEILING })
      .where('name', 'like', 'Bench store %')
      .execute();
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(KEYS_FILE, JSON.stringify({ database: DATABASE, organizations }, null, 2) + '\n', { mode: 0o600 });
    return organizations;
  } finally {
    await database.close();
  }
}

/** A generated benchmark database: what it must hold, how to count it, how to generate it. */
export interface DatasetSpec {
  database: string;
  expected: Record<string, number>;
  counts(client: pg.Client): Promise<Record<string, number>>;
  /** Fills the freshly migrated database; returns the seconds it took. */
  generate(): Promise<number>;
}

/**
 * Reuses `spec.database` when it holds the expected rows (after applying any new migration to it), else creates it
 * again, migrates it and generates the data. Returns the seconds generating took, or null when reused.
 */
export async function prepareDataset(spec: DatasetSpec, fresh = false): Promise<number | null> {
  const { database: name } = spec;
  const migrate = async () => {
    const database = await openDatabase({ databaseUrl: databaseUrl(name), dataDir: 'memory://', poolSize: 2 });
    try {
      return await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
  };
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rows.length > 0;
    if (exists && !fresh) {
      // New migrations (e.g. an added index) apply to the existing data.
      const applied = await migrate();
      if (applied.length) log(`applied migrations to the existing dataset: ${applied.join(', ')}`);
      const client = new pg.Client({ connectionString: databaseUrl(name) });
      await client.connect();
      try {
        const found = await spec.counts(client);
        const mismatch = Object.entries(spec.expected).filter(([table, n]) => found[table] !== n);
        if (mismatch.length === 0) {
          log(`reusing ${name} (pass --fresh to generate it again)`);
          return null;
        }
        log(
          `dataset incomplete (${mismatch.map(([table, n]) => `${table} ${found[table]} ≠ ${n}`).join(', ')}): generating again`,
        );
      } finally {
        await client.end();
      }
    }
    log(`creating database ${name}`);
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  log(`migrations: ${(await migrate()).join(', ')}`);
  log('generating the dataset');
  const seconds = await spec.generate();
  log(`generated in ${seconds.toFixed(1)} s`);
  return seconds;
}

/** Makes sure patron_bench_store holds the dataset (generating it when missing, incomplete or `fresh`); returns its keys. */
export async function ensureDataset(options: { fresh?: boolean } = {}): Promise<DatasetInfo> {
  const generatedSeconds = await prepareDataset(
    { database: DATABASE, expected: EXPECTED, counts, generate },
    options.fresh,
  );
  const organizations = await ensureKeys();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    return { databaseUrl: databaseUrl(), organizations, counts: await counts(client), generatedSeconds };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared harness: servers as child processes, autocannon in this process, sequential latency samples.

// autocannon ships no types and @types/autocannon is not installed: describe the part used here.
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
export interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: AutocannonRequest[];
  timeout?: number;
}
interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
}
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: Histogram;
  requests: Histogram;
}
const require = createRequire(import.meta.url);
export const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

/** user + system CPU ms of a process, from /proc (null where /proc is unavailable). */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ 100
  } catch {
    return null;
  }
}

/** Busy CPU fraction of the whole machine over `ms`, from /proc/stat (null where unavailable). */
export async function machineBusy(ms = 2_000): Promise<number | null> {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3]! + (fields[4] ?? 0);
    return { idle, total: fields.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = read();
    await new Promise((r) => setTimeout(r, ms));
    const b = read();
    return b.total === a.total ? 0 : 1 - (b.idle - a.idle) / (b.total - a.total);
  } catch {
    return null;
  }
}

/**
 * The machine is shared (2 cores, other engineers run tests and benchmarks): before a measured run, wait until it
 * is nearly idle (busy < BENCH_QUIET_BUSY, default 0.15, over 3 s), at most BENCH_QUIET_WAIT_S (default 600) s.
 */
export async function waitForQuiet(label: string): Promise<number | null> {
  const threshold = Number(process.env.BENCH_QUIET_BUSY ?? 0.15);
  const deadline = Date.now() + Number(process.env.BENCH_QUIET_WAIT_S ?? 600) * 1000;
  let busy = await machineBusy(3_000);
  let waited = false;
  while (busy !== null && busy > threshold && Date.now() < deadline) {
    if (!waited)
      log(`  ${label}: machine ${Math.round(busy * 100)} % busy with other work; waiting for it to calm down`);
    waited = true;
    await new Promise((r) => setTimeout(r, 10_000));
    busy = await machineBusy(3_000);
  }
  if (waited) log(`  ${label}: machine ${busy === null ? '?' : Math.round(busy * 100)} % busy, going ahead`);
  return busy;
}

/** CPU ms of the processes `counts` picks by pid and command line (null where /proc is unavailable). */
function processesCpuMs(counts: (pid: number, cmdline: string) => boolean): number | null {
  try {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (counts(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) total += cpuMs(Number(entry)) ?? 0;
      } catch {
        // the process ended meanwhile
      }
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU ms used by every process except this one, the given server and the PostgreSQL backends serving
 * patron_bench_store: the other work on the machine while a run measures.
 */
export function backgroundCpuMs(exclude: (number | undefined)[]): number | null {
  const skip = new Set([process.pid, ...exclude.filter((pid): pid is number => pid !== undefined)]);
  return processesCpuMs((pid, cmdline) => !skip.has(pid) && !cmdline.includes(DATABASE));
}

/** CPU ms of the PostgreSQL backends serving patron_bench_store (null where /proc is unavailable). */
export const databaseCpuMs = (): number | null => processesCpuMs((_pid, cmdline) => cmdline.includes(DATABASE));

export interface Captured {
  sql: string;
  parameters: unknown[];
  durationMs: number;
}

/**
 * Runs one request through Patron's real routes in this process (createRuntime + app.inject, on the bench database)
 * and records every statement it sends, verbatim, with its parameters and duration (Kysely query log).
 */
export async function capture(
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: any; statements: Captured[]; ms: number }> {
  const pool = new pg.Pool({
    connectionString: databaseUrl(),
    max: 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {});
  const statements: Captured[] = [];
  let recording = false;
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (recording && event.level === 'query') {
        statements.push({
          sql: event.query.sql,
          parameters: [...event.query.parameters],
          durationMs: event.queryDurationMillis,
        });
      }
    },
  });
  const database: Database = {
    engine: 'postgres',
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
  const config = loadConfig({ DATABASE_URL: databaseUrl(), PATRON_SECRET_KEY: SECRET, LOG_LEVEL: 'warn' });
  config.secretKey = SECRET;
  const runtime = await createRuntime(config, { database, logger: false });
  try {
    await runtime.app.ready();
    recording = true;
    const t0 = performance.now();
    const response = await runtime.app.inject({
      method,
      url: path,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const ms = performance.now() - t0;
    recording = false;
    return { status: response.statusCode, body: response.json(), statements, ms };
  } finally {
    await runtime.close();
    await database.close();
  }
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

export function build(): void {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  log('npm run build');
  run('npm', ['run', 'build', '--silent']);
}

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  logFile: string;
  stop(): Promise<number>;
}

/** The environment a server child gets: nothing from this shell that would change what is measured. */
export function serverEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATRON_SECRET_KEY: SECRET, NODE_ENV: 'production' };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'PATRON_DATA_DIR', 'LOG_LEVEL', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...extra };
}

export async function startServer(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  workDir: string,
): Promise<Server> {
  const port = await freePort();
  const logFile = join(workDir, `${label}.log`);
  const fd = openSync(logFile, 'w'); // logs go to a file, as they would to a collector
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const baseUrl = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  const exit = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      resolve(exited);
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`${label} exited (${exited}) before ready:\n${readFileSync(logFile, 'utf8')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${label} not ready after 60 s:\n${readFileSync(logFile, 'utf8')}`);
    }
    if (
      await fetch(`${baseUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    baseUrl,
    logFile,
    stop: async () => {
      if (exited === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * Starts the compiled Patron against the bench database. BENCH_SERVER_NODE_ARGS (space-separated) go to the
 * server's Node only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile what a bench drives.
 */
export function startPatron(label: string, workDir: string, extra: NodeJS.ProcessEnv = {}): Promise<Server> {
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return startServer(
    label,
    [...nodeArgs, CLI, 'serve'],
    serverEnv({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', PATRON_DATA_DIR: join(workDir, 'data'), ...extra }),
    workDir,
  );
}

export interface LoadMeasurement {
  name: string;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP90Ms: number;
  latencyP99Ms: number;
  latencyAvgMs: number;
  latencyMaxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  serverCpuUsPerRequest: number | null;
  /** CPU of the PostgreSQL backends serving the bench database, and of this process (autocannon), per request. */
  databaseCpuUsPerRequest: number | null;
  clientCpuUsPerRequest: number | null;
  /** Busy fraction of the machine just before the run (other engineers' work). */
  machineBusyBefore: number | null;
  /** Cores other processes used on average during the run (not Patron/floor, not its PostgreSQL backends, not this process). */
  backgroundCores: number | null;
}

/** autocannon against one server: a discarded warm-up, then the measured run. */
export async function load(
  name: string,
  server: Server,
  options: Omit<AutocannonOptions, 'url' | 'duration' | 'connections'> & { path: string; connections: number },
  warmupS: number,
  durationS: number,
): Promise<LoadMeasurement> {
  const { path, ...rest } = options;
  const base = { ...rest, url: `${server.baseUrl}${path}` };
  if (warmupS > 0) {
    log(`  ${name}: warm-up ${warmupS} s (discarded)`);
    await autocannon({ ...base, duration: warmupS });
  }
  const quietBusy = await waitForQuiet(name);
  log(`  ${name}: measuring ${durationS} s`);
  const cpuBefore = cpuMs(server.child.pid);
  const bgBefore = backgroundCpuMs([server.child.pid]);
  const dbBefore = databaseCpuMs();
  const clientBefore = process.cpuUsage();
  const result = await autocannon({ ...base, duration: durationS });
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = cpuMs(server.child.pid);
  const bgAfter = backgroundCpuMs([server.child.pid]);
  const dbAfter = databaseCpuMs();
  const requests = result.requests.total;
  const m: LoadMeasurement = {
    name,
    requestsPerSec: requests / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP90Ms: result.latency.p90,
    latencyP99Ms: result.latency.p99,
    latencyAvgMs: result.latency.average,
    latencyMaxMs: result.latency.max,
    requests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuUsPerRequest:
      cpuBefore !== null && cpuAfter !== null && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : null,
    databaseCpuUsPerRequest:
      dbBefore !== null && dbAfter !== null && requests > 0 ? ((dbAfter - dbBefore) * 1000) / requests : null,
    clientCpuUsPerRequest: requests > 0 ? (client.user + client.system) / requests : null,
    machineBusyBefore: quietBusy === null ? null : Math.round(quietBusy * 100) / 100,
    backgroundCores:
      bgBefore !== null && bgAfter !== null
        ? Math.round(((bgAfter - bgBefore) / (result.duration * 1000)) * 100) / 100
        : null,
  };
  log(
    `  ${name}: ${m.requestsPerSec.toFixed(0)} req/s, p50 ${m.latencyP50Ms} ms, p99 ${m.latencyP99Ms} ms, non-2xx ${m.non2xx}, errors ${m.errors}` +
      (m.serverCpuUsPerRequest !== null ? `, server CPU ${m.serverCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.databaseCpuUsPerRequest !== null ? `, PostgreSQL ${m.databaseCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.clientCpuUsPerRequest !== null ? `, client ${m.clientCpuUsPerRequest.toFixed(0)} µs/req` : '') +
      (m.backgroundCores !== null ? `, background ${m.backgroundCores} cores` : ''),
  );
  return m;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

/** One request at a time, `count` times (after `warmup` discarded ones): wall-clock ms per request, body read. */
export async function sequential(url: string, init: RequestInit, count: number, warmup = 20): Promise<LatencySummary> {
  await waitForQuiet('sequential sample');
  const samples: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const t0 = performance.now();
    const response = await fetch(url, init);
    await response.arrayBuffer();
    const ms = performance.now() - t0;
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}`);
    if (i >= warmup) samples.push(ms);
  }
  return summarize(samples);
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Writes a result JSON next to the keys (gitignored) and prints it on one RESULT line. */
export function saveResult(name: string, result: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify(result, null, 2) + '\n');
  console.log(`RESULT ${JSON.stringify(result)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const info = await ensureDataset({ fresh: process.argv.includes('--fresh') });
  console.log(
    `database ${DATABASE}${info.generatedSeconds !== null ? `, generated in ${info.generatedSeconds.toFixed(1)} s` : ' (reused)'}`,
  );
  console.log(
    table(
      ['table', 'rows'],
      Object.entries(info.counts).map(([name, n]) => [name, n.toLocaleString('en-US')]),
    ),
  );
  for (const org of Object.values(info.organizations))
    console.log(`organization ${org.index}: ${org.id} key ${org.key.slice(0, 11)}… (full key in ${KEYS_FILE})`);
}
