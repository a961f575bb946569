import type { ResourceModule } from '../../http/types.js';
import { productRoutes } from './routes.js';

export const productsResource: ResourceModule = {
  name: 'products',
  description: 'Catalog products and variants mirrored from the store. Only metadata, notes and tags are editable.',
  routes: productRoutes,
};

/** Analytics: the list whose filter analytics queries take. */
export { productList } from './list.js';
