import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { countBy } from '../../resource-kit/counts.js';
import { latestImportJobs } from '../../resource-kit/imports.js';
import { tagNamesOf } from '../../resource-kit/tags.js';
import { customersOfOrders, itemsOfOrders } from './queries.js';
import { EMAIL_OPT_OUT_SOURCES } from '../../records/customer.js';
import { joinedCustomerFields } from '../../records/customer.js';

/** What GET /orders can filter, sort, search and include (service.md Orders table; docs/api.md#lists). */
export const orderList: ListDefinition = {
  name: 'orders',
  from: 'orders o',
  alias: 'o',
  select: 'o.*',
  joins: {
    customer: 'left join customers c on c.organization_id = o.organization_id and c.id = o.customer_id',
  },
  relations: {
    items: { from: 'order_items oi', correlate: 'oi.organization_id = o.organization_id and oi.order_id = o.id' },
    tags: {
      from: 'order_tags ot join tags t on t.organization_id = ot.organization_id and t.id = ot.tag_id',
      correlate: 'ot.organization_id = o.organization_id and ot.order_id = o.id',
    },
  },
  fields: {
    id: { type: 'uuid', column: 'o.id' },
    number: { type: 'string', column: 'o.number' },
    totalCents: { type: 'integer', column: 'o.total_cents' },
    currencyCode: { type: 'string', column: 'o.currency_code' },
    shippedAt: { type: 'timestamp', column: 'o.shipped_at' },
    deliveredAt: { type: 'timestamp', column: 'o.delivered_at' },
    cancelledAt: { type: 'timestamp', column: 'o.cancelled_at' },
    metadata: { type: 'metadata', column: 'o.metadata' },
    createdAt: { type: 'timestamp', column: 'o.created_at' },
    // Every order has its customer (foreign key), so customer.id needs no join.
    ...joinedCustomerFields('o.customer_id'),
    'customer.emailOptOut': { type: 'boolean', column: 'c.email_opt_out', join: 'customer' },
    'customer.emailOptOutSource': {
      type: 'enum',
      column: 'c.email_opt_out_source',
      join: 'customer',
      enumValues: EMAIL_OPT_OUT_SOURCES,
    },
    'customer.createdAt': { type: 'timestamp', column: 'c.created_at', join: 'customer' },
    'items.productId': { type: 'uuid', column: 'oi.product_id', many: 'items' },
    'items.productVariantId': { type: 'uuid', column: 'oi.product_variant_id', many: 'items' },
    'tags.name': { type: 'string', column: 't.name', many: 'tags' },
  },
  sorts: {
    number: { column: 'o.number', type: 'string', nullable: false },
    createdAt: { column: 'o.created_at', type: 'timestamp', nullable: false },
    totalCents: { column: 'o.total_cents', type: 'integer', nullable: false },
  },
  defaultSort: '-createdAt',
  // Search (docs/api.md#search): number, remoteId and customer email; the email part is a subquery so the customers
  // trigram index serves it.
  search: (pattern) => sql`o.number ilike ${pattern} or o.remote_id ilike ${pattern}
    or o.customer_id in (select id from customers where organization_id = o.organization_id and email ilike ${pattern})`,
  includes: {
    importJob: { load: ({ db, organizationId }, ids) => latestImportJobs(db, organizationId, ids), empty: () => null },
    itemsCount: {
      load: ({ db, organizationId }, ids) =>
        countBy(db, organizationId, ids, { table: 'order_items', ownerColumn: 'order_id' }),
      empty: () => 0,
    },
    customer: { load: ({ db, organizationId }, ids) => customersOfOrders(db, organizationId, ids), empty: () => null },
    items: { load: ({ db, organizationId }, ids) => itemsOfOrders(db, organizationId, ids), empty: () => [] },
    tags: { load: ({ db, organizationId }, ids) => tagNamesOf(db, organizationId, 'order', ids), empty: () => [] },
  },
};
