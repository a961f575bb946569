import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { customersOfReviews, productsOfReviews } from './queries.js';
import { EMAIL_OPT_OUT_SOURCES } from '../../records/customer.js';
import { customerSearchText, joinedCustomerFields } from '../../records/customer.js';
import { REPLY_AUTHOR_TYPES } from '../../records/review.js';

/** A review's searched text, written exactly as the expression of the reviews_text_trgm index (migration 0012). */
export const reviewSearchText = (alias: string) => sql.raw(`lower(${alias}.title || ' ' || ${alias}.body)`);

/**
 * What GET /reviews (and its bulk update, and analytics over reviews) can filter, sort, search and include
 * (docs/api.md#listing-and-editing-reviews, under the rules of docs/api.md#lists). Every sort and the search are served
 * by the indexes of migration 0012.
 */
export const reviewList: ListDefinition = {
  name: 'reviews',
  from: 'reviews r',
  alias: 'r',
  select: 'r.*',
  joins: {
    customer: 'left join customers c on c.organization_id = r.organization_id and c.id = r.customer_id',
    product: 'left join products p on p.organization_id = r.organization_id and p.id = r.product_id',
  },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'r.id' },
    productId: { type: 'uuid', column: 'r.product_id' },
    customerId: { type: 'uuid', column: 'r.customer_id' },
    remoteId: { type: 'string', column: 'r.remote_id' },
    rating: { type: 'integer', column: 'r.rating' },
    published: { type: 'boolean', column: 'r.published' },
    verifiedBuyer: { type: 'boolean', column: 'r.verified_buyer' },
    flagged: { type: 'boolean', column: 'r.flagged' },
    language: { type: 'string', column: 'r.language' },
    metadata: { type: 'metadata', column: 'r.metadata' },
    createdAt: { type: 'timestamp', column: 'r.created_at' },
    updatedAt: { type: 'timestamp', column: 'r.updated_at' },
    // The reply's fields (docs/api.md#review-replies): `reply.createdAt: null` finds the reviews not replied to.
    'reply.createdAt': { type: 'timestamp', column: 'r.reply_created_at' },
    'reply.updatedAt': { type: 'timestamp', column: 'r.reply_updated_at' },
    'reply.author.type': { type: 'enum', column: 'r.reply_author_type', enumValues: REPLY_AUTHOR_TYPES },
    'reply.author.id': { type: 'string', column: 'r.reply_author_id' },
    ...joinedCustomerFields('r.customer_id'),
    'customer.emailOptOut': { type: 'boolean', column: 'c.email_opt_out', join: 'customer' },
    'customer.emailOptOutSource': {
      type: 'enum',
      column: 'c.email_opt_out_source',
      join: 'customer',
      enumValues: EMAIL_OPT_OUT_SOURCES,
    },
    'customer.createdAt': { type: 'timestamp', column: 'c.created_at', join: 'customer' },
    'product.id': { type: 'uuid', column: 'r.product_id' },
    'product.slug': { type: 'string', column: 'p.slug', join: 'product' },
    'product.title': { type: 'string', column: 'p.title', join: 'product' },
    'product.metadata': { type: 'metadata', column: 'p.metadata', join: 'product' },
  },
  sorts: {
    createdAt: { column: 'r.created_at', type: 'timestamp', nullable: false },
    updatedAt: { column: 'r.updated_at', type: 'timestamp', nullable: false },
    rating: { column: 'r.rating', type: 'integer', nullable: false },
  },
  defaultSort: '-createdAt',
  // Search: title, body and the reviewer's email (docs/api.md#listing-and-editing-reviews). The text is compared as the
  // expression of reviews_text_trgm (migration 0012); the customers as customers_search_trgm's expression first (so
  // that index applies), narrowed to the email, into an array computed once, so the OR is two index scans rather than a
  // probe per review.
  search: (
    pattern,
    organizationId,
  ) => sql`(${reviewSearchText('r')} like lower(${pattern}) or r.customer_id = any(array(
    select s.id from customers s where s.organization_id = ${organizationId ?? sql`r.organization_id`}
      and ${customerSearchText('s')} like lower(${pattern}) and lower(s.email) like lower(${pattern}))))`,
  includes: {
    customer: { load: ({ db, organizationId }, ids) => customersOfReviews(db, organizationId, ids), empty: () => null },
    product: { load: ({ db, organizationId }, ids) => productsOfReviews(db, organizationId, ids), empty: () => null },
  },
};
