import type { ResourceModule } from '../../http/types.js';
import { orderRoutes } from './routes.js';

export const ordersResource: ResourceModule = {
  name: 'orders',
  description: 'Orders and their line items mirrored from the store. Only metadata, notes and tags are editable.',
  routes: orderRoutes,
};

/** Analytics: the list whose filter analytics queries take. */
export { orderList } from './list.js';
