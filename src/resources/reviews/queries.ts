import { sql } from 'kysely';
import { pageReferences } from '../../resource-kit/page-references.js';
import { REVIEW_COLUMNS, type ReviewFields } from '../../records/review.js';
import { columnList, type Executor } from '../../db/executor.js';
import { CUSTOMER_COLUMNS, toCustomer, type CustomerFields } from '../../records/customer.js';
import { PRODUCT_COLUMNS, toProduct, type ProductFields } from '../../records/product.js';

export async function findReview(
  db: Executor,
  organizationId: string,
  id: string,
  lock = false,
): Promise<ReviewFields | undefined> {
  const { rows } = await sql<ReviewFields>`
    select ${columnList(REVIEW_COLUMNS)} from reviews where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

const customerOfReview = pageReferences<CustomerFields>({
  from: 'reviews',
  column: 'customer_id',
  to: 'customers',
  columns: CUSTOMER_COLUMNS,
});
const productOfReview = pageReferences<ProductFields>({
  from: 'reviews',
  column: 'product_id',
  to: 'products',
  columns: PRODUCT_COLUMNS,
});

/** The reviewer of each review (include=customer), one query for the page; a deleted customer is absent. */
export const customersOfReviews = (db: Executor, organizationId: string, reviewIds: readonly string[]) =>
  customerOfReview(db, organizationId, reviewIds, toCustomer);

/** The reviewed product of each review (include=product, base fields), one query for the page; unlinked ones are absent. */
export const productsOfReviews = (db: Executor, organizationId: string, reviewIds: readonly string[]) =>
  productOfReview(db, organizationId, reviewIds, toProduct);

/** What a PATCH changes; undefined leaves a field alone. */
export interface ReviewEdit {
  published?: boolean | undefined;
  flagged?: boolean | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * Applies a PATCH to a review the caller has locked; returns the new row, or undefined when the values sent are
 * the stored ones (nothing written: updatedAt stays and no event is due).
 */
export async function editReview(
  trx: Executor,
  organizationId: string,
  id: string,
  edit: ReviewEdit,
): Promise<ReviewFields | undefined> {
  const published = edit.published ?? null;
  const flagged = edit.flagged ?? null;
  const metadata = edit.metadata === undefined ? null : JSON.stringify(edit.metadata);
  const { rows } = await sql<ReviewFields>`
    update reviews set
      published = coalesce(${published}::boolean, published),
      flagged = coalesce(${flagged}::boolean, flagged),
      metadata = coalesce(${metadata}::jsonb, metadata),
      updated_at = now()
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid
      and (published, flagged, metadata) is distinct from
        (coalesce(${published}::boolean, published), coalesce(${flagged}::boolean, flagged), coalesce(${metadata}::jsonb, metadata))
    returning ${columnList(REVIEW_COLUMNS)}`.execute(trx);
  return rows[0];
}

export async function deleteReview(
  trx: Executor,
  organizationId: string,
  id: string,
): Promise<ReviewFields | undefined> {
  const { rows } = await sql<ReviewFields>`
    delete from reviews where organization_id = ${organizationId}::uuid and id = ${id}::uuid returning ${columnList(REVIEW_COLUMNS)}`.execute(
    trx,
  );
  return rows[0];
}

/** Every review the customer wrote, deleted (a deleted customer's words go with them). */
export async function deleteReviewsOfCustomer(
  trx: Executor,
  organizationId: string,
  customerId: string,
): Promise<ReviewFields[]> {
  const { rows } = await sql<ReviewFields>`
    delete from reviews where organization_id = ${organizationId}::uuid and customer_id = ${customerId}::uuid returning ${columnList(REVIEW_COLUMNS)}`.execute(
    trx,
  );
  return rows;
}

/** A changed review with the state it had before: bulk updates and imports need both (summaries, events). */
export type ChangedReview = ReviewFields & { old_published: boolean; old_flagged: boolean };

/**
 * The bulk-update write over the locked ids: publication and flag set, metadata merged and pruned. Only reviews
 * whose values change are written (and returned, with their previous publication and flag).
 */
export async function bulkEditReviews(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
  changes: {
    published?: boolean | undefined;
    flagged?: boolean | undefined;
    addMetadata?: Record<string, string> | undefined;
    removeMetadataKeys?: string[] | undefined;
  },
): Promise<ChangedReview[]> {
  if (ids.length === 0) return [];
  const published = changes.published ?? null;
  const flagged = changes.flagged ?? null;
  const add = JSON.stringify(changes.addMetadata ?? {});
  const remove = changes.removeMetadataKeys ?? [];
  // The self-join reads each row as it was before this statement: the previous publication for summaries.
  const { rows } = await sql<ChangedReview>`
    update reviews t set
      published = coalesce(${published}::boolean, o.published),
      flagged = coalesce(${flagged}::boolean, o.flagged),
      metadata = (o.metadata || ${add}::jsonb) - ${remove}::text[],
      updated_at = now()
    from reviews o
    where o.organization_id = ${organizationId}::uuid and o.id = any(${[...ids]}::uuid[])
      and t.organization_id = o.organization_id and t.id = o.id
      and (o.published, o.flagged, o.metadata) is distinct from
        (coalesce(${published}::boolean, o.published), coalesce(${flagged}::boolean, o.flagged), (o.metadata || ${add}::jsonb) - ${remove}::text[])
    returning ${columnList(REVIEW_COLUMNS, 't')}, o.published as old_published, o.flagged as old_flagged`.execute(trx);
  return rows;
}

/** Who writes a reply: the caller, as the audit log names them (docs/api.md#review-replies). */
export interface ReplyAuthor {
  type: 'apiKey' | 'user';
  id: string;
  label: string;
}

/**
 * Sets or replaces the reply of a review the caller has locked: the first reply's time stays, the text, its author and
 * both updatedAt move. Returns the new row, or undefined when the review already has this very text (nothing written:
 * no event, no mail, docs/api.md#writes-that-change-nothing).
 */
export async function writeReply(
  trx: Executor,
  organizationId: string,
  id: string,
  { body, author }: { body: string; author: ReplyAuthor },
): Promise<ReviewFields | undefined> {
  const { rows } = await sql<ReviewFields>`
    update reviews set
      reply_body = ${body},
      reply_created_at = coalesce(reply_created_at, now()),
      reply_updated_at = now(),
      reply_author_type = ${author.type},
      reply_author_id = ${author.id},
      reply_author_label = ${author.label},
      updated_at = now()
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid and reply_body is distinct from ${body}
    returning ${columnList(REVIEW_COLUMNS)}`.execute(trx);
  return rows[0];
}

/** Removes the reply of a review the caller has locked; undefined when it has none. */
export async function removeReply(
  trx: Executor,
  organizationId: string,
  id: string,
): Promise<ReviewFields | undefined> {
  const { rows } = await sql<ReviewFields>`
    update reviews set
      reply_body = null, reply_created_at = null, reply_updated_at = null,
      reply_author_type = null, reply_author_id = null, reply_author_label = null,
      updated_at = now()
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid and reply_body is not null
    returning ${columnList(REVIEW_COLUMNS)}`.execute(trx);
  return rows[0];
}
