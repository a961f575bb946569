import Type, { type Static } from 'typebox';
import { NOT_BLANK_PATTERN } from '../../core/pattern-message.js';
import { requiredOnCreate } from '../../resource-kit/body.js';
import { ImportCounts, importRows, MetadataInput, SkippedRow, Uuid } from '../../records/common.js';
import {
  answerSource,
  answerStatus,
  ProductQuestion,
  ProductQuestionAnswer,
  questionSource,
  questionStatus,
} from '../../records/product-question.js';

/** Limits of docs/api.md#product-questions-and-answers. */
export const MAX_QUESTION_LENGTH = 5_000;
export const MAX_ANSWER_LENGTH = 10_000;
export const MAX_ROW_ANSWERS = 100;

const Text = (maxLength: number, what: string) =>
  Type.String({
    minLength: 1,
    maxLength,
    ...NOT_BLANK_PATTERN,
    description: `${what}, 1..${maxLength} characters, not only spaces.`,
  });
const QuestionBody = Text(MAX_QUESTION_LENGTH, 'The question');
const AnswerBody = Text(MAX_ANSWER_LENGTH, 'The answer');
const authorName = (description = 'The name shown with the text, 1..200 characters, not only spaces.') =>
  Type.String({ minLength: 1, maxLength: 200, ...NOT_BLANK_PATTERN, description });
const AuthorName = authorName();
const AuthorEmail = Type.Union([Type.String({ format: 'email', maxLength: 320 }), Type.Null()], {
  description: "The asker's email, kept for replies and never shown; null for none.",
});
const ProductReference = Type.String({ minLength: 1, maxLength: 255, description: 'Product id or slug.' });
const CustomerReference = Type.String({
  minLength: 1,
  maxLength: 320,
  description: 'Customer id or email (case-insensitive); omitted: a question asked without an account.',
});
const HistoricalTime = (what: string) =>
  Type.String({ format: 'date-time', description: `${what}; history keeps its dates.` });

export const ProductQuestionParams = Type.Object({ id: Uuid }, { additionalProperties: false });

const createFields = {
  product: Type.Optional(ProductReference),
  body: Type.Optional(QuestionBody),
  authorName: Type.Optional(AuthorName),
  authorEmail: Type.Optional(AuthorEmail),
  customer: Type.Optional(CustomerReference),
  status: Type.Optional(questionStatus(' Default published: the merchant recorded it to show it.')),
  metadata: Type.Optional(MetadataInput),
};
export const ProductQuestionCreateInput = Type.Object(createFields, { additionalProperties: false });
export type ProductQuestionCreateInput = Static<typeof ProductQuestionCreateInput>;
const ProductQuestionCreateFields = Type.Object(
  { data: Type.Optional(ProductQuestionCreateInput), ...createFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type ProductQuestionCreateBody = Static<typeof ProductQuestionCreateFields>;
/** What a question the merchant records must name. */
export const PRODUCT_QUESTION_REQUIRED = ['product', 'body', 'authorName'] as const;
export const ProductQuestionCreateBody = requiredOnCreate(ProductQuestionCreateFields, PRODUCT_QUESTION_REQUIRED);

/** PATCH /product-questions/{id}: the text, the moderation status and the metadata (replaced wholesale); at least one. */
export const ProductQuestionPatch = Type.Object(
  {
    body: Type.Optional(QuestionBody),
    status: Type.Optional(questionStatus()),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ProductQuestionPatch = Static<typeof ProductQuestionPatch>;

const answerFields = {
  body: Type.Optional(AnswerBody),
  authorName: Type.Optional(
    authorName(
      "The name shown with the answer, 1..200 characters; default the organization's name for a merchant answer, required for a shopper's.",
    ),
  ),
  source: Type.Optional(answerSource(' Default merchant.')),
  status: Type.Optional(answerStatus(' Default published.')),
};
export const ProductQuestionAnswerCreateInput = Type.Object(answerFields, { additionalProperties: false });
export type ProductQuestionAnswerCreateInput = Static<typeof ProductQuestionAnswerCreateInput>;
const ProductQuestionAnswerCreateFields = Type.Object(
  { data: Type.Optional(ProductQuestionAnswerCreateInput), ...answerFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type ProductQuestionAnswerCreateBody = Static<typeof ProductQuestionAnswerCreateFields>;
export const PRODUCT_QUESTION_ANSWER_REQUIRED = ['body'] as const;
export const ProductQuestionAnswerCreateBody = requiredOnCreate(
  ProductQuestionAnswerCreateFields,
  PRODUCT_QUESTION_ANSWER_REQUIRED,
);

/** PATCH /product-question-answers/{id}: the text, the author's name and the moderation status; at least one. */
/** PATCH /product-questions/bulk-update: at least one operation, applied to every selected question. */
export const ProductQuestionBulkUpdateBody = Type.Object(
  {
    status: Type.Optional(questionStatus(' Sets every selected question to it.')),
    addMetadata: Type.Optional(MetadataInput),
    removeMetadataKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 50 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ProductQuestionBulkUpdateBody = Static<typeof ProductQuestionBulkUpdateBody>;

export const ProductQuestionAnswerPatch = Type.Object(
  { body: Type.Optional(AnswerBody), authorName: Type.Optional(AuthorName), status: Type.Optional(answerStatus()) },
  { additionalProperties: false, minProperties: 1 },
);
export type ProductQuestionAnswerPatch = Static<typeof ProductQuestionAnswerPatch>;

export const ProductQuestionImportAnswer = Type.Object(
  {
    body: AnswerBody,
    authorName: AuthorName,
    source: Type.Optional(answerSource(' Default merchant.')),
    status: Type.Optional(answerStatus(' Default published.')),
    publishedAt: Type.Optional(HistoricalTime('When the answer was published (published answers only)')),
    createdAt: Type.Optional(HistoricalTime('When the answer was written; default now')),
  },
  { additionalProperties: false },
);
export type ProductQuestionImportAnswer = Static<typeof ProductQuestionImportAnswer>;

export const ProductQuestionImportRow = Type.Object(
  {
    product: ProductReference,
    customer: Type.Optional(CustomerReference),
    remoteId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Identifier in the originating system: import creates or updates the question with this remoteId. Without it, a row updates the question with the same product, author and text.',
      }),
    ),
    authorName: AuthorName,
    authorEmail: Type.Optional(AuthorEmail),
    body: QuestionBody,
    status: Type.Optional(questionStatus(' Default pending on create.')),
    source: Type.Optional(questionSource(' Default shopper on create.')),
    publishedAt: Type.Optional(HistoricalTime('When the question was published (published questions only)')),
    createdAt: Type.Optional(HistoricalTime('When the question was asked; default now')),
    metadata: Type.Optional(MetadataInput),
    answers: Type.Optional(
      Type.Array(ProductQuestionImportAnswer, {
        maxItems: MAX_ROW_ANSWERS,
        description:
          "The question's answers, when sent: they replace the stored ones exactly (an answer with the same author and text keeps its id). Omitted: left alone.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProductQuestionImportRow = Static<typeof ProductQuestionImportRow>;

export const ProductQuestionImportBody = Type.Object(
  {
    data: importRows(ProductQuestionImportRow),
    strict: Type.Optional(
      Type.Boolean({ description: 'Fail the whole import on the first missing product or customer.' }),
    ),
    mergeMetadata: Type.Optional(
      Type.Boolean({ description: 'Merge metadata keys onto the stored ones instead of replacing.' }),
    ),
  },
  { additionalProperties: false },
);
export type ProductQuestionImportBody = Static<typeof ProductQuestionImportBody>;

export const ProductQuestionImportResult = Type.Object({
  data: Type.Array(ProductQuestion),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});

/**
 * DELETE /product-questions/{id}'s answer: the question with every answer deleted with it, as its event carries them
 * (docs/api.md#api-versions: callers on a version before 2026-12-01 get the question without them).
 */
export const DeletedProductQuestion = Type.Object(
  {
    ...ProductQuestion.properties,
    answers: Type.Array(ProductQuestionAnswer, {
      description: 'Every answer deleted with the question, oldest first.',
    }),
    answersCount: Type.Integer({ minimum: 0, description: 'How many answers were deleted with the question.' }),
  },
  { $id: 'DeletedProductQuestion', additionalProperties: false },
);
export type DeletedProductQuestion = Static<typeof DeletedProductQuestion>;
