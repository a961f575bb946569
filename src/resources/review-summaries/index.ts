import type { ResourceModule } from '../../http/types.js';
import { reviewSummaryRoutes } from './routes.js';

export const reviewSummariesResource: ResourceModule = {
  name: 'review-summaries',
  description: 'Generated review summaries per product (D20, D21): read, hide, regenerate, accept, revert.',
  routes: reviewSummaryRoutes,
};
