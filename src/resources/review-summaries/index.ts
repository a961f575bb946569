import type { ResourceModule } from '../../core/types.js';
import { createSummaryGenerator } from './generators/index.js';
import { reviewSummaryJobs } from './jobs.js';
import { reviewSummaryRoutes } from './routes.js';

export const reviewSummariesResource: ResourceModule = {
  name: 'review-summaries',
  description: 'Generated review summaries per product : read, hide, regenerate, accept, revert.',
  routes: reviewSummaryRoutes,
  jobs: ({ config, registry }) =>
    reviewSummaryJobs({ generator: createSummaryGenerator(config.reviewSummaryGenerator), registry }),
};

/** Reviews and products: a change to a product's published reviews queues its summary's generation. */
export { publishedReviewsChanged } from './triggers.js';
