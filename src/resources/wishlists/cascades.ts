/** What wishlists hold under customers and products (docs/architecture.md#declared-cascades). */
import type { CascadeEdge } from '../../core/cascades.js';
import { CUSTOMER, PRODUCT } from '../../resource-kit/cascade-parents.js';
import { deleteWishlistsOfCustomer, removeProductFromWishlists } from './service.js';

export const wishlistCascades: readonly CascadeEdge[] = [
  {
    // A deleted customer's wishlists go too (wishlist.deleted each), and the products they held count them no more
    // (docs/api.md#wishlists).
    parent: CUSTOMER,
    references: [{ table: 'wishlists', column: 'customer_id' }],
    action: 'delete',
    order: 20,
    run: async (trx, organizationId, customerId) => ({
      events: await deleteWishlistsOfCustomer(trx, organizationId, customerId),
    }),
  },
  {
    // A deleted product's items leave every wishlist holding it (wishlist.updated each; docs/api.md#wishlists); the
    // lists are locked before the product row goes, in the order every wishlist writer takes them. Its own count
    // goes with the row.
    parent: PRODUCT,
    references: [
      { table: 'wishlist_items', column: 'product_id' },
      { table: 'product_wishlist_counts', column: 'product_id' },
    ],
    action: 'delete',
    order: 30,
    run: async (trx, organizationId, productId) => ({
      events: await removeProductFromWishlists(trx, organizationId, productId),
    }),
  },
];
