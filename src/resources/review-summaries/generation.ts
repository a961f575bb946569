import Value from 'typebox/value';
import type { JobContext } from '../../core/job-definition.js';
import { GenerationError, type GeneratorOutput, type SummaryGenerator } from './generators/types.js';
import type { ReviewSummaryMetrics } from './metrics.js';
import {
  clearPending,
  findPending,
  removeWithdrawnSummary,
  summarizableReviews,
  writeGenerated,
  type PendingRow,
  type SummarizableReviewRow,
} from './queries.js';
import { GeneratedSummary, type ReviewSummaryVersion } from './schemas.js';

export interface GenerationDependencies {
  generator: SummaryGenerator;
  metrics: ReviewSummaryMetrics;
}

export type GenerationOutcome = 'written' | 'skipped' | 'belowThreshold' | 'removed';

/** How many times one run generates again when a source review is withdrawn while it generates. */
const MAX_ROUNDS = 3;

/**
 * The generator's output, checked against the summary schema before it can replace anything, with its sources:
 * ids among the reviews read (a generator that does not say is taken to draw on all of them).
 */
function validated(output: unknown, read: readonly SummarizableReviewRow[]): GeneratorOutput {
  const isObject = output !== null && typeof output === 'object' && !Array.isArray(output);
  const { sourceReviewIds, ...fields } = isObject ? (output as Record<string, unknown>) : {};
  const candidate = isObject ? fields : output;
  const problem = [...Value.Errors(GeneratedSummary, candidate)][0];
  if (problem)
    throw new GenerationError(
      'invalid_output',
      `The generator's output does not fit the summary schema: ${problem.instancePath || '/'} ${problem.message}.`,
    );
  const summary = candidate as GeneratedSummary;
  if (!summary.summary.trim()) throw new GenerationError('invalid_output', 'The generator wrote an empty summary.');
  const overcounted = summary.themes.find((theme) => theme.reviewCount > read.length);
  if (overcounted)
    throw new GenerationError(
      'invalid_output',
      `Theme "${overcounted.label}" claims ${overcounted.reviewCount} reviews of ${read.length}.`,
    );
  const readIds = new Set(read.map((review) => review.id));
  if (sourceReviewIds === undefined) return { ...summary, sourceReviewIds: [...readIds] };
  if (!Array.isArray(sourceReviewIds) || sourceReviewIds.some((id) => typeof id !== 'string' || !readIds.has(id))) {
    throw new GenerationError(
      'invalid_output',
      'The generator named source reviews that are not among the reviews it read.',
    );
  }
  return { ...summary, sourceReviewIds: [...new Set(sourceReviewIds as string[])] };
}

/**
 * The newest reviews within the generator's bounds (reviews come oldest first), oldest first again; always the newest
 * one, since no review is longer than any bound (docs/api.md#summary-generators).
 */
function newestWithin(
  reviews: readonly SummarizableReviewRow[],
  { maxReviews = Infinity, maxCharacters = Infinity }: Pick<SummaryGenerator, 'maxReviews' | 'maxCharacters'>,
): SummarizableReviewRow[] {
  let first = reviews.length;
  let characters = 0;
  while (first > 0 && reviews.length - first < maxReviews) {
    const review = reviews[first - 1]!;
    characters += review.title.length + review.body.length;
    if (characters > maxCharacters && first < reviews.length) break;
    first -= 1;
  }
  return reviews.slice(first);
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
 * the current summary untouched (unless it quotes a withdrawn review: it is then removed rather than left on the
 * storefront), is logged and counted, and is thrown so the runner retries it; after the last attempt the pending
 * mark is cleared (a manual regeneration then does not count against the daily allowance).
 *
 * A summary quoting a withdrawn review is rewritten from the readable reviews left even below the threshold (it
 * exists already: the threshold is for the first one), and removed when none is left (docs/api.md#withdrawn-reviews).
 */
export async function generateProductSummary(
  dependencies: GenerationDependencies,
  job: JobContext,
  productId: string,
): Promise<GenerationOutcome> {
  const { generator, metrics } = dependencies;
  const { db, organizationId } = job;
  const pending = await findPending(db, organizationId, productId);
  if (!pending?.pending_since) {
    metrics.generations.inc({ generator: generator.kind, outcome: 'skipped' });
    return 'skipped';
  }
  let state: PendingRow = pending;
  for (let round = 1; ; round += 1) {
    const outcome = await generateOnce(dependencies, job, productId, state);
    if (outcome !== 'stale') return outcome;
    if (round === MAX_ROUNDS) {
      const error = new Error(
        `The product's reviews were withdrawn while its summary was generated, ${MAX_ROUNDS} times in a row.`,
      );
      await failed(dependencies, job, productId, {
        error,
        context: { organizationId, productId, generator: generator.kind },
      });
      throw error;
    }
    state = (await findPending(db, organizationId, productId)) ?? state;
  }
}

async function generateOnce(
  dependencies: GenerationDependencies,
  job: JobContext,
  productId: string,
  pending: PendingRow,
): Promise<GenerationOutcome | 'stale'> {
  const { generator, metrics } = dependencies;
  const { db, organizationId, now, logger } = job;
  const labels = { generator: generator.kind };
  const { reviews, fingerprint } = await summarizableReviews(db, organizationId, productId);
  if (reviews.length === 0 && pending.quotes_withdrawn) {
    await removeWithdrawnSummary(db, organizationId, productId, { fingerprint, now });
    await clearPending(db, organizationId, productId, now);
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    logger.info(
      { organizationId, productId },
      'review summary removed: it quoted a withdrawn review and no published review is left',
    );
    return 'removed';
  }
  if (reviews.length < pending.threshold && !pending.quotes_withdrawn) {
    await clearPending(db, organizationId, productId, now);
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    logger.info(
      { organizationId, productId, reviews: reviews.length, threshold: pending.threshold },
      'review summary not generated: too few published reviews now',
    );
    return 'belowThreshold';
  }
  const read = newestWithin(reviews, generator);
  const context = {
    organizationId,
    productId,
    generator: generator.kind,
    model: generator.modelId,
    reason: pending.pending_reason,
    reviews: read.length,
  };
  const stopTimer = metrics.duration.startTimer(labels);
  let output: GeneratorOutput;
  try {
    output = validated(await generator.generate(read.map(toReviewText)), read);
  } catch (error) {
    await failed(dependencies, job, productId, { error, context });
    throw error;
  } finally {
    stopTimer();
  }
  const newest = read.reduce(
    (latest, review) => (review.created_at > latest ? review.created_at : latest),
    read[0]!.created_at,
  );
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
  const written = await writeGenerated(db, organizationId, productId, {
    version,
    sourceReviewIds: output.sourceReviewIds,
    fingerprint,
    now,
  });
  if (written === 'stale') {
    logger.info(context, 'review summary not written: a review it quotes was withdrawn meanwhile; generating again');
    return 'stale';
  }
  if (written === 'gone') {
    metrics.generations.inc({ ...labels, outcome: 'skipped' });
    return 'skipped';
  }
  metrics.generations.inc({ ...labels, outcome: 'succeeded' });
  logger.info({ ...context, themes: version.themes.length, language: version.language }, 'review summary written');
  return 'written';
}

/**
 * A generation that produced nothing: counted and logged; a current summary quoting a withdrawn review is removed
 * rather than left to leak its words until a retry succeeds; after the last attempt the pending mark is cleared.
 */
async function failed(
  dependencies: GenerationDependencies,
  job: JobContext,
  productId: string,
  { error, context }: { error: unknown; context: Record<string, unknown> },
): Promise<void> {
  const { generator, metrics } = dependencies;
  const { db, organizationId, now, logger } = job;
  const reason = error instanceof GenerationError ? error.reason : 'error';
  metrics.generations.inc({ generator: generator.kind, outcome: 'failed' });
  metrics.failures.inc({ generator: generator.kind, reason });
  const removed = await removeWithdrawnSummary(db, organizationId, productId, { fingerprint: null, now });
  logger.error(
    { ...context, failure: reason, err: error, willRetry: !job.finalAttempt, ...(removed ? { removed: true } : {}) },
    removed
      ? 'review summary generation failed; the current summary quoted a withdrawn review and was removed'
      : 'review summary generation failed; the current summary is unchanged',
  );
  if (job.finalAttempt) await clearPending(db, organizationId, productId, now);
}
