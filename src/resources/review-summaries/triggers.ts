import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * Called by the reviews resource inside the transaction that changed reviews (import, PATCH, bulk-update, DELETE,
 * product deletion), with the products whose published reviews may have changed. D20: a product reaching the
 * organization's reviewSummaryMinReviews queues its first generation.
 */
export async function publishedReviewsChanged(_trx: Transaction<DB>, _organizationId: string, _productIds: readonly string[]): Promise<void> {}
