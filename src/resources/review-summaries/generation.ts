import Value from 'typebox/value';
import type { JobContext } from '../../jobs/runner/types.js';
import { GenerationError, type SummaryGenerator } from './generators/types.js';
import type { ReviewSummaryMetrics } from './metrics.js';
import { clearPending, findPending, summarizableReviews, writeGenerated, type SummarizableReviewRow } from './queries.js';
import { GeneratedSummary, type ReviewSummaryVersion } from './schemas.js';

export interface GenerationDependencies {
  generator: SummaryGenerator;
  metrics: ReviewSummaryMetrics;
}

export type GenerationOutcome = 'written' | 'skipped' | 'belowThreshold';

/** The generator's output, checked against the summary schema before it can replace anything. */
function validated(output: unknown, reviewsRead: number): GeneratedSummary {
  const problem = [...Value.Errors(GeneratedSummary, output)][0];
  if (problem) throw new GenerationError('invalid_output', `The generator's output does not fit the summary schema: ${problem.instancePath || '/'} ${problem.message}.`);
  const summary = output as GeneratedSummary;
  if (!summary.summary.trim()) throw new GenerationError('invalid_output', 'The generator wrote an empty summary.');
  const overcounted = summary.themes.find((theme) => theme.reviewCount > reviewsRead);
  if (overcounted) throw new GenerationError('invalid_output', `Theme "${overcounted.label}" claims ${overcounted.reviewCount} reviews of ${reviewsRead}.`);
  return summary;
}

const toReviewText = (row: SummarizableReviewRow) => ({
  id: row.id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  language: row.language,
  createdAt: row.created_at,
});

/**
 * Runs one queued generation for a product (the `reviewSummary.generate` job): reads its published reviews, asks
 * the generator, validates, and writes the summary live with the replaced one kept as `previous`. A failure leaves
 * the current summary untouched, is logged and counted, and is thrown so the runner retries it; after the last
 * attempt the pending mark is cleared (a manual regeneration then does not count against the daily allowance).
 */
export async function generateProductSummary(dependencies: GenerationDependencies, job: JobContext, productId: string): Promise<GenerationOutcome> {
  const { generator, metrics } = dependencies;
  const { db, organizationId, now, logger } = job;
  const labels = { generator: generator.kind };
  const pending = await findPending(db, organizationId, productId);
  if (!pending?.pending_since) {
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    return 'skipped';
  }
  const { reviews, fingerprint } = await summarizableReviews(db, organizationId, productId);
  if (reviews.length < pending.threshold) {
    await clearPending(db, organizationId, productId, now);
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    logger.info({ organizationId, productId, reviews: reviews.length, threshold: pending.threshold }, 'review summary not generated: too few published reviews now');
    return 'belowThreshold';
  }
  // Reviews come oldest first: a generator with a limit reads the newest.
  const read = generator.maxReviews !== undefined && reviews.length > generator.maxReviews ? reviews.slice(-generator.maxReviews) : reviews;
  const context = { organizationId, productId, generator: generator.kind, model: generator.modelId, reason: pending.pending_reason, reviews: read.length };
  const stopTimer = metrics.duration.startTimer(labels);
  let output: GeneratedSummary;
  try {
    output = validated(await generator.generate(read.map(toReviewText)), read.length);
  } catch (error) {
    const reason = error instanceof GenerationError ? error.reason : 'error';
    metrics.generations.inc({ ...labels, outcome: 'failed' });
    metrics.failures.inc({ ...labels, reason });
    logger.error({ ...context, failure: reason, err: error, willRetry: !job.finalAttempt }, 'review summary generation failed; the current summary is unchanged');
    if (job.finalAttempt) await clearPending(db, organizationId, productId, now);
    throw error;
  } finally {
    stopTimer();
  }
  const newest = read.reduce((latest, review) => (review.created_at > latest ? review.created_at : latest), read[0]!.created_at);
  const version: ReviewSummaryVersion = {
    summary: output.summary,
    themes: output.themes,
    language: output.language,
    reviewCount: read.length,
    newestReviewAt: newest.toISOString(),
    modelId: generator.modelId,
    promptVersion: generator.promptVersion,
    generatedAt: now.toISOString(),
  };
  if (!(await writeGenerated(db, organizationId, productId, version, fingerprint, now))) {
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    return 'skipped';
  }
  metrics.generations.inc({ ...labels, outcome: 'succeeded' });
  logger.info({ ...context, themes: version.themes.length, language: version.language }, 'review summary written');
  return 'written';
}
