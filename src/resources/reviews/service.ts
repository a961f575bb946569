import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { ApiError, notFound } from '../../core/errors.js';
import { compileSelection, getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../lists/query.js';
import { refuseOverfullMetadata } from '../../resource-kit/bulk-update.js';
import { notifySummaries } from './events.js';
import { importReviews } from './import.js';
import { reviewList } from './list.js';
import {
  bulkEditReviews,
  deleteReview,
  editReview,
  findReview,
  removeReply,
  writeReply,
  type ReplyAuthor,
} from './queries.js';
import { queueReviewRepliedMail } from './reply-mail.js';
import type { Logger } from '../../util/logger.js';
import { type ReviewBulkUpdateBody, type ReviewImportBody, type ReviewPatch } from './schemas.js';
import { toReview, reviewEvent, type Review } from '../../records/review.js';

export class ReviewService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: reviewList, organizationId, params, toRecord: toReview });
  }

  async get(organizationId: string, id: string, include?: string): Promise<Review> {
    return getRecord(this.db, {
      list: reviewList,
      organizationId,
      include,
      find: () => findReview(this.db, organizationId, id),
      toRecord: toReview,
      missing: () => notFound('The review'),
    });
  }

  /**
   * Publication, flag and metadata (replaced wholesale). A change sends review.updated; a PATCH that changes nothing
   * writes nothing and sends no event (service.md: the event is for an edit or a change of published state).
   */
  async update(organizationId: string, id: string, patch: ReviewPatch): Promise<Review> {
    return this.db.transaction().execute(async (trx) => {
      const before = await findReview(trx, organizationId, id, true);
      if (!before) throw notFound('The review');
      const after = await editReview(trx, organizationId, id, patch);
      if (!after) return toReview(before);
      await notifySummaries(trx, organizationId, [{ before, after }]);
      await recordEvents(trx, [reviewEvent(organizationId, 'review.updated', after)]);
      return toReview(after);
    });
  }

  async delete(organizationId: string, id: string): Promise<Review> {
    return this.db.transaction().execute(async (trx) => {
      const row = await deleteReview(trx, organizationId, id);
      if (!row) throw notFound('The review');
      await notifySummaries(trx, organizationId, [{ before: row }]);
      await recordEvents(trx, [reviewEvent(organizationId, 'review.deleted', row)]);
      return toReview(row);
    });
  }

  /**
   * PUT /reviews/{id}/reply (docs/api.md#review-replies): sets the reply, or replaces its text, and sends
   * review.replied with the mail to the reviewer, all in one transaction. The text already stored writes nothing and
   * sends nothing, whoever sends it.
   */
  async setReply(
    organizationId: string,
    id: string,
    reply: { body: string; author: ReplyAuthor },
    logger: Logger,
  ): Promise<Review> {
    return this.db.transaction().execute(async (trx) => {
      const before = await findReview(trx, organizationId, id, true);
      if (!before) throw notFound('The review');
      const after = await writeReply(trx, organizationId, id, reply);
      if (!after) return toReview(before);
      await queueReviewRepliedMail(trx, organizationId, after, logger);
      await recordEvents(trx, [reviewEvent(organizationId, 'review.replied', after)]);
      return toReview(after);
    });
  }

  /**
   * DELETE /reviews/{id}/reply (docs/api.md#review-replies): removes the reply and sends review.replyDeleted with the
   * review as it is now. A review without a reply is 404, saying so, as a missing review is.
   */
  async deleteReply(organizationId: string, id: string): Promise<Review> {
    return this.db.transaction().execute(async (trx) => {
      const before = await findReview(trx, organizationId, id, true);
      if (!before) throw notFound('The review');
      const after = await removeReply(trx, organizationId, id);
      if (!after) throw new ApiError('NOT_FOUND', 'The review has no reply to delete.');
      await recordEvents(trx, [reviewEvent(organizationId, 'review.replyDeleted', after)]);
      return toReview(after);
    });
  }

  /**
   * PATCH /reviews/bulk-update: every review the filter and search select (all of the organization's without them)
   * gets the body's publication, flag and metadata changes, in one transaction. Returns how many were selected;
   * review.updated goes out for each review that actually changed.
   */
  async bulkUpdate(organizationId: string, selection: SelectionParams, changes: ReviewBulkUpdateBody): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const compiled = compileSelection(reviewList, organizationId, selection);
      const { rows: selected } = await sql<{ id: string }>`
        select r.id from reviews r ${compiled.joins} where ${compiled.where} order by r.id for update of r`.execute(
        trx,
      );
      const changed = await bulkEditReviews(
        trx,
        organizationId,
        selected.map((row) => row.id),
        changes,
      );
      refuseOverfullMetadata(changed, { plural: 'reviews', singular: 'review' });
      await notifySummaries(
        trx,
        organizationId,
        changed.map((after) => ({
          before: { ...after, published: after.old_published, flagged: after.old_flagged },
          after,
        })),
      );
      await recordEvents(
        trx,
        changed.map((row) => reviewEvent(organizationId, 'review.updated', row)),
      );
      return selected.length;
    });
  }

  async import(organizationId: string, body: ReviewImportBody) {
    return this.db.transaction().execute((trx) => importReviews(trx, organizationId, body));
  }
}
