import type { Selectable } from 'kysely';
import type { ReviewsTable } from '../db/schema.js';
import type { Review } from '../resources/reviews/schemas.js';

export type ReviewRow = Selectable<ReviewsTable>;

/** The columns toReview reads: what writes return (not organization_id, remote_id). */
export const REVIEW_FIELDS = [
  'id',
  'product_id',
  'customer_id',
  'rating',
  'title',
  'body',
  'published',
  'verified_buyer',
  'flagged',
  'language',
  'answers',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ReviewRow)[];
export type ReviewFields = Pick<ReviewRow, (typeof REVIEW_FIELDS)[number]>;

/** The one mapping from a review row to its API shape (D30, no extras); products use it for their deletion events. */
export const toReview = (row: ReviewFields): Review => ({
  id: row.id,
  productId: row.product_id,
  customerId: row.customer_id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  published: row.published,
  verifiedBuyer: row.verified_buyer,
  flagged: row.flagged,
  language: row.language,
  answers: row.answers,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
