/** What reviews hold under customers and products (docs/architecture.md#declared-cascades). */
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import type { CascadeEdge } from '../../core/cascades.js';
import { REVIEW_COLUMNS, reviewEvent, type ReviewFields } from '../../records/review.js';
import { CUSTOMER, PRODUCT } from '../../resource-kit/cascade-parents.js';
import { publishedReviewsChanged } from '../review-summaries/index.js';
import { notifySummaries } from './events.js';
import { deleteReviewsOfCustomer } from './queries.js';

const settingRead = new WeakMap<Executor, Promise<boolean>>();

/**
 * The organization's cascadeDeleteReviews: whether a deleted product's reviews and questions are deleted rather than
 * unlinked. Read once per transaction, however many of the product's children ask.
 */
export function cascadeDeleteReviews(trx: Transaction<DB>, organizationId: string): Promise<boolean> {
  let read = settingRead.get(trx);
  if (!read) {
    read = trx
      .selectFrom('organizations')
      .select('cascade_delete_reviews')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow()
      .then((row) => row.cascade_delete_reviews);
    settingRead.set(trx, read);
  }
  return read;
}

/**
 * Service.md DELETE /products: reviews are unlinked and unpublished, or deleted with cascadeDeleteReviews. Returns
 * the reviews as they are now (unlinked) or were (deleted), for their events.
 */
async function detachReviews(
  trx: Executor,
  organizationId: string,
  productId: string,
  cascade: boolean,
): Promise<ReviewFields[]> {
  if (cascade) {
    return trx
      .deleteFrom('reviews')
      .where('organization_id', '=', organizationId)
      .where('product_id', '=', productId)
      .returning(REVIEW_COLUMNS)
      .execute();
  }
  return trx
    .updateTable('reviews')
    .set({ product_id: null, published: false, updated_at: sql<Date>`now()` })
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productId)
    .returning(REVIEW_COLUMNS)
    .execute();
}

export const reviewCascades: readonly CascadeEdge[] = [
  {
    // A deleted customer's words go with them (review.deleted each), and the summaries they fed are refreshed
    // without them.
    parent: CUSTOMER,
    references: [{ table: 'reviews', column: 'customer_id' }],
    action: 'delete',
    order: 10,
    async run(trx, organizationId, customerId) {
      const reviews = await deleteReviewsOfCustomer(trx, organizationId, customerId);
      await notifySummaries(
        trx,
        organizationId,
        reviews.map((review) => ({ before: review })),
      );
      return { events: reviews.map((review) => reviewEvent(organizationId, 'review.deleted', review)) };
    },
  },
  {
    // A deleted product's reviews are unlinked and unpublished (review.updated each), or deleted with
    // cascadeDeleteReviews (review.deleted each); its summary is refreshed once the product is gone.
    parent: PRODUCT,
    references: [{ table: 'reviews', column: 'product_id' }],
    action: 'delete-or-detach',
    order: 10,
    async run(trx, organizationId, productId) {
      const cascade = await cascadeDeleteReviews(trx, organizationId);
      const reviews = await detachReviews(trx, organizationId, productId, cascade);
      return {
        events: reviews.map((review) =>
          reviewEvent(organizationId, cascade ? 'review.deleted' : 'review.updated', review),
        ),
        afterParentDeleted: async () => {
          if (reviews.length) await publishedReviewsChanged(trx, organizationId, [productId]);
        },
      };
    },
  },
];
