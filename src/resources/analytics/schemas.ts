import Type, { type Static } from 'typebox';
import { FILTER_LIMITS } from '../../lists/filter.js';

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const MAX_LIMIT = 500;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const granularityValue = (options: { description: string }) =>
  Type.Union(
    [
      Type.Literal('hour'),
      Type.Literal('day'),
      Type.Literal('week'),
      Type.Literal('month'),
      Type.Literal('quarter'),
      Type.Literal('year'),
    ],
    options,
  );
const DimensionTypeValue = Type.Union([
  Type.Literal('date'),
  Type.Literal('string'),
  Type.Literal('enum'),
  Type.Literal('boolean'),
  Type.Literal('uuid'),
  Type.Literal('integer'),
]);

export const AnalyticsQueryBody = Type.Object(
  {
    resource: Type.Union(
      [
        Type.Literal('reviews'),
        Type.Literal('review-answers'),
        Type.Literal('orders'),
        Type.Literal('customers'),
        Type.Literal('products'),
        Type.Literal('loyalty-members'),
        Type.Literal('loyalty-activity'),
        Type.Literal('loyalty-rewards'),
      ],
      { description: 'The resource to aggregate (service.md: the eight aggregatable resources).' },
    ),
    measures: Type.Array(Name, {
      minItems: 1,
      maxItems: 10,
      description:
        'Measure names of the resource (GET /v1/analytics/schema). The first one ranks the combinations and sorts the rows.',
    }),
    groupBy: Type.Optional(
      Type.Array(Name, {
        maxItems: 3,
        description: 'Dimension names, at most three, at most one a date. Omit for a single total row.',
      }),
    ),
    granularity: Type.Optional(
      granularityValue({
        description: 'Bucket of the date dimension, in the time zone (default day); ignored without a date dimension.',
      }),
    ),
    filter: Type.Optional(
      Type.String({
        maxLength: FILTER_LIMITS.maxBytes,
        description: "The JSON filter document of the resource's list endpoint (same fields and operators).",
      }),
    ),
    quickFilter: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          "A quick filter of the resource's list by id (loyalty-members takes those of loyalty-memberships, review-answers those of reviews): its filter and search are ANDed with filter (docs/api.md#quick-filters).",
      }),
    ),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "IANA time zone of the date buckets; default the organization's.",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIMIT,
        description:
          'Distinct combinations of the non-date dimensions returned (default 50); the rest are re-aggregated into Other.',
      }),
    ),
    fillGaps: Type.Optional(
      Type.Boolean({
        description:
          'Default true: every bucket of the date range appears for each combination shown (0, or null for averages).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AnalyticsQueryBody = Static<typeof AnalyticsQueryBody>;

const RowValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

export const AnalyticsResult = Type.Object({
  data: Type.Array(Type.Record(Type.String(), RowValue), {
    description:
      'One row per date bucket and combination: each groupBy dimension by name (a date as the bucket start in UTC; "Other" for ' +
      'the remainder) and each measure by name. Sorted by the date, then the first measure descending.',
  }),
  meta: Type.Object({
    resource: Type.String(),
    measures: Type.Array(Type.String()),
    groupBy: Type.Array(Type.String()),
    granularity: Type.Union([granularityValue({ description: 'The bucket size applied.' }), Type.Null()], {
      description: 'The bucket size applied; null without a date dimension.',
    }),
    timezone: Type.String({ description: 'The time zone the buckets were computed in.' }),
    limit: Type.Integer(),
    truncated: Type.Boolean({
      description: 'True when more combinations existed than limit: the rest are in the Other rows.',
    }),
  }),
});
export type AnalyticsResult = Static<typeof AnalyticsResult>;

const Described = {
  name: Type.String(),
  description: Type.String(),
};

export const AnalyticsSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      resource: Type.String(),
      description: Type.String(),
      measures: Type.Array(
        Type.Object({
          ...Described,
          type: Type.Union([Type.Literal('integer'), Type.Literal('number')], {
            description: 'integer for counts and sums; number (or null) for averages.',
          }),
        }),
      ),
      dimensions: Type.Array(
        Type.Object({
          ...Described,
          type: DimensionTypeValue,
          values: Type.Optional(Type.Array(Type.String(), { description: 'The values of an enum.' })),
        }),
      ),
    }),
  ),
});
export type AnalyticsSchema = Static<typeof AnalyticsSchema>;
