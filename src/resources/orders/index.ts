import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { orderRoutes } from './routes.js';
import { Order } from '../../records/order.js';
import { csvColumn, type ExportSource } from '../../resource-kit/export-csv.js';
import { toOrder } from '../../records/order.js';
import { orderList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importOrders } from './service.js';
import { OrderImportBody } from './schemas.js';
import { orderCascades } from './cascades.js';

/** Analytics: the list whose filter analytics queries take. */
export { orderList } from './list.js';

/** Export jobs: the orders list, one CSV line per line item when include=items (docs/api.md#export-jobs). */
export const orderExport: ExportSource = {
  list: orderList,
  record: Order,
  toRecord: toOrder,
  permission: 'orders:read',
  csvLines: 'items',
  csvSql: {
    id: csvColumn.uuid('o.id'),
    siteId: csvColumn.uuid('o.site_id'),
    customerId: csvColumn.uuid('o.customer_id'),
    remoteId: csvColumn.text('o.remote_id'),
    number: csvColumn.text('o.number'),
    totalCents: csvColumn.integer('o.total_cents'),
    subtotalCents: csvColumn.integer('o.subtotal_cents'),
    shippingCents: csvColumn.integer('o.shipping_cents'),
    taxCents: csvColumn.integer('o.tax_cents'),
    currencyCode: csvColumn.text('o.currency_code'),
    shippedAt: csvColumn.timestamp('o.shipped_at'),
    deliveredAt: csvColumn.timestamp('o.delivered_at'),
    cancelledAt: csvColumn.timestamp('o.cancelled_at'),
    metadata: csvColumn.metadata('o.metadata'),
    notes: csvColumn.text('o.notes'),
    createdAt: csvColumn.timestamp('o.created_at'),
    updatedAt: csvColumn.timestamp('o.updated_at'),
  },
};

/** Import jobs: the orders import, rows matched on remoteId, one CSV line per item (docs/api.md#import-jobs). */
export const orderImport: ImportSource = {
  permission: 'orders:write',
  body: OrderImportBody,
  record: Order,
  aliases: {
    customerId: 'customer',
    siteId: 'site',
    'items.productId': 'items.product',
    'items.productVariantId': 'items.variant',
  },
  lines: { field: 'items', key: ['remoteId'] },
  duplicateKey: (row) => (typeof row.remoteId === 'string' ? row.remoteId : undefined),
  run: (trx, organizationId, body, provenance) =>
    importOrders(trx, organizationId, body as OrderImportBody, provenance),
};

export const ordersResource: ResourceModuleWithLists = {
  name: 'orders',
  description: 'Orders and their line items mirrored from the store. Only metadata, notes and tags are editable.',
  routes: orderRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['order.updated', 'order.deleted'],
      schema: Order,
      firesWhen: {
        'order.updated':
          'PATCH /orders/{id}, and each order that POST /orders/import creates or changes or PATCH /orders/bulk-update changes.',
        'order.deleted': 'DELETE /orders/{id}.',
      },
    },
  ],
  // Orders keep their customer and their site (docs/architecture.md#declared-cascades).
  cascades: orderCascades,
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { orders: orderExport },
  imports: { orders: orderImport },
};
