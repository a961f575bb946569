import { sql } from 'kysely';
import { nullableUuidArrayLiteral, plainArrayLiteral } from '../../db/arrays.js';
import { columnList, type Executor } from '../../db/executor.js';
import { PREPARE } from '../../db/prepared.js';
import { CUSTOMER_COLUMNS, toCustomer, type CustomerFields } from '../../records/customer.js';
import {
  toWishlistItem,
  WISHLIST_COLUMNS,
  WISHLIST_ITEM_COLUMNS,
  type WishlistFields,
  type WishlistItemFields,
} from '../../records/wishlist.js';

export async function findWishlist(
  db: Executor,
  organizationId: string,
  id: string,
  lock = false,
): Promise<WishlistFields | undefined> {
  const { rows } = await sql<WishlistFields>`
    select ${columnList(WISHLIST_COLUMNS)} from wishlists where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

/** The items of each wishlist, oldest first, one query for all of them. */
export async function itemRowsOf(
  db: Executor,
  organizationId: string,
  wishlistIds: readonly string[],
): Promise<Map<string, WishlistItemFields[]>> {
  const byWishlist = new Map<string, WishlistItemFields[]>(wishlistIds.map((id) => [id, []]));
  if (wishlistIds.length === 0) return byWishlist;
  const { rows } = await sql<WishlistItemFields>`
    select ${columnList(WISHLIST_ITEM_COLUMNS)} from wishlist_items
    where organization_id = ${organizationId}::uuid and wishlist_id = any(${[...wishlistIds]}::uuid[])
    order by wishlist_id, added_at, id`.execute(db);
  for (const row of rows) byWishlist.get(row.wishlist_id)?.push(row);
  return byWishlist;
}

/** include=items: the API shape of each wishlist's items. */
export async function itemsOfWishlists(
  db: Executor,
  organizationId: string,
  wishlistIds: readonly string[],
): Promise<Map<string, unknown>> {
  const rows = await itemRowsOf(db, organizationId, wishlistIds);
  return new Map([...rows].map(([id, items]) => [id, items.map(toWishlistItem)]));
}

/** include=itemsCount, one grouped query for the page. */
export async function itemCountsOf(
  db: Executor,
  organizationId: string,
  wishlistIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<{ wishlist_id: string; n: number }>`
    select wishlist_id, count(*)::int as n from wishlist_items
    where organization_id = ${organizationId}::uuid and wishlist_id = any(${[...wishlistIds]}::uuid[])
    group by wishlist_id`.execute(db);
  return new Map(rows.map((row) => [row.wishlist_id, row.n]));
}

/** include=customer: the owner of each wishlist, one query for the page. */
export async function customersOfWishlists(
  db: Executor,
  organizationId: string,
  wishlistIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<CustomerFields & { wishlist_id: string }>`
    select ${columnList(CUSTOMER_COLUMNS, 'c')}, w.id as wishlist_id from wishlists w
    join customers c on c.organization_id = w.organization_id and c.id = w.customer_id
    where w.organization_id = ${organizationId}::uuid and w.id = any(${[...wishlistIds]}::uuid[])`.execute(db);
  return new Map(rows.map(({ wishlist_id, ...customer }) => [wishlist_id, toCustomer(customer)]));
}

/** Moves a wishlist's updatedAt for a change of its items (docs/api.md#wishlists); returns the row as it is now. */
export async function touchWishlist(trx: Executor, organizationId: string, id: string): Promise<WishlistFields> {
  const { rows } = await sql<WishlistFields>`
    update wishlists set updated_at = now() where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    returning ${columnList(WISHLIST_COLUMNS)}`.execute(trx);
  return rows[0]!;
}

/**
 * Inserts items, every column one array parameter (a prepared statement: the same text whatever the count), an item
 * without addedAt taking the transaction's time.
 */
export async function insertItems(
  trx: Executor,
  organizationId: string,
  items: readonly {
    id: string;
    wishlistId: string;
    productId: string;
    variantId: string | null;
    note: string | null;
    addedAt?: string | undefined;
  }[],
): Promise<void> {
  if (items.length === 0) return;
  await sql`${PREPARE}
    insert into wishlist_items (organization_id, id, wishlist_id, product_id, product_variant_id, note, added_at)
    select ${organizationId}::uuid, u.id, u.wishlist_id, u.product_id, u.product_variant_id, u.note, coalesce(u.added_at, now())
    from unnest(${plainArrayLiteral(items.map((item) => item.id))}::uuid[],
      ${plainArrayLiteral(items.map((item) => item.wishlistId))}::uuid[],
      ${plainArrayLiteral(items.map((item) => item.productId))}::uuid[],
      ${nullableUuidArrayLiteral(items.map((item) => item.variantId))}::uuid[],
      ${items.map((item) => item.note)}::text[],
      ${items.map((item) => item.addedAt ?? null)}::timestamptz[])
      as u(id, wishlist_id, product_id, product_variant_id, note, added_at)`.execute(trx);
}

export async function deleteItems(trx: Executor, organizationId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`delete from wishlist_items where organization_id = ${organizationId}::uuid and id = any(${[...ids]}::uuid[])`.execute(
    trx,
  );
}

export async function updateItems(
  trx: Executor,
  organizationId: string,
  items: readonly { id: string; note: string | null; addedAt: string }[],
): Promise<void> {
  if (items.length === 0) return;
  await sql`
    update wishlist_items t set note = u.note, added_at = u.added_at
    from json_to_recordset(${JSON.stringify(items.map((item) => ({ id: item.id, note: item.note, added_at: item.addedAt })))}::json)
      as u(id uuid, note text, added_at timestamptz)
    where t.organization_id = ${organizationId}::uuid and t.id = u.id`.execute(trx);
}

/**
 * Adds each delta to its product's wishlistsCount (docs/api.md#wishlists), kept in product_wishlist_counts rather than
 * on the product row: the narrow row's update touches two small indexes where the product's touched all of its own.
 * One upsert adds every delta, taking the rows in product id order (writers lock wishlists first, then these, so
 * concurrent writers queue instead of deadlocking); it reads the row as the last committed writer left it (or
 * inserts it, when a concurrent writer's insert or delete settles first), so concurrent writers on different lists
 * add up exactly. A product holds a row only while its count is above 0: the rows this upsert brought to 0 are
 * deleted next, among rows this transaction already locked, so no other transaction sees them.
 */
export async function adjustWishlistsCounts(
  trx: Executor,
  organizationId: string,
  deltas: ReadonlyMap<string, number>,
): Promise<void> {
  const entries = [...deltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return;
  await sql`${PREPARE}
    insert into product_wishlist_counts as c (organization_id, product_id, wishlists_count)
    select ${organizationId}::uuid, d.id, d.delta
    from unnest(${plainArrayLiteral(entries.map(([id]) => id))}::uuid[], ${plainArrayLiteral(entries.map(([, delta]) => delta))}::int[])
      as d(id, delta)
    order by d.id
    on conflict (organization_id, product_id) do update set wishlists_count = c.wishlists_count + excluded.wishlists_count`.execute(
    trx,
  );
  const falling = entries.filter(([, delta]) => delta < 0).map(([id]) => id);
  if (falling.length === 0) return;
  await sql`${PREPARE}
    delete from product_wishlist_counts
    where organization_id = ${organizationId}::uuid and product_id = any(${plainArrayLiteral(falling)}::uuid[])
      and wishlists_count = 0`.execute(trx);
}

export async function deleteWishlistRows(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<WishlistFields[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<WishlistFields>`
    delete from wishlists where organization_id = ${organizationId}::uuid and id = any(${[...ids]}::uuid[])
    returning ${columnList(WISHLIST_COLUMNS)}`.execute(trx);
  return rows;
}

/** Locks wishlists in id order (how every writer takes them) and returns them. */
export async function lockWishlists(
  trx: Executor,
  organizationId: string,
  where: { customerId: string } | { productId: string },
): Promise<WishlistFields[]> {
  const condition =
    'customerId' in where
      ? sql`customer_id = ${where.customerId}::uuid`
      : sql`id in (select wishlist_id from wishlist_items i where i.organization_id = ${organizationId}::uuid
          and i.product_id = ${where.productId}::uuid)`;
  const { rows } = await sql<WishlistFields>`
    select ${columnList(WISHLIST_COLUMNS)} from wishlists
    where organization_id = ${organizationId}::uuid and ${condition}
    order by id for update`.execute(trx);
  return rows;
}
