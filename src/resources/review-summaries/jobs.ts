import type { Registry } from 'prom-client';
import type { JobDefinition } from '../../core/job-definition.js';
import { generateProductSummary } from './generation.js';
import type { SummaryGenerator } from './generators/types.js';
import { createReviewSummaryMetrics } from './metrics.js';
import { markStaleForRefresh } from './queries.js';
import { GENERATE_JOB, productOfRunKey, queueGenerations, REFRESH_AT, REFRESH_JOB } from './queue.js';

export interface ReviewSummaryJobOptions {
  generator: SummaryGenerator;
  /** Where the generation metrics go (the app's registry in `serve`). */
  registry?: Registry | undefined;
}

/**
 * The review summary jobs: one product's generation (queued on reaching the threshold, a regeneration by hand or the
 * refresh; docs/api.md#generation-jobs), and the overnight refresh, which queues a generation for every shown summary
 * whose product's published reviews changed since it was written (suppressed ones are skipped:
 * docs/api.md#overnight-refresh).
 */
export function reviewSummaryJobs(options: ReviewSummaryJobOptions): JobDefinition[] {
  const dependencies = { generator: options.generator, metrics: createReviewSummaryMetrics(options.registry) };
  return [
    {
      name: GENERATE_JOB,
      run: async (context) => ({
        [await generateProductSummary(dependencies, context, productOfRunKey(context.runKey))]: 1,
      }),
    },
    {
      name: REFRESH_JOB,
      dailyAt: REFRESH_AT,
      run: async ({ db, organizationId, now }) => {
        const queued = await db.transaction().execute(async (trx) => {
          const products = await markStaleForRefresh(trx, organizationId, now);
          await queueGenerations(trx, organizationId, products, now);
          return products.length;
        });
        return { queued };
      },
    },
  ];
}
