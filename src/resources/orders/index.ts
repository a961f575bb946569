import type { ResourceModule } from '../../http/types.js';
import { orderRoutes } from './routes.js';
import { Order } from '../../records/order.js';

export const ordersResource: ResourceModule = {
  name: 'orders',
  description: 'Orders and their line items mirrored from the store. Only metadata, notes and tags are editable.',
  routes: orderRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [{ names: ['order.updated', 'order.deleted'], schema: Order }],
};

/** Analytics: the list whose filter analytics queries take. */
export { orderList } from './list.js';
