import type { AnalyticsSource, DimensionDef } from '../types.js';
import { customerCountry, date, flag, text, uuid } from './common.js';
import { reviewList } from '../../reviews/index.js';

/** A review's own fields, as dimensions of reviews and of their answers. */
const reviewDimensions = (what: string): Record<string, DimensionDef> => ({
  createdAt: date('r.created_at', `When the ${what} was written.`, false),
  updatedAt: date('r.updated_at', `When the ${what} last changed.`, false),
  published: flag('r.published', `Whether the ${what} is published.`),
  verifiedBuyer: flag('r.verified_buyer', `Whether the ${what}'s author bought the product.`),
  flagged: flag('r.flagged', `Whether the ${what} is flagged for moderation.`),
  rating: { type: 'integer', column: 'r.rating', nullable: false, description: `The ${what}'s star rating, 1..5.` },
  language: text('r.language', `The ${what}'s language; null when unknown.`),
  'product.id': uuid('r.product_id', `The reviewed product; null once unlinked.`),
  'customer.id': uuid('r.customer_id', `The reviewer (customer); null when unknown.`),
  'customer.country': customerCountry(what),
});

export const reviewsSource: AnalyticsSource = {
  resource: 'reviews',
  description: 'Product reviews. Filter: the document of GET /reviews.',
  list: reviewList,
  measures: {
    count: { kind: 'count', description: 'Number of reviews.' },
    avgRating: { kind: 'average', value: 'r.rating', description: 'Mean star rating (1..5); null without reviews.' },
    publishedCount: { kind: 'count', where: 'r.published', description: 'Published reviews.' },
    flaggedCount: { kind: 'count', where: 'r.flagged', description: 'Reviews flagged for moderation.' },
    verifiedBuyerCount: { kind: 'count', where: 'r.verified_buyer', description: 'Reviews by verified buyers.' },
    uniqueCustomers: {
      kind: 'distinct',
      value: 'r.customer_id',
      description: 'Distinct reviewers (reviews without a customer are not counted).',
    },
    uniqueProducts: {
      kind: 'distinct',
      value: 'r.product_id',
      description: 'Distinct products reviewed (unlinked reviews are not counted).',
    },
  },
  dimensions: reviewDimensions('review'),
  metadata: {
    column: 'r.metadata',
    description: "The value of one key of the review's metadata; null where the key is absent.",
  },
};

/** A number step as a number; anything else stored in an answer reads as null rather than failing the query. */
const STEP = `case when jsonb_typeof(ra.answer -> 'step') = 'number' then (ra.answer ->> 'step')::numeric end`;

export const reviewAnswersSource: AnalyticsSource = {
  resource: 'review-answers',
  description:
    "The answers of reviews (each element { question, step } of a review's answers). Filter: the document of GET /reviews, " +
    'applied to the review each answer belongs to.',
  list: reviewList,
  from: `reviews r cross join lateral jsonb_array_elements(case when jsonb_typeof(r.answers) = 'array' then r.answers else '[]'::jsonb end) as ra(answer)`,
  measures: {
    count: { kind: 'count', description: 'Number of answers.' },
    averageStep: {
      kind: 'average',
      value: STEP,
      description: 'Mean step (1..5) of the answers; null without answers.',
    },
    uniqueReviews: { kind: 'distinct', value: 'r.id', description: 'Distinct reviews the answers belong to.' },
  },
  dimensions: {
    question: text(`ra.answer ->> 'question'`, 'The question answered.'),
    step: { type: 'integer', column: `(${STEP})::integer`, nullable: true, description: 'The step chosen, 1..5.' },
    ...reviewDimensions('review answered'),
  },
  metadata: {
    column: 'r.metadata',
    description: 'The value of one key of the metadata of the review answered; null where the key is absent.',
  },
};
