// What bench/list-latency.ts and bench/build-pair.ts both need to aim at the same product page: the includes it asks
// for and which product it asks about.
import type pg from 'pg';

/** Every include GET /v1/products/{id} offers. */
export const PRODUCT_INCLUDES = ['importJob', 'reviewsCount', 'wishlistsCount', 'variantsCount', 'tags', 'variants'];

/** The organization's product with the most published reviews (its heaviest product page), and that count. */
export async function mostReviewedProduct(
  client: pg.Client,
  organizationId: string,
): Promise<{ id: string; publishedReviews: number }> {
  const { rows } = await client.query<{ id: string; reviews: string }>(
    `select r.product_id as id, count(*) as reviews from reviews r where r.organization_id = $1 and r.published
     group by r.product_id order by count(*) desc, r.product_id limit 1`,
    [organizationId],
  );
  if (!rows[0]) throw new Error(`organization ${organizationId} has no published review: build the bench store first`);
  return { id: rows[0].id, publishedReviews: Number(rows[0].reviews) };
}
