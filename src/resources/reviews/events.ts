import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ReviewFields } from '../../records/review.js';
import { publishedReviewsChanged } from '../review-summaries/index.js';

/** What a product's summary is made from: the review counts for it only while published and linked to it. */
type SummaryInput = Pick<
  ReviewFields,
  'product_id' | 'published' | 'flagged' | 'rating' | 'title' | 'body' | 'language' | 'created_at'
>;

/** A review before and after a change; undefined on the side where it did not exist. */
export interface ReviewChange {
  before?: SummaryInput | undefined;
  after?: SummaryInput | undefined;
}

const summaryKey = (row: SummaryInput | undefined) =>
  row?.published && row.product_id
    ? JSON.stringify([
        row.product_id,
        row.flagged,
        row.rating,
        row.title,
        row.body,
        row.language,
        row.created_at.getTime(),
      ])
    : null;

/**
 * The products whose published reviews a set of changes touched: a review that was published for a product, or is
 * now, and whose publication, product or text differs. Moving a published review between products touches both.
 */
export function touchedProducts(changes: Iterable<ReviewChange>): string[] {
  const products = new Set<string>();
  for (const { before, after } of changes) {
    if (summaryKey(before) === summaryKey(after)) continue;
    if (before?.published && before.product_id) products.add(before.product_id);
    if (after?.published && after.product_id) products.add(after.product_id);
  }
  return [...products];
}

/**
 * Tells review summaries which products' published reviews changed, inside the change's transaction
 * (docs/api.md#review-events-and-deletions); call it before recordEvents, which must come last.
 */
export async function notifySummaries(
  trx: Transaction<DB>,
  organizationId: string,
  changes: Iterable<ReviewChange>,
): Promise<void> {
  const products = touchedProducts(changes);
  if (products.length) await publishedReviewsChanged(trx, organizationId, products);
}
