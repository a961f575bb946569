// Reviews for the store dataset's "Bench store 01" (bench/datasets/store-dataset.ts), for the reviews page of
// bench/list-latency.ts: 20,000 reviews (remote ids `bench-rv-1`..), each of one of the organization's customers and
// products, created over the last 365 days (ids UUIDv7 of their creation time), ratings 1–5, 80 % published, a third
// from verified buyers, short text from a small vocabulary. Set-based; reused when all are there, replaced when not.
//
//   node --import tsx bench/datasets/store-reviews.ts
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { UUID7_FUNCTION, ensureDataset, type DatasetInfo } from './store-dataset.js';
import { databaseUrl, log } from '../support/harness.js';

export const REVIEWS_PER_ORG = 20_000;
const PREFIX = 'bench-rv-';
const WORDS = ['fit', 'quality', 'delivery', 'fabric', 'color', 'size', 'comfortable', 'great', 'soft', 'sturdy'];

export async function ensureStoreReviews(): Promise<DatasetInfo & { reviews: number }> {
  const dataset = await ensureDataset();
  const org = dataset.organizations['1']!;
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const count = async () =>
      Number(
        (
          await client.query<{ n: string }>(
            `select count(*) as n from reviews where organization_id = $1 and remote_id like '${PREFIX}%'`,
            [org.id],
          )
        ).rows[0]!.n,
      );
    if ((await count()) === REVIEWS_PER_ORG) return { ...dataset, reviews: REVIEWS_PER_ORG };
    log(`generating ${REVIEWS_PER_ORG.toLocaleString('en-US')} reviews for Bench store 01…`);
    const t0 = performance.now();
    const words = `array[${WORDS.map((w) => `'${w}'`).join(',')}]`;
    await client.query('begin');
    await client.query(`delete from reviews where organization_id = $1 and remote_id like '${PREFIX}%'`, [org.id]);
    await client.query(UUID7_FUNCTION);
    await client.query(
      `with c as (select array_agg(id order by id) ids from customers where organization_id = $1),
            p as (select array_agg(id order by id) ids from products where organization_id = $1),
            r as (select n, now() - make_interval(secs => (n * 1576.8)::double precision) as at
                  from generate_series(1, ${REVIEWS_PER_ORG}) n)
       insert into reviews (organization_id, id, product_id, customer_id, remote_id, rating, title, body, published,
                            verified_buyer, flagged, language, metadata, created_at, updated_at)
       select $1, pg_temp.uuid7(r.at), p.ids[1 + (r.n * 7919) % cardinality(p.ids)],
              c.ids[1 + (r.n * 104729) % cardinality(c.ids)], '${PREFIX}' || r.n, 1 + (r.n * 31) % 5,
              initcap((${words})[1 + r.n % ${WORDS.length}]) || ' review',
              (${words})[1 + (r.n * 3) % ${WORDS.length}] || ' and ' || (${words})[1 + (r.n * 7) % ${WORDS.length}] ||
                ', would buy again.',
              r.n % 5 <> 0, r.n % 3 = 0, r.n % 97 = 0, case when r.n % 2 = 0 then 'en' end, '{}', r.at, r.at
       from r, c, p`,
      [org.id],
    );
    await client.query('commit');
    await client.query('analyze reviews');
    log(`  ${await count()} reviews in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { ...dataset, reviews: REVIEWS_PER_ORG };
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const info = await ensureStoreReviews();
  console.log(`${info.reviews} reviews in Bench store 01`);
}
