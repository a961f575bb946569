import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { joinedCustomerFields } from '../../records/customer.js';
import { QUESTION_SOURCES, QUESTION_STATUSES } from '../../records/product-question.js';
import { answerCountsOf, answersOfQuestions, customersOfQuestions, productsOfQuestions } from './queries.js';

/**
 * A question's searched text, written exactly as the expression of the product_questions_text_trgm index
 * (migration 0028): the question, the author's name and email.
 */
export const questionSearchText = (alias: string) =>
  sql.raw(`lower(${alias}.body || ' ' || ${alias}.author_name || ' ' || coalesce(${alias}.author_email, ''))`);

/**
 * What GET /product-questions can filter, sort, search and include (docs/api.md#product-questions-and-answers, under
 * the rules of docs/api.md#lists). Both sorts walk the keyset indexes of migration 0028.
 */
export const productQuestionList: ListDefinition = {
  name: 'product-questions',
  from: 'product_questions q',
  alias: 'q',
  select: 'q.*',
  joins: {
    customer: 'left join customers c on c.organization_id = q.organization_id and c.id = q.customer_id',
    product: 'left join products p on p.organization_id = q.organization_id and p.id = q.product_id',
  },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'q.id' },
    productId: { type: 'uuid', column: 'q.product_id' },
    customerId: { type: 'uuid', column: 'q.customer_id' },
    remoteId: { type: 'string', column: 'q.remote_id' },
    status: { type: 'enum', column: 'q.status', enumValues: QUESTION_STATUSES },
    source: { type: 'enum', column: 'q.source', enumValues: QUESTION_SOURCES },
    authorEmail: { type: 'string', column: 'q.author_email' },
    metadata: { type: 'metadata', column: 'q.metadata' },
    createdAt: { type: 'timestamp', column: 'q.created_at' },
    updatedAt: { type: 'timestamp', column: 'q.updated_at' },
    publishedAt: { type: 'timestamp', column: 'q.published_at' },
    ...joinedCustomerFields('q.customer_id'),
    'product.id': { type: 'uuid', column: 'q.product_id' },
    'product.slug': { type: 'string', column: 'p.slug', join: 'product' },
    'product.title': { type: 'string', column: 'p.title', join: 'product' },
  },
  sorts: {
    createdAt: { column: 'q.created_at', type: 'timestamp', nullable: false },
    publishedAt: { column: 'q.published_at', type: 'timestamp', nullable: true },
  },
  defaultSort: '-createdAt',
  // Search: the question, the author's name and email, as product_questions_text_trgm's expression (migration 0028).
  search: (pattern) => sql`${questionSearchText('q')} like lower(${pattern})`,
  includes: {
    answers: {
      load: ({ db, organizationId }, ids) => answersOfQuestions(db, organizationId, ids),
      empty: () => [],
    },
    answersCount: {
      load: ({ db, organizationId }, ids) => answerCountsOf(db, organizationId, ids),
      empty: () => 0,
    },
    customer: {
      load: ({ db, organizationId }, ids) => customersOfQuestions(db, organizationId, ids),
      empty: () => null,
    },
    product: {
      load: ({ db, organizationId }, ids) => productsOfQuestions(db, organizationId, ids),
      empty: () => null,
    },
  },
};
