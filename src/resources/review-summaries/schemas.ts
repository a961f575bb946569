import Type, { type Static } from 'typebox';
import { describedPattern } from '../../core/pattern-message.js';
import { Timestamp, Uuid } from '../../records/common.js';

export const THEME_SENTIMENTS = ['positive', 'negative', 'mixed'] as const;
export type ThemeSentiment = (typeof THEME_SENTIMENTS)[number];

export const Theme = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The aspect reviewers talk about, e.g. fit, quality, delivery.',
    }),
    sentiment: Type.Union([Type.Literal('positive'), Type.Literal('negative'), Type.Literal('mixed')], {
      description: 'How the reviews that mention it judge it: positive, negative, or mixed when both are common.',
    }),
    reviewCount: Type.Integer({ minimum: 0, description: 'How many of the summarized reviews mention it.' }),
  },
  { additionalProperties: false },
);
export type Theme = Static<typeof Theme>;

/** Language tag of the summary text: BCP 47 (ISO 639 primary subtag), or "und" when it could not be told. */
const Language = Type.String({
  minLength: 2,
  maxLength: 35,
  ...describedPattern(
    '^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
    'must be a BCP 47 language tag: a 2- or 3-letter lower-case language, then optional -subtags, e.g. en or pt-BR',
  ),
});

/** What a generator produces; validated before it can replace anything. */
export const GeneratedSummary = Type.Object(
  {
    summary: Type.String({ minLength: 1, maxLength: 5_000 }),
    themes: Type.Array(Theme, { maxItems: 20 }),
    language: Language,
  },
  { additionalProperties: false },
);
export type GeneratedSummary = Static<typeof GeneratedSummary>;

const versionFields = {
  summary: Type.String({ description: 'Generated text about what reviewers say.' }),
  themes: Type.Array(Theme),
  language: Type.String({
    description: 'Language of the summary text (ISO 639-1 where there is one; "und" when unknown).',
  }),
  reviewCount: Type.Integer({ minimum: 0, description: 'How many published reviews the generation read.' }),
  newestReviewAt: Timestamp,
  modelId: Type.String({ description: 'The generator: "patron-extractive" (built in) or the chat model it asked.' }),
  promptVersion: Type.Integer({ minimum: 1, description: 'Version of the generation method or prompt.' }),
  generatedAt: Timestamp,
};

/** One generated summary as stored (current or previous). */
export const ReviewSummaryVersion = Type.Object(versionFields, {
  $id: 'ReviewSummaryVersion',
  additionalProperties: false,
});
export type ReviewSummaryVersion = Static<typeof ReviewSummaryVersion>;

export const ReviewSummary = Type.Object(
  {
    productId: Uuid,
    ...versionFields,
    suppressedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        'When the summary was hidden from the storefront; null while shown. A hidden summary is still returned here.',
    }),
    previous: Type.Union([ReviewSummaryVersion, Type.Null()], {
      description: 'The summary the current one replaced, kept for revert; null when there is nothing to revert to.',
    }),
  },
  { $id: 'ReviewSummary', additionalProperties: false },
);
export type ReviewSummary = Static<typeof ReviewSummary>;

export const ReviewSummaryOrNull = Type.Union([ReviewSummary, Type.Null()], {
  description: 'The summary, or null until the product has enough published reviews and its first summary is written.',
});

export const SuppressBody = Type.Object(
  {
    suppressed: Type.Boolean({
      description: 'true hides the summary (and keeps automatic refreshes off it); false shows it again.',
    }),
  },
  { additionalProperties: false },
);

/** The actions take no input; an empty object (or no body) is accepted, anything else is 400. */
export const NoBody = Type.Object({}, { additionalProperties: false });

export const RegenerateResult = Type.Object(
  {
    queued: Type.Boolean({
      description: 'false when a generation is already queued or the product has too few published reviews.',
    }),
  },
  { additionalProperties: false },
);
