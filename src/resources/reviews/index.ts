import type { ResourceModule } from '../../http/types.js';
import { reviewRoutes } from './routes.js';

export const reviewsResource: ResourceModule = {
  name: 'reviews',
  description: 'Product reviews (D30): import, list, edit, publish, delete and bulk-update.',
  routes: reviewRoutes,
};

/** Analytics: the list whose filter analytics queries take. */
export { reviewList } from './list.js';
/** Customers and products: deleting them deletes or unlinks reviews, which tells review summaries. */
export { deleteReviewsOfCustomer } from './queries.js';
export { notifySummaries } from './events.js';
