import type { ResourceModule } from '../../http/types.js';
import { orderRoutes } from './routes.js';
import { Order } from '../../records/order.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toOrder } from '../../records/order.js';
import { orderList } from './list.js';

export const ordersResource: ResourceModule = {
  name: 'orders',
  description: 'Orders and their line items mirrored from the store. Only metadata, notes and tags are editable.',
  routes: orderRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [{ names: ['order.updated', 'order.deleted'], schema: Order }],
};

/** Analytics: the list whose filter analytics queries take. */
export { orderList } from './list.js';

/** Export jobs: the orders list, one CSV line per line item when include=items (docs/api.md#export-jobs). */
export const orderExport: ExportSource = {
  list: orderList,
  record: Order,
  toRecord: toOrder,
  permission: 'orders:read',
  csvLines: 'items',
};
