/**
 * The product question and answer records (docs/api.md#product-questions-and-answers): their response shapes, columns,
 * mapping and events.
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { ProductQuestionAnswersTable, ProductQuestionsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from './common.js';
import { EmbeddedCustomer } from './customer.js';
import { ReviewProduct } from './review.js';

export const QUESTION_STATUSES = ['pending', 'published', 'rejected'] as const;
export const QUESTION_SOURCES = ['shopper', 'merchant'] as const;
export const ANSWER_STATUSES = ['pending', 'published', 'hidden'] as const;
export const ANSWER_SOURCES = ['merchant', 'shopper'] as const;

/** One of a few strings, documented as an enum (a wrong value is told the allowed ones). */
const oneOf = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

/** The moderation status of a question; a request's field may say more (its default). */
export const questionStatus = (more = '') =>
  oneOf(
    QUESTION_STATUSES,
    `pending: awaiting moderation; published: shown on the storefront; rejected: never shown.${more}`,
  );
export const questionSource = (more = '') =>
  oneOf(QUESTION_SOURCES, `shopper: asked on the storefront; merchant: recorded by the merchant.${more}`);
export const answerStatus = (more = '') =>
  oneOf(
    ANSWER_STATUSES,
    `pending: awaiting moderation; published: shown under the question; hidden: taken down.${more}`,
  );
export const answerSource = (more = '') =>
  oneOf(ANSWER_SOURCES, `merchant: the store answered; shopper: another shopper did.${more}`);

/** An answer to a product question, as the API and its webhooks show it. */
export const ProductQuestionAnswer = Type.Object(
  {
    id: Uuid,
    questionId: Uuid,
    body: Type.String(),
    authorName: Type.String(),
    source: answerSource(),
    status: answerStatus(),
    publishedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the answer was last published; null while it is not.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ProductQuestionAnswer', additionalProperties: false },
);
export type ProductQuestionAnswer = Static<typeof ProductQuestionAnswer>;

/**
 * A product question as the API and its webhooks show it (docs/api.md#product-questions-and-answers): only the extras
 * that were requested are present, except in events, which always carry answers and answersCount.
 */
export const ProductQuestion = Type.Object(
  {
    id: Uuid,
    productId: Type.Union([Uuid, Type.Null()], {
      description: 'The product asked about; null once the product was deleted and the question unlinked.',
    }),
    customerId: Type.Union([Uuid, Type.Null()], {
      description: 'The asking customer; null for a question asked without an account, or once the link is unknown.',
    }),
    authorName: Type.String(),
    authorEmail: Type.Union([Type.String(), Type.Null()]),
    body: Type.String(),
    status: questionStatus(),
    source: questionSource(),
    remoteId: Type.Union([Type.String(), Type.Null()], {
      description: 'Identifier in the originating system; import matches on it.',
    }),
    publishedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the question was last published; null while it is not.',
    }),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    answers: Type.Optional(
      Type.Array(ProductQuestionAnswer, { description: 'include=answers; every answer, oldest first.' }),
    ),
    answersCount: Type.Optional(Type.Integer({ minimum: 0, description: 'include=answersCount.' })),
    product: Type.Optional(
      Type.Union([ReviewProduct, Type.Null()], { description: 'include=product; null once unlinked.' }),
    ),
    customer: Type.Optional(
      Type.Union([EmbeddedCustomer, Type.Null()], { description: 'include=customer; null without a customer.' }),
    ),
  },
  { $id: 'ProductQuestion', additionalProperties: false },
);
export type ProductQuestion = Static<typeof ProductQuestion>;

export type ProductQuestionRow = Selectable<ProductQuestionsTable>;
export type ProductQuestionAnswerRow = Selectable<ProductQuestionAnswersTable>;

/** The columns toProductQuestion reads: what writes return. */
export const PRODUCT_QUESTION_COLUMNS = [
  'id',
  'product_id',
  'customer_id',
  'author_name',
  'author_email',
  'body',
  'status',
  'source',
  'remote_id',
  'published_at',
  'metadata',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ProductQuestionRow)[];
export type ProductQuestionFields = Pick<ProductQuestionRow, (typeof PRODUCT_QUESTION_COLUMNS)[number]>;

/** The columns toProductQuestionAnswer reads. */
export const PRODUCT_QUESTION_ANSWER_COLUMNS = [
  'id',
  'question_id',
  'body',
  'author_name',
  'source',
  'status',
  'published_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ProductQuestionAnswerRow)[];
export type ProductQuestionAnswerFields = Pick<
  ProductQuestionAnswerRow,
  (typeof PRODUCT_QUESTION_ANSWER_COLUMNS)[number]
>;

export const toProductQuestionAnswer = (row: ProductQuestionAnswerFields): ProductQuestionAnswer => ({
  id: row.id,
  questionId: row.question_id,
  body: row.body,
  authorName: row.author_name,
  source: row.source,
  status: row.status,
  publishedAt: row.published_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The one mapping from a question row to its API shape, without extras. */
export const toProductQuestion = (row: ProductQuestionFields): ProductQuestion => ({
  id: row.id,
  productId: row.product_id,
  customerId: row.customer_id,
  authorName: row.author_name,
  authorEmail: row.author_email,
  body: row.body,
  status: row.status,
  source: row.source,
  remoteId: row.remote_id,
  publishedAt: row.published_at?.toISOString() ?? null,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A question with its answers, as its events carry it. */
export const toProductQuestionWithAnswers = (
  row: ProductQuestionFields,
  answers: readonly ProductQuestionAnswerFields[],
): ProductQuestion => ({
  ...toProductQuestion(row),
  answers: answers.map(toProductQuestionAnswer),
  answersCount: answers.length,
});

export type ProductQuestionEventName =
  'productQuestion.created' | 'productQuestion.updated' | 'productQuestion.deleted';
export type ProductQuestionAnswerEventName =
  'productQuestionAnswer.created' | 'productQuestionAnswer.updated' | 'productQuestionAnswer.deleted';

/**
 * A question event: the record with its answers (as they are now, or were when deleted); a deleted question's answers
 * go with it and send no events of their own (docs/api.md#product-questions-and-answers).
 */
export const productQuestionEvent = (
  organizationId: string,
  name: ProductQuestionEventName,
  row: ProductQuestionFields,
  answers: readonly ProductQuestionAnswerFields[],
): EventToRecord => ({
  organizationId,
  name,
  schema: ProductQuestion,
  record: toProductQuestionWithAnswers(row, answers),
});

export const productQuestionAnswerEvent = (
  organizationId: string,
  name: ProductQuestionAnswerEventName,
  row: ProductQuestionAnswerFields,
): EventToRecord => ({
  organizationId,
  name,
  schema: ProductQuestionAnswer,
  record: toProductQuestionAnswer(row),
});
