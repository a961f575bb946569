import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ApiError, conflict, notFound } from '../../core/errors.js';
import { jobsQueued } from '../../jobs/runner/wake.js';
import {
  ensureSummaryRow,
  findProductSummary,
  forgetPrevious,
  lockSummaries,
  markManualRegeneration,
  revertToPrevious,
  reviewStats,
  setSuppressed,
  summaryRecord,
  withdrawSources,
  type SummaryRecordRow,
} from './queries.js';
import { queueGenerations } from './queue.js';
import type { ReviewSummary } from './schemas.js';

/** One regeneration by hand per product per rolling day (docs/api.md#regenerating-a-summary). */
export const REGENERATION_INTERVAL_MS = 24 * 60 * 60 * 1000;

const noProduct = () => notFound('The product');
const noSummary = () =>
  new ApiError(
    'NOT_FOUND',
    'This product has no review summary yet: it is written once the product has enough published reviews.',
  );

function toSummary(row: SummaryRecordRow): ReviewSummary {
  return {
    productId: row.product_id,
    ...(row.current as NonNullable<SummaryRecordRow['current']>),
    suppressedAt: row.suppressed_at ? row.suppressed_at.toISOString() : null,
    previous: row.previous,
  };
}

export class ReviewSummaryService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The summary, hidden or not (suppressedAt says which); null until one is written (docs/api.md#reading-a-summary).
   */
  async get(organizationId: string, productId: string): Promise<ReviewSummary | null> {
    const row = await findProductSummary(this.db, organizationId, productId);
    if (!row) throw noProduct();
    return row.current ? toSummary(row) : null;
  }

  /**
   * Hides or shows the summary. A hidden summary is left alone when a review it quotes is withdrawn (no automatic
   * regeneration while hidden: docs/api.md#withdrawn-reviews); showing it again catches up at once, in the same
   * transaction: it is queued for regeneration (not counted against the daily allowance) when it quotes a review
   * withdrawn meanwhile.
   */
  async setSuppressed(organizationId: string, productId: string, suppressed: boolean): Promise<ReviewSummary> {
    const now = this.clock();
    if (suppressed) {
      const row = await setSuppressed(this.db, organizationId, productId, true, now);
      return row ? toSummary(row) : this.refuseMissing(organizationId, productId);
    }
    const { row, queued } = await this.db.transaction().execute(async (trx) => {
      await lockSummaries(trx, organizationId, [productId]);
      if (!(await setSuppressed(trx, organizationId, productId, false, now))) return { row: undefined, queued: false };
      const withdrawn = await withdrawSources(trx, organizationId, [productId], now);
      await queueGenerations(trx, organizationId, withdrawn, now);
      return { row: await summaryRecord(trx, organizationId, productId), queued: withdrawn.length > 0 };
    });
    if (queued) jobsQueued();
    // No current summary left: it quoted only withdrawn reviews and none is readable any more (404 as before one).
    return row?.current ? toSummary(row) : this.refuseMissing(organizationId, productId);
  }

  /**
   * The current summary stays and `previous` is forgotten; with nothing to forget it is returned unchanged
   * (docs/api.md#accepting-and-reverting).
   */
  async accept(organizationId: string, productId: string): Promise<ReviewSummary> {
    const row = await forgetPrevious(this.db, organizationId, productId, this.clock());
    if (row) return toSummary(row);
    return this.refuseMissing(organizationId, productId);
  }

  /**
   * `previous` becomes current and the summary that replaced it is discarded; 409 with nothing to revert to, or
   * when `previous` quotes a review withdrawn since (its words must not come back).
   */
  async revert(organizationId: string, productId: string): Promise<ReviewSummary> {
    const row = await revertToPrevious(this.db, organizationId, productId, this.clock());
    if (row) return toSummary(row);
    const summary = await this.refuseMissing(organizationId, productId);
    if (summary.previous) {
      throw conflict(
        'The previous summary cannot come back: it quotes a review that has since been unpublished, flagged, deleted or moved to another product.',
      );
    }
    throw conflict(
      'There is nothing to revert to: only the most recent regeneration can be undone, and it was already accepted or reverted (or the summary was never regenerated, or the summary it replaced quoted a review since withdrawn).',
    );
  }

  /**
   * Queues a regeneration by hand (docs/api.md#regenerating-a-summary): once per rolling 24 hours per product (429 with
   * Retry-After past it); `queued: false` when one is already queued or the product has too few published reviews. A
   * suppressed summary may be regenerated and stays suppressed.
   */
  async regenerate(organizationId: string, productId: string): Promise<{ queued: boolean }> {
    const now = this.clock();
    const queued = await this.db.transaction().execute(async (trx) => {
      if ((await reviewStats(trx, organizationId, [productId], now)).length === 0) throw noProduct();
      await ensureSummaryRow(trx, organizationId, productId, now);
      await lockSummaries(trx, organizationId, [productId]);
      // Read again under the lock: a concurrent request that held it has committed by now.
      const [state] = await reviewStats(trx, organizationId, [productId], now);
      if (!state) throw noProduct();
      const requestedAt = state.regenerate_requested_at?.getTime();
      if (requestedAt !== undefined && now.getTime() - requestedAt < REGENERATION_INTERVAL_MS) {
        const retryAfter = Math.max(1, Math.ceil((requestedAt + REGENERATION_INTERVAL_MS - now.getTime()) / 1000));
        throw new ApiError(
          'TOO_MANY_REQUESTS',
          `This product's summary was already regenerated at ${new Date(requestedAt).toISOString()}; a summary can be regenerated once per 24 hours. Retry in ${retryAfter} seconds.`,
          undefined,
          { 'retry-after': String(retryAfter) },
        );
      }
      if (state.eligible < state.threshold || state.pending) return false;
      await markManualRegeneration(trx, organizationId, productId, now);
      await queueGenerations(trx, organizationId, [productId], now);
      return true;
    });
    if (queued) jobsQueued();
    return { queued };
  }

  /** After an update that found no written summary: the 404 that fits (no such product, or no summary yet). */
  private async refuseMissing(organizationId: string, productId: string): Promise<ReviewSummary> {
    const row = await findProductSummary(this.db, organizationId, productId);
    if (!row) throw noProduct();
    if (!row.current) throw noSummary();
    // A summary gets here from a revert with no previous to go back to (or one it must not go back to), and from a
    // PATCH that asks for the state the summary already is in, which writes nothing.
    return toSummary(row);
  }
}
