import { useQuery } from '@tanstack/react-query';
import type { RequestBodyOf, ResponseDataOf } from '@patron/client/browser';
import { useApi } from '../../api/session';
import { rangeFilter, type DateRangeZone } from '../../components/DateRangeZonePicker';

export type AnalyticsQuery = RequestBodyOf<'/analytics/query', 'post'>;
export type AnalyticsAnswer = ResponseDataOf<'/analytics/query', 'post'>;
export type AnalyticsRow = AnalyticsAnswer['data'][number];

/** POST /v1/analytics/query (docs/api.md#analytics), cached by its body. */
export function useAnalytics(body: AnalyticsQuery) {
  const api = useApi();
  return useQuery({
    queryKey: ['analytics', body],
    queryFn: ({ signal }) => api.POST('/analytics/query', { body, signal }),
  });
}

export type Granularity = 'day' | 'week' | 'month';

/** The days a range covers, both ends included. */
export const daysIn = (range: DateRangeZone): number =>
  Math.round((Date.parse(range.to) - Date.parse(range.from)) / 86_400_000) + 1;

/**
 * The bucket a range is drawn in: days up to about a quarter, weeks up to two years, months beyond, so that a chart
 * keeps between a handful and about a hundred points and a long range costs the browser no more than a short one.
 */
export function granularityOf(range: DateRangeZone): Granularity {
  const days = daysIn(range);
  return days <= 92 ? 'day' : days <= 731 ? 'week' : 'month';
}

/**
 * A series of `measures` over the range, one row per bucket (see granularityOf), the date field bounded on both
 * sides; `by` adds a dimension (e.g. currency), whose `limit` most frequent values are kept and the rest become Other.
 */
export function dailySeries(
  resource: AnalyticsQuery['resource'],
  measures: string[],
  range: DateRangeZone,
  dateField = 'createdAt',
  by?: { field: string; limit: number },
): AnalyticsQuery {
  return {
    resource,
    measures,
    groupBy: by ? [dateField, by.field] : [dateField],
    granularity: granularityOf(range),
    timezone: range.timezone,
    // Bounded on both sides, so every day of the range is a row (zeros included): docs/api.md#filling-gaps.
    filter: JSON.stringify({ [dateField]: rangeFilter(range) }),
    fillGaps: true,
    limit: by?.limit ?? 1,
  };
}

/** A number of a row (measures are numbers; averages may be null). */
export const numberOf = (row: AnalyticsRow | undefined, measure: string): number | null => {
  const value = row?.[measure];
  return typeof value === 'number' ? value : null;
};

/** The sum of a measure over rows. */
export const total = (rows: readonly AnalyticsRow[], measure: string): number =>
  rows.reduce((sum, row) => sum + (numberOf(row, measure) ?? 0), 0);
