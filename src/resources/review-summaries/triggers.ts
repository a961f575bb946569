import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { jobsQueued } from '../../jobs/runner/wake.js';
import {
  lockSummaries,
  markFirstGenerations,
  reviewStats,
  saveReviewsFingerprints,
  withdrawSources,
} from './queries.js';
import { queueGenerations } from './queue.js';

/**
 * Called by the reviews resource inside the transaction that changed reviews (import, PATCH, bulk-update, DELETE,
 * customer and product deletion), with the products whose published reviews may have changed. A product reaching the
 * organization's reviewSummaryMinReviews queues its first generation (not a regeneration: the daily allowance is
 * untouched; docs/api.md#summary-threshold-and-first-generation). For products with a summary it records the reviews'
 * new fingerprint, which the overnight refresh compares with the one the summary was generated from. A summary whose
 * words come from a review that is no longer readable (unpublished, flagged, deleted, moved) is regenerated at once,
 * also outside the daily allowance (withdrawSources: a `previous` quoting one is dropped, a summary with no readable
 * review left is removed).
 */
export async function publishedReviewsChanged(
  trx: Transaction<DB>,
  organizationId: string,
  productIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(productIds)].sort();
  if (ids.length === 0) return;
  const now = new Date();
  await lockSummaries(trx, organizationId, ids);
  const stats = await reviewStats(trx, organizationId, ids, now);
  await saveReviewsFingerprints(
    trx,
    organizationId,
    stats
      .filter((row) => row.has_row && row.reviews_fingerprint !== row.fingerprint)
      .map((row) => ({ productId: row.product_id, fingerprint: row.fingerprint })),
    now,
  );
  const withdrawn = await withdrawSources(
    trx,
    organizationId,
    stats.filter((row) => row.has_summary).map((row) => row.product_id),
    now,
  );
  const due = stats.filter((row) => row.eligible >= row.threshold && !row.has_summary && !row.pending);
  const marked = await markFirstGenerations(
    trx,
    organizationId,
    due.map((row) => ({ productId: row.product_id, fingerprint: row.fingerprint })),
    now,
  );
  const queued = [...withdrawn, ...marked];
  if (queued.length === 0) return;
  await queueGenerations(trx, organizationId, queued, now);
  // The runner of this process looks for the job at once and keeps looking for a moment, until this commits.
  jobsQueued();
}
