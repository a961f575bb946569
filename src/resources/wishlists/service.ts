import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { recordEvents } from '../../events/outbox.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { conflict, notFound, unprocessable } from '../../core/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { updateIfChanged } from '../../resource-kit/changes.js';
import { resolveProductsWithVariants } from '../../resource-kit/references.js';
import { uuidv7 } from '../../util/ids.js';
import { isUuid } from '../../util/uuid.js';
import { countDeltas } from './counts.js';
import { importWishlists } from './import.js';
import { wishlistList } from './list.js';
import {
  adjustWishlistsCounts,
  deleteItems,
  deleteWishlistRows,
  findWishlist,
  insertItems,
  itemRowsOf,
  lockWishlists,
  touchWishlist,
  updateItems,
} from './queries.js';
import { MAX_ROW_ITEMS, type WishlistImportBody, type WishlistItemBody, type WishlistPatch } from './schemas.js';
import {
  toWishlist,
  toWishlistWithItems,
  wishlistEvent,
  type Wishlist,
  type WishlistFields,
  type WishlistItemFields,
} from '../../records/wishlist.js';

export class WishlistService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, wishlistList, organizationId, params, toWishlist);
  }

  async get(organizationId: string, id: string, include?: string): Promise<Wishlist> {
    return getRecord(this.db, wishlistList, organizationId, include, {
      find: () => findWishlist(this.db, organizationId, id),
      toRecord: toWishlist,
      missing: () => notFound('The wishlist'),
    });
  }

  /**
   * Name and metadata (replaced wholesale). A change sends wishlist.updated; a PATCH that changes nothing writes
   * nothing and sends nothing (docs/api.md#writes-that-change-nothing).
   */
  async update(organizationId: string, id: string, patch: WishlistPatch): Promise<Wishlist> {
    return this.db.transaction().execute(async (trx) => {
      const before = await findWishlist(trx, organizationId, id, true);
      if (!before) throw notFound('The wishlist');
      const after = await updateIfChanged(trx, 'wishlists', organizationId, id, {
        name: patch.name,
        metadata: patch.metadata,
      });
      if (!after) return toWishlist(before);
      const items = (await itemRowsOf(trx, organizationId, [id])).get(id)!;
      await recordEvents(trx, [wishlistEvent(organizationId, 'wishlist.updated', after, items)]);
      return toWishlist(after);
    });
  }

  /** Deletes a wishlist and its items; the products it held count one wishlist fewer. */
  async delete(organizationId: string, id: string): Promise<Wishlist> {
    return this.db.transaction().execute(async (trx) => {
      const row = await findWishlist(trx, organizationId, id, true);
      if (!row) throw notFound('The wishlist');
      const events = await deleteLockedWishlists(trx, organizationId, [row]);
      await recordEvents(trx, events);
      return toWishlist(row);
    });
  }

  /**
   * POST /wishlists/{id}/items: adds the product (and variant) to the list, or, when the list already holds that
   * product and variant, sets the note sent on that item (docs/api.md#wishlists). Answers the wishlist with its items
   * and whether an item was added (201) or not (200).
   */
  async addItem(
    organizationId: string,
    id: string,
    body: WishlistItemBody,
  ): Promise<{ added: boolean; wishlist: Wishlist }> {
    return this.db.transaction().execute(async (trx) => {
      const row = await findWishlist(trx, organizationId, id, true);
      if (!row) throw notFound('The wishlist');
      const { productId, variantId } = await resolveItem(trx, organizationId, body);
      const before = (await itemRowsOf(trx, organizationId, [id])).get(id)!;
      const same = before.find((item) => item.product_id === productId && item.product_variant_id === variantId);
      if (same) {
        if (body.note === undefined || body.note === same.note) {
          return { added: false, wishlist: toWishlistWithItems(row, before) };
        }
        await updateItems(trx, organizationId, [
          { id: same.id, note: body.note, addedAt: same.added_at.toISOString() },
        ]);
      } else {
        // A list holds at most what one import row may send (docs/api.md#wishlists).
        if (before.length >= MAX_ROW_ITEMS) {
          throw conflict(
            `The wishlist already holds ${MAX_ROW_ITEMS} items, the most a list holds; remove one before adding another.`,
          );
        }
        await insertItems(trx, organizationId, [
          { id: uuidv7(), wishlistId: id, productId, variantId, note: body.note ?? null },
        ]);
      }
      return { added: !same, wishlist: await afterItemChange(trx, organizationId, id, before) };
    });
  }

  /** DELETE /wishlists/{id}/items/{itemId}: answers the wishlist with its remaining items. */
  async removeItem(organizationId: string, id: string, itemId: string): Promise<Wishlist> {
    return this.db.transaction().execute(async (trx) => {
      const row = await findWishlist(trx, organizationId, id, true);
      if (!row) throw notFound('The wishlist');
      const before = (await itemRowsOf(trx, organizationId, [id])).get(id)!;
      // A path id may come in either case; the rows' ids are lower case.
      const wanted = itemId.toLowerCase();
      if (!before.some((item) => item.id === wanted)) throw notFound('The wishlist item');
      await deleteItems(trx, organizationId, [wanted]);
      return afterItemChange(trx, organizationId, id, before);
    });
  }

  async import(organizationId: string, body: WishlistImportBody) {
    return this.db.transaction().execute((trx) => importWishlists(trx, organizationId, body));
  }
}

/** After an item change of a locked wishlist: counts, updatedAt and wishlist.updated (recordEvents last). */
async function afterItemChange(
  trx: Transaction<DB>,
  organizationId: string,
  id: string,
  before: readonly WishlistItemFields[],
): Promise<Wishlist> {
  const after = (await itemRowsOf(trx, organizationId, [id])).get(id)!;
  await adjustWishlistsCounts(trx, organizationId, countDeltas([{ before, after }]));
  const row = await touchWishlist(trx, organizationId, id);
  await recordEvents(trx, [wishlistEvent(organizationId, 'wishlist.updated', row, after)]);
  return toWishlistWithItems(row, after);
}

/** The product (by id or slug) and variant (by id or slug within it, or none) an item names; 422 when missing. */
async function resolveItem(
  trx: Executor,
  organizationId: string,
  body: { product: string; variant?: string | undefined },
): Promise<{ productId: string; variantId: string | null }> {
  const { products, variants } = await resolveProductsWithVariants(trx, organizationId, [body.product]);
  const productId = products.get(body.product);
  if (!productId) {
    throw unprocessable(`Product "${body.product}" does not exist in this organization.`, [
      { path: 'body.product', message: 'no product has this id or slug' },
    ]);
  }
  if (body.variant === undefined) return { productId, variantId: null };
  const known = variants.get(productId)?.byReference;
  const variantId =
    known?.get(body.variant) ?? (isUuid(body.variant) ? known?.get(body.variant.toLowerCase()) : undefined);
  if (!variantId) {
    throw unprocessable(`Variant "${body.variant}" does not exist on product "${body.product}".`, [
      { path: 'body.variant', message: 'the product has no variant with this id or slug' },
    ]);
  }
  return { productId, variantId };
}

/**
 * Deletes wishlists the caller locked (in id order) with their items: the products they held count them no more,
 * and each sends wishlist.deleted carrying the items it had. Returns the events for the caller's recordEvents.
 */
export async function deleteLockedWishlists(
  trx: Executor,
  organizationId: string,
  rows: readonly WishlistFields[],
): Promise<EventToRecord[]> {
  if (rows.length === 0) return [];
  const items = await itemRowsOf(
    trx,
    organizationId,
    rows.map((row) => row.id),
  );
  await deleteWishlistRows(
    trx,
    organizationId,
    rows.map((row) => row.id),
  );
  await adjustWishlistsCounts(
    trx,
    organizationId,
    countDeltas(rows.map((row) => ({ before: items.get(row.id)!, after: [] }))),
  );
  return rows.map((row) => wishlistEvent(organizationId, 'wishlist.deleted', row, items.get(row.id)!));
}

/**
 * Customers: deleting a customer deletes their wishlists (docs/api.md#wishlists). Call it inside the customer's
 * deletion transaction, before the customer row goes; pass the events to recordEvents.
 */
export async function deleteWishlistsOfCustomer(
  trx: Executor,
  organizationId: string,
  customerId: string,
): Promise<EventToRecord[]> {
  const rows = await lockWishlists(trx, organizationId, { customerId });
  return deleteLockedWishlists(trx, organizationId, rows);
}

/**
 * Products: deleting a product removes its items from every wishlist holding it, each of which sends
 * wishlist.updated (docs/api.md#wishlists). Call it inside the product's deletion transaction before the product row
 * goes (the wishlists are locked first, as every wishlist writer does); pass the events to recordEvents. The
 * product's own count goes with it.
 */
export async function removeProductFromWishlists(
  trx: Executor,
  organizationId: string,
  productId: string,
): Promise<EventToRecord[]> {
  // The product's id from a path may be upper case; compared with the items' (lower case) below.
  const product = productId.toLowerCase();
  const rows = await lockWishlists(trx, organizationId, { productId: product });
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const before = await itemRowsOf(trx, organizationId, ids);
  await deleteItems(
    trx,
    organizationId,
    [...before.values()].flat().flatMap((item) => (item.product_id === product ? [item.id] : [])),
  );
  const events: EventToRecord[] = [];
  for (const row of rows) {
    const touched = await touchWishlist(trx, organizationId, row.id);
    const items = before.get(row.id)!.filter((item) => item.product_id !== product);
    events.push(wishlistEvent(organizationId, 'wishlist.updated', touched, items));
  }
  return events;
}
