import { sql, type Kysely } from 'kysely';

/**
 * Reviews (docs/api.md#reviews): the import's match key and the indexes GET /reviews needs.
 *
 * - remote_id: the review's identifier in the system it came from; import creates or updates by it, unique per
 *   organization when present. Rows imported without one match the oldest review of the same customer and product
 *   that has none (reviews_author_idx), so importing twice never duplicates.
 * - Keyset indexes for the three sorts (docs/api.md#pagination-and-cursors), and (product, created_at) for the usual
 *   "reviews of this product, newest first" page. Published counts per product use 0002's reviews_product_idx
 *   (organization_id, product_id, published).
 * - Search (docs/api.md#search) over title and body as one lowercased expression, scoped by organization (btree_gin, as
 *   0006); src/resources/reviews/list.ts compares exactly this expression.
 */
const INDEXES = [
  [
    'reviews_remote_id_key',
    sql`create unique index reviews_remote_id_key on reviews (organization_id, remote_id) where remote_id is not null`,
  ],
  ['reviews_author_idx', sql`create index reviews_author_idx on reviews (organization_id, customer_id, product_id)`],
  ['reviews_created_idx', sql`create index reviews_created_idx on reviews (organization_id, created_at, id)`],
  ['reviews_updated_idx', sql`create index reviews_updated_idx on reviews (organization_id, updated_at, id)`],
  ['reviews_rating_idx', sql`create index reviews_rating_idx on reviews (organization_id, rating, id)`],
  [
    'reviews_product_created_idx',
    sql`create index reviews_product_created_idx on reviews (organization_id, product_id, created_at, id)`,
  ],
  [
    'reviews_text_trgm',
    sql`create index reviews_text_trgm on reviews using gin (organization_id, lower(title || ' ' || body) gin_trgm_ops)`,
  ],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db);
  await sql`alter table reviews add column remote_id text`.execute(db);
  for (const [, statement] of INDEXES) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
  await sql`alter table reviews drop column if exists remote_id`.execute(db);
}
