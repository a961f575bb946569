import { sql, type Kysely } from 'kysely';

/**
 * Each product's wishlistsCount moves out of products into a narrow table of its own (docs/api.md#wishlists).
 *
 * - products.wishlists_count was indexed (products_wishlists_idx, the sort's index), so no increment could be a HOT
 *   update: every wishlist write that moved a count wrote a new entry into each of the products' indexes, two of them
 *   trigram GIN. The same increments on a table with two narrow B-trees cost a fraction of that
 *   (docs/journal/2026-11-25-wishlists-figures.md, docs/journal/2026-11-27-wishlists-import.md).
 * - A product has a row here only while at least one wishlist holds it (the one writer, adjustWishlistsCounts,
 *   deletes a row its change brought to 0 in the same transaction): a product without a row counts 0. No check
 *   constraint says so: PostgreSQL checks an upsert's proposed row before it finds the conflict, so a negative delta
 *   would fail it. GET /v1/products?sort=wishlistsCount then walks two index ranges, the counted products through
 *   product_wishlist_counts_sort_idx and the rest through the products' primary key (src/lists/sort.ts), so a page
 *   never sorts.
 * - The row goes with its product (cascade), as the column did.
 * - Existing counts are carried over; items of wishlist_items without a variant (most of them) are left out of the
 *   variant index, which only the items.productVariantId filter reads, always with a value.
 */
const STATEMENTS = [
  sql`create table product_wishlist_counts (
    organization_id uuid not null,
    product_id uuid not null,
    wishlists_count integer not null,
    primary key (organization_id, product_id),
    foreign key (organization_id, product_id) references products (organization_id, id) on delete cascade)`,
  sql`insert into product_wishlist_counts (organization_id, product_id, wishlists_count)
    select organization_id, id, wishlists_count from products where wishlists_count > 0`,
  sql`create index product_wishlist_counts_sort_idx
    on product_wishlist_counts (organization_id, wishlists_count, product_id)`,
  sql`drop index products_wishlists_idx`,
  sql`alter table products drop column wishlists_count`,
  sql`drop index wishlist_items_variant_idx`,
  sql`create index wishlist_items_variant_idx on wishlist_items (organization_id, product_variant_id)
    where product_variant_id is not null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index wishlist_items_variant_idx`.execute(db);
  await sql`create index wishlist_items_variant_idx on wishlist_items (organization_id, product_variant_id)`.execute(
    db,
  );
  await sql`alter table products add column wishlists_count integer not null default 0`.execute(db);
  await sql`update products p set wishlists_count = c.wishlists_count from product_wishlist_counts c
    where c.organization_id = p.organization_id and c.product_id = p.id`.execute(db);
  await sql`create index products_wishlists_idx on products (organization_id, wishlists_count, id)`.execute(db);
  await sql`drop table product_wishlist_counts`.execute(db);
}
