/** The review record (docs/api.md#review-records): its response shapes, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { ReviewsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from './common.js';
import { EmbeddedCustomer } from './customer.js';
import { Product } from './product.js';

/** One answer to a review form question, on a 1..5 scale (docs/api.md#review-records). */
export const ReviewAnswer = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: 500, description: 'The question as the form asked it.' }),
    step: Type.Integer({ minimum: 1, maximum: 5, description: 'The answer on a 1..5 scale.' }),
  },
  { $id: 'ReviewAnswer', additionalProperties: false },
);

/** The base product record (no extras) that include=product embeds. */
export const ReviewProduct = Type.Omit(
  Product,
  ['importJob', 'reviewsCount', 'wishlistsCount', 'variantsCount', 'tags', 'variants'],
  {
    $id: 'ReviewProduct',
    additionalProperties: false,
  },
);

/** Who wrote a reply, named as the audit log names the caller (docs/api.md#review-replies). */
export const REPLY_AUTHOR_TYPES = ['apiKey', 'user'] as const;
export type ReplyAuthorType = (typeof REPLY_AUTHOR_TYPES)[number];

/** The merchant's public reply to a review (docs/api.md#review-replies). */
export const ReviewReply = Type.Object(
  {
    body: Type.String({ description: 'The reply as it was sent, 1..5000 characters.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the review was first replied to.' }),
    updatedAt: Type.String({
      format: 'date-time',
      description: 'When the reply was last written: equal to createdAt until a PUT replaces the text.',
    }),
    author: Type.Object(
      {
        type: Type.Unsafe<ReplyAuthorType>({
          type: 'string',
          enum: [...REPLY_AUTHOR_TYPES],
          description: 'apiKey: a secret key wrote it; user: a dashboard user did.',
        }),
        id: Type.String({ description: "The key's id, or the dashboard user's id." }),
        label: Type.String({
          description: "The key's prefix, or the dashboard user's email, as the audit log shows them.",
        }),
      },
      { additionalProperties: false, description: 'Who last wrote the reply.' },
    ),
  },
  { $id: 'ReviewReply', additionalProperties: false },
);
export type ReviewReply = Static<typeof ReviewReply>;

const reviewFields = {
  id: Uuid,
  productId: Type.Union([Uuid, Type.Null()], {
    description: 'The reviewed product; null once the product was deleted and the review unlinked.',
  }),
  customerId: Type.Union([Uuid, Type.Null()], { description: 'The reviewer. Always set by import.' }),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  title: Type.String(),
  body: Type.String(),
  published: Type.Boolean({
    description: 'Shown on the storefront. Receivers read this rather than assuming review.created means visible.',
  }),
  verifiedBuyer: Type.Boolean(),
  flagged: Type.Boolean({ description: 'Marked for moderation.' }),
  language: Type.Union([Type.String(), Type.Null()], { description: 'Language tag of the text, null when unknown.' }),
  answers: Type.Array(ReviewAnswer),
  metadata: Metadata,
  reply: Type.Union([ReviewReply, Type.Null()], {
    description:
      "The merchant's reply, null when there is none. Set with PUT /reviews/{id}/reply, removed with DELETE /reviews/{id}/reply.",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/**
 * A review as the API and its webhooks show it (docs/api.md#review-records): only the extras that were requested are
 * present.
 */
export const Review = Type.Object(
  {
    ...reviewFields,
    product: Type.Optional(
      Type.Union([ReviewProduct, Type.Null()], { description: 'include=product; null once unlinked.' }),
    ),
    customer: Type.Optional(
      Type.Union([EmbeddedCustomer, Type.Null()], {
        description: 'include=customer; null once the customer was deleted.',
      }),
    ),
  },
  { $id: 'Review', additionalProperties: false },
);
export type Review = Static<typeof Review>;

export type ReviewRow = Selectable<ReviewsTable>;

/** The columns toReview reads: what writes return (not organization_id, remote_id). */
export const REVIEW_COLUMNS = [
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
  'reply_body',
  'reply_created_at',
  'reply_updated_at',
  'reply_author_type',
  'reply_author_id',
  'reply_author_label',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ReviewRow)[];
export type ReviewFields = Pick<ReviewRow, (typeof REVIEW_COLUMNS)[number]>;

/** A row's reply, or null: the migration keeps the six columns all set or all null. */
const toReviewReply = (row: ReviewFields): ReviewReply | null =>
  row.reply_body === null
    ? null
    : {
        body: row.reply_body,
        createdAt: row.reply_created_at!.toISOString(),
        updatedAt: row.reply_updated_at!.toISOString(),
        author: { type: row.reply_author_type!, id: row.reply_author_id!, label: row.reply_author_label! },
      };

/**
 * The one mapping from a review row to its API shape, without extras (docs/api.md#review-records); products use it
 * for their deletion events.
 */
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
  reply: toReviewReply(row),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type ReviewEventName =
  'review.created' | 'review.updated' | 'review.deleted' | 'review.replied' | 'review.replyDeleted';

export const reviewEvent = (organizationId: string, name: ReviewEventName, row: ReviewFields): EventToRecord => ({
  organizationId,
  name,
  schema: Review,
  record: toReview(row),
});
