/** The wishlist record (docs/api.md#wishlists): its response shapes, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { WishlistItemsTable, WishlistsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from './common.js';
import { EmbeddedCustomer } from './customer.js';

/** One product (and optionally one of its variants) a wishlist holds. */
export const WishlistItem = Type.Object(
  {
    id: Uuid,
    productId: Uuid,
    productVariantId: Type.Union([Uuid, Type.Null()], {
      description: 'The variant wished for; null when the item names the product only.',
    }),
    note: Type.Union([Type.String(), Type.Null()]),
    addedAt: Timestamp,
  },
  { $id: 'WishlistItem', additionalProperties: false },
);
export type WishlistItem = Static<typeof WishlistItem>;

/**
 * A wishlist as the API and its webhooks show it (docs/api.md#wishlists): only the extras that were requested are
 * present, except in events, which always carry items and itemsCount.
 */
export const Wishlist = Type.Object(
  {
    id: Uuid,
    customerId: Uuid,
    name: Type.String(),
    remoteId: Type.Union([Type.String(), Type.Null()], {
      description: 'Identifier in the originating system; import matches on it.',
    }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    items: Type.Optional(Type.Array(WishlistItem, { description: 'include=items; oldest first.' })),
    itemsCount: Type.Optional(Type.Integer({ minimum: 0, description: 'include=itemsCount.' })),
    customer: Type.Optional(Type.Union([EmbeddedCustomer, Type.Null()], { description: 'include=customer.' })),
  },
  { $id: 'Wishlist', additionalProperties: false },
);
export type Wishlist = Static<typeof Wishlist>;

export type WishlistRow = Selectable<WishlistsTable>;
export type WishlistItemRow = Selectable<WishlistItemsTable>;

/** The columns toWishlist reads: what writes return. */
export const WISHLIST_COLUMNS = [
  'id',
  'customer_id',
  'name',
  'remote_id',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof WishlistRow)[];
export type WishlistFields = Pick<WishlistRow, (typeof WISHLIST_COLUMNS)[number]>;

/** The columns toWishlistItem reads (and the wishlist they belong to). */
export const WISHLIST_ITEM_COLUMNS = [
  'id',
  'wishlist_id',
  'product_id',
  'product_variant_id',
  'note',
  'added_at',
] as const satisfies readonly (keyof WishlistItemRow)[];
export type WishlistItemFields = Pick<WishlistItemRow, (typeof WISHLIST_ITEM_COLUMNS)[number]>;

export const toWishlistItem = (row: WishlistItemFields): WishlistItem => ({
  id: row.id,
  productId: row.product_id,
  productVariantId: row.product_variant_id,
  note: row.note,
  addedAt: row.added_at.toISOString(),
});

/** The one mapping from a wishlist row to its API shape, without extras (docs/api.md#wishlists). */
export const toWishlist = (row: WishlistFields): Wishlist => ({
  id: row.id,
  customerId: row.customer_id,
  name: row.name,
  remoteId: row.remote_id,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A wishlist with its items, as writes answer it and events carry it. */
export const toWishlistWithItems = (row: WishlistFields, items: readonly WishlistItemFields[]): Wishlist => ({
  ...toWishlist(row),
  items: items.map(toWishlistItem),
  itemsCount: items.length,
});

export type WishlistEventName = 'wishlist.created' | 'wishlist.updated' | 'wishlist.deleted';

/**
 * A wishlist event: the record with its items (as they are now, or were when deleted), since item changes are told
 * only by wishlist.updated (docs/api.md#wishlists).
 */
export const wishlistEvent = (
  organizationId: string,
  name: WishlistEventName,
  row: WishlistFields,
  items: readonly WishlistItemFields[],
): EventToRecord => wishlistEventOf(organizationId, name, toWishlistWithItems(row, items));

/** The same, from the record a write also answers (built once for both). */
export const wishlistEventOf = (organizationId: string, name: WishlistEventName, record: Wishlist): EventToRecord => ({
  organizationId,
  name,
  schema: Wishlist,
  record,
});
