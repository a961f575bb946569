import Type, { type Static } from 'typebox';
import { Metadata, MetadataInput, SkippedRow, Timestamp, Uuid } from '../../records/common.js';
import { EmbeddedCustomer } from '../../records/customer.js';
import { Product } from '../../records/product.js';

export const MAX_TITLE_LENGTH = 500;
export const MAX_BODY_LENGTH = 20_000;
export const MAX_ANSWERS = 50;

/** One answer to a review form question, on a 1..5 scale (D30). */
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

const Language = Type.String({
  minLength: 2,
  maxLength: 35,
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
  description: 'BCP 47 language tag of the text, e.g. en or pt-BR.',
});

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
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** A review as the API and its webhooks show it (D30): only the extras that were requested are present. */
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

export const ReviewParams = Type.Object({ id: Uuid }, { additionalProperties: false });

/** PATCH /reviews/{id}: moderation fields only; the reviewer's own text and rating come from the store. */
export const ReviewPatch = Type.Object(
  {
    published: Type.Optional(Type.Boolean()),
    flagged: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);
export type ReviewPatch = Static<typeof ReviewPatch>;

/** PATCH /reviews/bulk-update: at least one operation, applied to every selected review. */
export const ReviewBulkUpdateBody = Type.Object(
  {
    published: Type.Optional(Type.Boolean({ description: 'Publish or unpublish every selected review.' })),
    flagged: Type.Optional(Type.Boolean({ description: 'Flag or unflag every selected review.' })),
    addMetadata: Type.Optional(MetadataInput),
    removeMetadataKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 50 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReviewBulkUpdateBody = Static<typeof ReviewBulkUpdateBody>;

export const ReviewImportRow = Type.Object(
  {
    product: Type.String({ minLength: 1, maxLength: 255, description: 'Product id or slug.' }),
    customer: Type.String({ minLength: 1, maxLength: 320, description: 'Customer id or email (case-insensitive).' }),
    remoteId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Identifier in the originating system: import creates or updates the review with this remoteId. Without it, a row updates the review the same customer wrote for the same product without a remoteId.',
      }),
    ),
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    title: Type.Optional(Type.String({ maxLength: MAX_TITLE_LENGTH })),
    body: Type.Optional(Type.String({ maxLength: MAX_BODY_LENGTH })),
    published: Type.Optional(Type.Boolean({ description: 'Default false on create.' })),
    verifiedBuyer: Type.Optional(Type.Boolean({ description: 'Default false on create.' })),
    flagged: Type.Optional(Type.Boolean({ description: 'Default false on create.' })),
    language: Type.Optional(Type.Union([Language, Type.Null()])),
    answers: Type.Optional(
      Type.Array(ReviewAnswer, { maxItems: MAX_ANSWERS, description: 'Replaces the stored answers when present.' }),
    ),
    metadata: Type.Optional(MetadataInput),
    createdAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the review was written; default now. History keeps its dates.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReviewImportRow = Static<typeof ReviewImportRow>;

export const ReviewImportBody = Type.Object(
  {
    data: Type.Array(ReviewImportRow, { description: 'At most 1,000 rows.' }),
    strict: Type.Optional(
      Type.Boolean({ description: 'Fail the whole import on the first missing product or customer.' }),
    ),
    mergeMetadata: Type.Optional(
      Type.Boolean({ description: 'Merge metadata keys onto the stored ones instead of replacing.' }),
    ),
  },
  { additionalProperties: false },
);
export type ReviewImportBody = Static<typeof ReviewImportBody>;

export const ReviewImportResult = Type.Object({ data: Type.Array(Review), skipped: Type.Array(SkippedRow) });
