import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { Wishlist } from '../../records/wishlist.js';
import { wishlistRoutes } from './routes.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toWishlist } from '../../records/wishlist.js';
import { wishlistList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importWishlists } from './import.js';
import { WishlistImportBody } from './schemas.js';
import { wishlistCascades } from './cascades.js';

/** Analytics and quick filters: the list whose filter they take. */
export { wishlistList } from './list.js';

/** Export jobs: the wishlists list, one CSV line per item when include=items (docs/api.md#export-jobs). */
export const wishlistExport: ExportSource = {
  list: wishlistList,
  record: Wishlist,
  toRecord: toWishlist,
  permission: 'wishlists:read',
  csvLines: 'items',
};

/** Import jobs: the wishlists import, one CSV line per item (docs/api.md#import-jobs). */
export const wishlistImport: ImportSource = {
  permission: 'wishlists:write',
  body: WishlistImportBody,
  record: wishlistExport.record,
  aliases: { customerId: 'customer', 'items.productId': 'items.product', 'items.productVariantId': 'items.variant' },
  lines: { field: 'items', key: ['remoteId', 'customer', 'name'] },
  duplicateKey: (row) => (typeof row.remoteId === 'string' ? row.remoteId : undefined),
  run: (trx, organizationId, body) => importWishlists(trx, organizationId, body as WishlistImportBody),
};

export const wishlistsResource: ResourceModuleWithLists = {
  name: 'wishlists',
  permissions: ['wishlists:read', 'wishlists:write'],
  description: "Customers' wishlists of products: import, list, rename, add and remove items, delete.",
  routes: wishlistRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['wishlist.created', 'wishlist.updated', 'wishlist.deleted'],
      schema: Wishlist,
      firesWhen:
        'A wishlist changes. There are no item-level events: adding, removing or editing an item sends wishlist.updated for its list.',
    },
  ],
  // Deleting a customer deletes their wishlists; deleting a product removes it from every wishlist.
  cascades: wishlistCascades,
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { wishlists: wishlistExport },
  imports: { wishlists: wishlistImport },
};
