import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { toCustomer, type CustomerRow } from '../customers/serialize.js';
import type { ProductFields } from '../products/queries.js';
import { toProduct } from '../products/service.js';
import { REVIEW_FIELDS, type ReviewFields } from './serialize.js';

type Db = Kysely<DB> | Transaction<DB>;

/** `r.id, r.product_id, …`: the columns toReview reads, for RETURNING and SELECT lists. */
export const reviewColumns = (alias?: string) => sql.raw(REVIEW_FIELDS.map((column) => (alias ? `${alias}.${column}` : column)).join(', '));

export async function findReview(db: Db, organizationId: string, id: string, lock = false): Promise<ReviewFields | undefined> {
  const { rows } = await sql<ReviewFields>`
    select ${reviewColumns()} from reviews where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

/** The reviewer of each review (include=customer), one query for the page; a deleted customer is absent. */
export async function customersOfReviews(db: Db, organizationId: string, reviewIds: readonly string[]): Promise<Map<string, unknown>> {
  const { rows } = await sql<CustomerRow & { review_id: string }>`
    select c.*, r.id as review_id from reviews r
    join customers c on c.organization_id = r.organization_id and c.id = r.customer_id
    where r.organization_id = ${organizationId}::uuid and r.id = any(${[...reviewIds]}::uuid[])`.execute(db);
  return new Map(rows.map(({ review_id, ...customer }) => [review_id, toCustomer(customer as CustomerRow)]));
}

/** The reviewed product of each review (include=product, base fields), one query for the page; unlinked ones are absent. */
export async function productsOfReviews(db: Db, organizationId: string, reviewIds: readonly string[]): Promise<Map<string, unknown>> {
  const { rows } = await sql<ProductFields & { review_id: string }>`
    select p.id, p.slug, p.title, p.description, p.image_url, p.url, p.metadata, p.notes, p.created_at, p.updated_at, r.id as review_id
    from reviews r
    join products p on p.organization_id = r.organization_id and p.id = r.product_id
    where r.organization_id = ${organizationId}::uuid and r.id = any(${[...reviewIds]}::uuid[])`.execute(db);
  return new Map(rows.map(({ review_id, ...product }) => [review_id, toProduct(product)]));
}
