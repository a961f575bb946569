// The store dataset the store-data benchmarks read (bench/orders-list.ts, bench/customers-search.ts,
// bench/orders-import.ts and the loyalty and review benchmarks built on it). Their shared harness (servers, load,
// CPU readings, results) is bench/support/harness.ts.
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
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createKey, hashKey } from '../../src/auth/keys.js';
import { migrateToLatest, openDatabase } from '../../src/db/engine.js';
import { ADMIN_URL, DATABASE, databaseUrl, log, RESULTS_DIR, table } from '../support/harness.js';

export const KEYS_FILE = join(RESULTS_DIR, 'keys.json');
export const CEILING = 100_000_000;

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

/**
 * pg_temp.uuid7(ts): a UUIDv7 for a timestamp: 48 bits of Unix milliseconds, version 7, 74 random bits with the RFC
 * 4122 variant. Written as one expression (no FROM) so PostgreSQL inlines it instead of calling a function per row.
 */
export const UUID7_FUNCTION = `create function pg_temp.uuid7(ts timestamptz) returns uuid language sql volatile as $$
    select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
      || substr('89ab', 1 + floor(random() * 4)::int, 1) || substr(md5(random()::text), 1, 15))::uuid $$`;

/** The generation, step by step; every statement is set-based. */
function generationSteps(): [string, string][] {
  const uuid7 = UUID7_FUNCTION;
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
