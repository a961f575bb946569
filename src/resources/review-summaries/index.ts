import type { ResourceModule } from '../../core/types.js';
import { createSummaryGenerator } from './generators/index.js';
import { reviewSummaryJobs } from './jobs.js';
import { reviewSummaryRoutes } from './routes.js';
import { PRODUCT } from '../../resource-kit/cascade-parents.js';

export const reviewSummariesResource: ResourceModule = {
  name: 'review-summaries',
  description: 'Generated review summaries per product : read, hide, regenerate, accept, revert.',
  routes: reviewSummaryRoutes,
  jobs: ({ config, registry }) =>
    reviewSummaryJobs({ generator: createSummaryGenerator(config.reviewSummaryGenerator), registry }),
  // A deleted product's summary goes with it by its foreign key, sending nothing (docs/architecture.md#declared-cascades).
  cascades: [
    {
      parent: PRODUCT,
      references: [{ table: 'review_summaries', column: 'product_id' }],
      action: 'foreign-key',
      order: 50,
    },
  ],
};

/** Reviews and products: a change to a product's published reviews queues its summary's generation. */
export { publishedReviewsChanged } from './triggers.js';
