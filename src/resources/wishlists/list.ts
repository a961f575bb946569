import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { customerSearchText } from '../../records/customer.js';
import { customersOfWishlists, itemCountsOf, itemsOfWishlists } from './queries.js';

/**
 * What GET /wishlists can filter, sort, search and include (docs/api.md#wishlists, under the rules of
 * docs/api.md#lists). The sorts are served by the keyset indexes of migration 0027.
 */
export const wishlistList: ListDefinition = {
  name: 'wishlists',
  from: 'wishlists w',
  alias: 'w',
  select: 'w.*',
  joins: {
    customer: 'left join customers c on c.organization_id = w.organization_id and c.id = w.customer_id',
  },
  relations: {
    items: { from: 'wishlist_items wi', correlate: 'wi.organization_id = w.organization_id and wi.wishlist_id = w.id' },
  },
  fields: {
    id: { type: 'uuid', column: 'w.id' },
    customerId: { type: 'uuid', column: 'w.customer_id' },
    'customer.email': { type: 'string', column: 'c.email', join: 'customer' },
    name: { type: 'string', column: 'w.name' },
    remoteId: { type: 'string', column: 'w.remote_id' },
    'items.productId': { type: 'uuid', column: 'wi.product_id', many: 'items' },
    'items.productVariantId': { type: 'uuid', column: 'wi.product_variant_id', many: 'items' },
    metadata: { type: 'metadata', column: 'w.metadata' },
    createdAt: { type: 'timestamp', column: 'w.created_at' },
    updatedAt: { type: 'timestamp', column: 'w.updated_at' },
  },
  sorts: {
    createdAt: { column: 'w.created_at', type: 'timestamp', nullable: false },
    updatedAt: { column: 'w.updated_at', type: 'timestamp', nullable: false },
    name: { column: 'w.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  // Search: the name (wishlists_name_trgm's expression) and the owner's email, the customers narrowed through
  // customers_search_trgm's expression into an array computed once, as reviews do (docs/api.md#wishlists).
  search: (pattern, organizationId) => sql`(lower(w.name) like lower(${pattern}) or w.customer_id = any(array(
    select s.id from customers s where s.organization_id = ${organizationId ?? sql`w.organization_id`}
      and ${customerSearchText('s')} like lower(${pattern}) and lower(s.email) like lower(${pattern}))))`,
  includes: {
    items: { load: ({ db, organizationId }, ids) => itemsOfWishlists(db, organizationId, ids), empty: () => [] },
    itemsCount: { load: ({ db, organizationId }, ids) => itemCountsOf(db, organizationId, ids), empty: () => 0 },
    customer: {
      load: ({ db, organizationId }, ids) => customersOfWishlists(db, organizationId, ids),
      empty: () => null,
    },
  },
};
