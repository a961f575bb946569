import { sql, type Kysely } from 'kysely';

/**
 * Wishlists (docs/api.md#wishlists): a customer's named lists of products.
 *
 * - wishlists: the import matches on remote_id (unique per organization when present), else on customer and name
 *   (wishlists_customer_name_idx). Keyset indexes serve the three sorts (docs/api.md#pagination-and-cursors); the name
 *   search is a trigram index scoped by organization (btree_gin, as 0006).
 * - A wishlist refers to its customer without a cascade: deleting a customer deletes their wishlists in the service,
 *   which sends wishlist.deleted for each and keeps the products' wishlists_count exact.
 * - wishlist_items: deleted with their wishlist. An item refers to its product without a cascade for the same reason
 *   (deleting a product removes its items in the service, with wishlist.updated). An item keeps the variant id it was
 *   added with (no foreign key, like order items): a store may drop a variant while the list still holds the product.
 *   wishlist_items_product_idx finds the lists holding a product (product deletion, items.productId filters).
 * - products.wishlists_count and its sort index (organization_id, wishlists_count, id) exist since 0002.
 */
const STATEMENTS = [
  sql`create table wishlists (
    organization_id uuid not null,
    id uuid not null,
    customer_id uuid not null,
    name text not null,
    remote_id text,
    metadata jsonb not null default '{}',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (organization_id, id),
    foreign key (organization_id, customer_id) references customers (organization_id, id))`,
  sql`create unique index wishlists_remote_id_key on wishlists (organization_id, remote_id) where remote_id is not null`,
  sql`create index wishlists_customer_name_idx on wishlists (organization_id, customer_id, name)`,
  sql`create index wishlists_created_idx on wishlists (organization_id, created_at, id)`,
  sql`create index wishlists_updated_idx on wishlists (organization_id, updated_at, id)`,
  sql`create index wishlists_name_idx on wishlists (organization_id, name, id)`,
  sql`create index wishlists_name_trgm on wishlists using gin (organization_id, lower(name) gin_trgm_ops)`,
  sql`create table wishlist_items (
    organization_id uuid not null,
    id uuid not null,
    wishlist_id uuid not null,
    product_id uuid not null,
    product_variant_id uuid,
    note text,
    added_at timestamptz not null default now(),
    primary key (organization_id, id),
    foreign key (organization_id, wishlist_id) references wishlists (organization_id, id) on delete cascade,
    foreign key (organization_id, product_id) references products (organization_id, id))`,
  sql`create index wishlist_items_wishlist_idx on wishlist_items (organization_id, wishlist_id, added_at, id)`,
  sql`create index wishlist_items_product_idx on wishlist_items (organization_id, product_id, wishlist_id)`,
  sql`create index wishlist_items_variant_idx on wishlist_items (organization_id, product_variant_id)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create extension if not exists btree_gin`.execute(db);
  for (const statement of STATEMENTS) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists wishlist_items`.execute(db);
  await sql`drop table if exists wishlists`.execute(db);
}
