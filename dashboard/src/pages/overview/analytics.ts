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

/** A daily series of `measures` over the range: `date` (a bucket start in the range's zone) bounded on both sides. */
export function dailySeries(
  resource: AnalyticsQuery['resource'],
  measures: string[],
  range: DateRangeZone,
  dateField = 'createdAt',
): AnalyticsQuery {
  return {
    resource,
    measures,
    groupBy: [dateField],
    granularity: 'day',
    timezone: range.timezone,
    // Bounded on both sides, so every day of the range is a row (zeros included): docs/api.md#filling-gaps.
    filter: JSON.stringify({ [dateField]: rangeFilter(range) }),
    fillGaps: true,
    limit: 500,
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
