import type { ResourceModule } from '../../http/types.js';
import { reviewRoutes } from './routes.js';

export const reviewsResource: ResourceModule = {
  name: 'reviews',
  description: 'Product reviews (D30): import, list, edit, publish, delete and bulk-update.',
  routes: reviewRoutes,
};
