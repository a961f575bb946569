// The wishlists-sort dataset: one organization with 1,000,000 products and a skewed wishlistsCount
// (bench/wishlists-sort.ts reads it; bench/wishlists-import.ts imports into fresh organizations of the same database).
//
//   node --import tsx bench/datasets/wishlists-dataset.ts            reuse patron_bench_wishlists when it holds the expected rows
//   node --import tsx bench/datasets/wishlists-dataset.ts --fresh    drop it and generate again
//
// Database patron_bench_wishlists on the local PostgreSQL (BENCH_ADMIN_URL, default
// postgres://postgres@127.0.0.1:5432/postgres), generated set-based (generate_series, insert … select) in one
// transaction: organization "Wishlists bench" (UTC, rate-limit ceiling 100,000,000 a minute, its default loyalty
// program), 1,000,000 products created over the last three years (ids UUIDv7 of their creation time, written in
// creation order as a catalog grows), no variants (the list does not read them). The counts are written directly into
// product_wishlist_counts, without wishlist rows (a product without a row counts 0): 80 % of products 0, the others a Pareto tail, floor(u^-1.2) for u uniform in (0, 1], capped
// at 50,000 (median 2, ~2 % of them ≥ 100, a handful in the tens of thousands), so the sort has long runs of ties
// (all the zeros, ~90,000 ones) as a real catalog does. VACUUM (ANALYZE) at the end.
// The API key (permissions all) goes to bench/results/wishlists-key.json (gitignored) and is reused while valid.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createKey, hashKey } from '../../src/auth/keys.js';
import { openDatabase } from '../../src/db/engine.js';
import { bulkLoad, CEILING, prepareDataset, UUID7_FUNCTION } from './store-dataset.js';
import { databaseUrl, log, RESULTS_DIR, table } from '../support/harness.js';

export const DATABASE = 'patron_bench_wishlists';
export const ORGANIZATION = 'Wishlists bench';
export const PRODUCTS = 1_000_000;
/** Share of products no wishlist holds. */
export const ZERO_SHARE = 0.8;
export const MAX_COUNT = 50_000;
const KEY_FILE = join(RESULTS_DIR, 'wishlists-key.json');

export interface WishlistsDataset {
  databaseUrl: string;
  organizationId: string;
  key: string;
  counts: Record<string, number>;
  /** How wishlistsCount is spread over the organization's products. */
  distribution: Record<string, number>;
  generatedSeconds: number | null;
}

const EXPECTED = { organizations: 1, products: PRODUCTS };
const SCOPE = `organization_id in (select id from organizations where name = '${ORGANIZATION}')`;

async function counts(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<Record<string, string>>(`select
    (select count(*) from organizations where name = '${ORGANIZATION}') as organizations,
    (select count(*) from products where ${SCOPE}) as products`);
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

async function distribution(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<Record<string, string>>(`select
    count(*) filter (where wishlists_count is null) as zero,
    count(*) filter (where wishlists_count = 1) as one,
    count(*) filter (where wishlists_count between 2 and 9) as "2..9",
    count(*) filter (where wishlists_count between 10 and 99) as "10..99",
    count(*) filter (where wishlists_count between 100 and 999) as "100..999",
    count(*) filter (where wishlists_count >= 1000) as "≥ 1000",
    max(wishlists_count) as max
    from products p left join product_wishlist_counts c on c.organization_id = p.organization_id and c.product_id = p.id
    where p.${SCOPE}`);
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

const ADJECTIVES = ['Classic', 'Organic', 'Vintage', 'Modern', 'Handmade', 'Premium', 'Eco', 'Smart', 'Compact'];
const NOUNS = ['Mug', 'Backpack', 'Candle', 'Notebook', 'Lamp', 'Scarf', 'Bottle', 'Chair', 'Jacket', 'Teapot'];
const sqlArray = (values: readonly string[]) => `array[${values.map((value) => `'${value}'`).join(', ')}]`;

function steps(): [string, string][] {
  const now = `timestamptz '${new Date().toISOString()}'`;
  return [
    ['uuid7 function', UUID7_FUNCTION],
    [
      'organization',
      `insert into organizations (id, name, timezone, api_requests_per_minute, created_at, updated_at)
         values (pg_temp.uuid7(${now} - interval '1100 days'), '${ORGANIZATION}', 'UTC', ${CEILING}, ${now} - interval '1100 days', ${now} - interval '1100 days');
       insert into loyalty_programs (organization_id, id, name)
         select id, pg_temp.uuid7(${now} - interval '1100 days'), 'Loyalty program' from organizations where name = '${ORGANIZATION}'`,
    ],
    [
      'products',
      `insert into products (organization_id, id, slug, title, description, image_url, url, created_at, updated_at)
         select o.id, pg_temp.uuid7(p.created_at), 'product-' || p.ord, p.title, 'The ' || lower(p.title) || '.',
                'https://cdn.example.com/p/' || p.ord || '.jpg', 'https://shop.example.com/products/product-' || p.ord,
                p.created_at, p.created_at
         from (select g as ord, ${now} - random() * interval '1095 days' as created_at,
                      (${sqlArray(ADJECTIVES)})[1 + floor(random() * ${ADJECTIVES.length})::int] || ' '
                        || (${sqlArray(NOUNS)})[1 + floor(random() * ${NOUNS.length})::int] || ' ' || g as title
               from generate_series(1, ${PRODUCTS}) g) p
         cross join (select id from organizations where name = '${ORGANIZATION}') o
         order by p.created_at`,
    ],
    [
      'wishlistsCount',
      `insert into product_wishlist_counts (organization_id, product_id, wishlists_count)
         select organization_id, id, least(${MAX_COUNT}, floor(power(1 - random(), -1.2)))::int
         from products where ${SCOPE} and random() >= ${ZERO_SHARE}`,
    ],
  ];
}

async function generate(): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
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
  const database = await openDatabase({ databaseUrl: databaseUrl(DATABASE), dataDir: 'memory://', poolSize: 2 });
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
    const { key } = await createKey(database.db, { organizationId, permissions: ['all'], name: 'wishlists bench' });
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(KEY_FILE, JSON.stringify({ database: DATABASE, organizationId, key }, null, 2) + '\n', {
      mode: 0o600,
    });
    return key;
  } finally {
    await database.close();
  }
}

/** Makes sure patron_bench_wishlists holds the dataset (generating it when missing, incomplete or `fresh`). */
export async function ensureWishlistsDataset(options: { fresh?: boolean } = {}): Promise<WishlistsDataset> {
  const generatedSeconds = await prepareDataset(
    { database: DATABASE, expected: EXPECTED, counts, generate },
    options.fresh,
  );
  const client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('select id from organizations where name = $1', [ORGANIZATION]);
    const organizationId = rows[0]!.id;
    return {
      databaseUrl: databaseUrl(DATABASE),
      organizationId,
      key: await ensureKey(organizationId),
      counts: await counts(client),
      distribution: await distribution(client),
      generatedSeconds,
    };
  } finally {
    await client.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const info = await ensureWishlistsDataset({ fresh: process.argv.includes('--fresh') });
  console.log(
    `database ${DATABASE}${info.generatedSeconds !== null ? `, generated in ${info.generatedSeconds.toFixed(1)} s` : ' (reused)'}`,
  );
  console.log(
    table(
      ['table', 'rows'],
      Object.entries(info.counts).map(([name, n]) => [name, n.toLocaleString('en-US')]),
    ),
  );
  console.log(
    table(
      ['wishlistsCount', 'products'],
      Object.entries(info.distribution).map(([name, n]) => [name, n.toLocaleString('en-US')]),
    ),
  );
  console.log(`organization ${info.organizationId}, key in ${KEY_FILE}`);
}
