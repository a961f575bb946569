import Type, { type Static } from 'typebox';
import { describedPattern, NOT_BLANK_PATTERN } from '../../core/pattern-message.js';
import { ImportCounts, importRows, MetadataInput, SkippedRow, Uuid } from '../../records/common.js';
import { Review, ReviewAnswer } from '../../records/review.js';

export const MAX_TITLE_LENGTH = 500;
export const MAX_BODY_LENGTH = 20_000;
export const MAX_ANSWERS = 50;
export const MAX_REPLY_LENGTH = 5_000;

const Language = Type.String({
  minLength: 2,
  maxLength: 35,
  ...describedPattern(
    '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
    'must be a BCP 47 language tag: a 2- or 3-letter language, then optional -subtags of letters and digits, e.g. en or pt-BR',
  ),
  description: 'BCP 47 language tag of the text, e.g. en or pt-BR.',
});

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

/** PUT /reviews/{id}/reply (docs/api.md#review-replies): the reply's text, stored as sent. */
export const ReviewReplyBody = Type.Object(
  {
    body: Type.String({
      minLength: 1,
      maxLength: MAX_REPLY_LENGTH,
      ...NOT_BLANK_PATTERN,
      description: `The reply, 1..${MAX_REPLY_LENGTH} characters, not only spaces; stored as sent. Replaces the reply the review has.`,
    }),
  },
  { additionalProperties: false },
);
export type ReviewReplyBody = Static<typeof ReviewReplyBody>;

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
    data: importRows(ReviewImportRow),
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

export const ReviewImportResult = Type.Object({
  data: Type.Array(Review),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});
