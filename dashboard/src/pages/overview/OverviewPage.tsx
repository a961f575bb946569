import '@mantine/charts/styles.css';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Alert, Box, Button, Center, Group, Loader, SimpleGrid, Table, Text } from '@mantine/core';
import { useIsFetching, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useApi } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { DateRangeZonePicker, lastDays, rangeFilter, type DateRangeZone } from '../../components/DateRangeZonePicker';
import { PageHeader } from '../../components/PageHeader';
import { formatBucketDate, formatDateTime, formatDecimal, formatInteger } from '../../lib/format';
import { useFormat } from '../../lib/format-context';
import { addDays } from '../../lib/time';
import { ChartCard } from './ChartCard';
import { dailySeries, granularityOf, numberOf, total, useAnalytics, type AnalyticsRow } from './analytics';

const CHART_HEIGHT = 220;

/** The organization, for its time zone (the default of the range picker). */
function useOrganization(enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: ['organization'],
    enabled,
    queryFn: ({ signal }) => api.GET('/organization', { signal }),
  });
}

export default function OverviewPage() {
  // An address that names its time zone (a bookmark, a shared link) draws at once; only without one does the page wait
  // for the organization's zone before it asks for any figure.
  const [params] = useSearchParams();
  const zone = params.get('tz');
  const zoneInAddress = isTimeZone(zone);
  const organization = useOrganization(!zoneInAddress);
  if (zoneInAddress) return <Overview timezone={zone} />;
  if (organization.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading the organization" />
      </Center>
    );
  }
  if (organization.isError) {
    return <ApiErrorAlert error={organization.error} onRetry={() => void organization.refetch()} />;
  }
  return <Overview timezone={organization.data.timezone} />;
}

/** A calendar date of the URL: YYYY-MM-DD and a real day. */
const isCalendarDate = (value: string | null): value is string =>
  value !== null &&
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  !Number.isNaN(Date.parse(value)) &&
  addDays(value, 0) === value;

const isTimeZone = (value: string | null): value is string => {
  if (!value) return false;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

/**
 * The range lives in the address (?from=2025-12-01&to=2025-12-31&tz=Europe/Berlin), so a view can be bookmarked,
 * shared and reloaded; without it (or with a malformed one) the last 30 days in the organization's time zone.
 */
function useRangeInAddress(timezone: string): [DateRangeZone, (range: DateRangeZone) => void] {
  const [params, setParams] = useSearchParams();
  const from = params.get('from');
  const to = params.get('to');
  const zone = params.get('tz');
  const range =
    isCalendarDate(from) && isCalendarDate(to) && from <= to
      ? { from, to, timezone: isTimeZone(zone) ? zone : timezone }
      : lastDays(30, isTimeZone(zone) ? zone : timezone);
  const setRange = (next: DateRangeZone) =>
    setParams({ from: next.from, to: next.to, tz: next.timezone }, { replace: true });
  return [range, setRange];
}

function Overview({ timezone }: { timezone: string }) {
  const [range, setRange] = useRangeInAddress(timezone);
  // Every chart has its answer (or its error): what a page load is measured to (bench/dashboard-overview.ts).
  const fetching = useIsFetching();
  return (
    <Box data-overview-state={fetching === 0 ? 'ready' : 'loading'}>
      <PageHeader
        title="Overview"
        description="Orders, loyalty and reviews over the days chosen, in the time zone chosen."
      >
        <DateRangeZonePicker value={range} onChange={setRange} />
      </PageHeader>
      <NoOrdersInRange range={range} onChange={setRange} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Revenue range={range} />
        <Orders range={range} />
        <NewMembers range={range} />
        <Points range={range} />
        <Rewards range={range} />
        <Rating range={range} />
      </SimpleGrid>
      <Box mt="md">
        <TopProducts range={range} />
      </Box>
    </Box>
  );
}

/** "per day", "per week" or "per month", as the range is drawn. */
const per = (range: DateRangeZone) => `per ${granularityOf(range)}`;

/** Rows as chart points: `date` is the bucket's start, shown in the range's zone. */
function points(
  rows: readonly AnalyticsRow[] | undefined,
  range: DateRangeZone,
  dateField = 'createdAt',
): (AnalyticsRow & { date: string })[] {
  return (rows ?? [])
    .filter((row) => typeof row[dateField] === 'string')
    .map((row) => ({ ...row, date: formatBucketDate(row[dateField] as string, range.timezone, granularityOf(range)) }));
}

/** The currencies drawn apart; the rest are one Other row per bucket, whose amounts mix currencies. */
const CURRENCIES_SHOWN = 3;
const CURRENCY_COLORS = ['indigo.6', 'teal.7', 'orange.8'];

/** Orders per bucket and currency: revenue is drawn per currency (amounts of different currencies never add up). */
const ordersByCurrency = (range: DateRangeZone) =>
  dailySeries('orders', ['revenue', 'count'], range, 'createdAt', { field: 'currencyCode', limit: CURRENCIES_SHOWN });

/**
 * When the range holds no order at all, says when the latest one was placed and offers the 30 days up to it: a store
 * whose data stops before today (an import of last year's history, the demo world) otherwise opens on empty charts.
 */
function NoOrdersInRange({ range, onChange }: { range: DateRangeZone; onChange: (range: DateRangeZone) => void }) {
  const api = useApi();
  const orders = useAnalytics(ordersByCurrency(range));
  const empty = orders.isSuccess && total(orders.data.data, 'count') === 0;
  const latest = useQuery({
    queryKey: ['orders', 'latest'],
    enabled: empty,
    queryFn: ({ signal }) => api.GET('/orders', { params: { query: { limit: 1, sort: '-createdAt' } }, signal }),
  });
  const placed = latest.data?.data[0]?.createdAt;
  if (!empty || !placed) return null;
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: range.timezone }).format(new Date(placed));
  return (
    <Alert variant="light" color="blue" mb="md" title="No orders in these days">
      <Group justify="space-between" gap="xs">
        <Text size="sm">The latest order was placed on {formatDateTime(placed, range.timezone)}.</Text>
        <Button
          size="xs"
          variant="light"
          onClick={() => onChange({ from: addDays(day, -29), to: day, timezone: range.timezone })}
        >
          Show the 30 days up to it
        </Button>
      </Group>
    </Alert>
  );
}

function Revenue({ range }: { range: DateRangeZone }) {
  const format = useFormat();
  const query = useAnalytics(ordersByCurrency(range));
  const rows = query.data?.data ?? [];
  // Currencies by revenue over the range, largest first; Other (the rest, mixed) is not drawn.
  const totals = new Map<string, number>();
  for (const row of rows) {
    const currency = String(row.currencyCode);
    totals.set(currency, (totals.get(currency) ?? 0) + (numberOf(row, 'revenue') ?? 0));
  }
  const currencies = [...totals]
    .filter(([currency, sum]) => currency !== 'Other' && currency !== 'null' && sum > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([currency]) => currency);
  const byBucket = new Map<string, Record<string, string | number>>();
  for (const row of points(rows, range)) {
    const bucket = byBucket.get(row.date) ?? { date: row.date };
    if (currencies.includes(String(row.currencyCode))) bucket[String(row.currencyCode)] = numberOf(row, 'revenue') ?? 0;
    byBucket.set(row.date, bucket);
  }
  const others = (totals.get('Other') ?? 0) > 0;
  return (
    <ChartCard
      title={`Revenue ${per(range)}`}
      figure={
        currencies.length === 0
          ? '—'
          : currencies.map((currency) => format.money(totals.get(currency), currency)).join(' · ')
      }
      note={`Order totals as stored, in each currency apart; cancelled orders included.${others ? ' Orders in other currencies are not drawn.' : ''}`}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      {/* One chart per currency, so each axis and tooltip reads in its own symbol and digits. */}
      {currencies.map((currency, index) => (
        <AreaChart
          key={currency}
          h={currencies.length > 1 ? Math.max(110, CHART_HEIGHT / currencies.length) : CHART_HEIGHT}
          data={[...byBucket.values()]}
          dataKey="date"
          series={[{ name: currency, label: currency, color: CURRENCY_COLORS[index] ?? 'gray.6' }]}
          valueFormatter={(value) => format.money(value, currency)}
          curveType="monotone"
          withDots={false}
          withLegend={currencies.length > 1}
          yAxisProps={{ width: 88 }}
          data-testid={`revenue-chart-${currency}`}
        />
      ))}
    </ChartCard>
  );
}

function Orders({ range }: { range: DateRangeZone }) {
  // The same query as Revenue's (answered from the cache); counts of orders add up across currencies.
  const query = useAnalytics(ordersByCurrency(range));
  const rows = query.data?.data ?? [];
  const byBucket = new Map<string, { date: string; count: number }>();
  for (const row of points(rows, range)) {
    const bucket = byBucket.get(row.date) ?? { date: row.date, count: 0 };
    bucket.count += numberOf(row, 'count') ?? 0;
    byBucket.set(row.date, bucket);
  }
  return (
    <ChartCard
      title={`Orders ${per(range)}`}
      figure={formatInteger(total(rows, 'count'))}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <BarChart
        h={CHART_HEIGHT}
        data={[...byBucket.values()]}
        dataKey="date"
        series={[{ name: 'count', label: 'Orders', color: 'teal.7' }]}
        valueFormatter={(value) => formatInteger(value)}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

function NewMembers({ range }: { range: DateRangeZone }) {
  const query = useAnalytics(dailySeries('loyalty-members', ['count'], range));
  const rows = query.data?.data ?? [];
  return (
    <ChartCard
      title={`New members ${per(range)}`}
      figure={formatInteger(total(rows, 'count'))}
      note="Customers who joined a loyalty program."
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <BarChart
        h={CHART_HEIGHT}
        data={points(rows, range)}
        dataKey="date"
        series={[{ name: 'count', label: 'New members', color: 'grape.7' }]}
        valueFormatter={(value) => formatInteger(value)}
        yAxisProps={{ allowDecimals: false }}
      />
    </ChartCard>
  );
}

function Points({ range }: { range: DateRangeZone }) {
  const query = useAnalytics(dailySeries('loyalty-activity', ['pointsEarned', 'pointsSpent'], range));
  const rows = query.data?.data ?? [];
  return (
    <ChartCard
      title="Points earned and spent"
      figure={`${formatInteger(total(rows, 'pointsEarned'))} / ${formatInteger(total(rows, 'pointsSpent'))}`}
      note="Earned by the rules, and spent on rewards (adjustments and expiry are neither)."
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <LineChart
        h={CHART_HEIGHT}
        data={points(rows, range)}
        dataKey="date"
        series={[
          { name: 'pointsEarned', label: 'Earned', color: 'green.8' },
          { name: 'pointsSpent', label: 'Spent', color: 'orange.8' },
        ]}
        valueFormatter={(value) => formatInteger(value)}
        yAxisProps={{ allowDecimals: false }}
        withLegend
        withDots={false}
        curveType="monotone"
      />
    </ChartCard>
  );
}

function Rewards({ range }: { range: DateRangeZone }) {
  // Issued counts rewards by the day they were made, redeemed by the day they were used: two series of one chart.
  const issued = useAnalytics(dailySeries('loyalty-rewards', ['count'], range));
  const redeemed = useAnalytics(dailySeries('loyalty-rewards', ['count'], range, 'redeemedAt'));
  const redeemedByDay = new Map(
    (redeemed.data?.data ?? []).map((row) => [row.redeemedAt as string | null, numberOf(row, 'count') ?? 0]),
  );
  const data = (issued.data?.data ?? []).map((row) => ({
    date: formatBucketDate(row.createdAt as string, range.timezone, granularityOf(range)),
    issued: numberOf(row, 'count') ?? 0,
    redeemed: redeemedByDay.get(row.createdAt as string) ?? 0,
  }));
  return (
    <ChartCard
      title="Rewards issued and redeemed"
      figure={`${formatInteger(total(issued.data?.data ?? [], 'count'))} / ${formatInteger(total(redeemed.data?.data ?? [], 'count'))}`}
      loading={issued.isPending || redeemed.isPending}
      error={issued.error ?? redeemed.error}
      onRetry={() => {
        void issued.refetch();
        void redeemed.refetch();
      }}
    >
      <BarChart
        h={CHART_HEIGHT}
        data={data}
        dataKey="date"
        series={[
          { name: 'issued', label: 'Issued', color: 'indigo.6' },
          { name: 'redeemed', label: 'Redeemed', color: 'cyan.8' },
        ]}
        valueFormatter={(value) => formatInteger(value)}
        yAxisProps={{ allowDecimals: false }}
        withLegend
      />
    </ChartCard>
  );
}

function Rating({ range }: { range: DateRangeZone }) {
  const query = useAnalytics(dailySeries('reviews', ['avgRating', 'count'], range));
  const rows = query.data?.data ?? [];
  const count = total(rows, 'count');
  // The range's average: each day's mean weighted by its number of reviews.
  const average =
    count === 0
      ? null
      : rows.reduce((sum, row) => sum + (numberOf(row, 'avgRating') ?? 0) * (numberOf(row, 'count') ?? 0), 0) / count;
  return (
    <ChartCard
      title="Average rating"
      figure={average === null ? '—' : `${formatDecimal(average)} ★`}
      note={`${formatInteger(count)} reviews written; days without reviews have no point.`}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <LineChart
        h={CHART_HEIGHT}
        data={points(rows, range)}
        dataKey="date"
        series={[{ name: 'avgRating', label: 'Average rating', color: 'yellow.8' }]}
        valueFormatter={(value) => formatDecimal(value)}
        yAxisProps={{ domain: [1, 5] }}
        connectNulls={false}
      />
    </ChartCard>
  );
}

const TOP_PRODUCTS = 5;

function TopProducts({ range }: { range: DateRangeZone }) {
  const api = useApi();
  const format = useFormat();
  const query = useAnalytics({
    resource: 'orders',
    measures: ['count', 'revenue'],
    groupBy: ['items.productId'],
    timezone: range.timezone,
    filter: JSON.stringify({ createdAt: rangeFilter(range) }),
    limit: TOP_PRODUCTS,
  });
  const rows = query.data?.data ?? [];
  const ids = rows
    .map((row) => row['items.productId'])
    .filter((id): id is string => typeof id === 'string' && id !== 'Other');
  const products = useQuery({
    queryKey: ['products', 'titles', ids],
    enabled: ids.length > 0,
    queryFn: ({ signal }) =>
      api.GET('/products', {
        params: { query: { filter: JSON.stringify({ id: { $in: ids } }), limit: TOP_PRODUCTS } },
        signal,
      }),
  });
  const titles = new Map((products.data?.data ?? []).map((product) => [product.id, product.title]));
  const nameOf = (id: AnalyticsRow[string]) =>
    id === 'Other'
      ? 'Other products'
      : id === null
        ? 'Orders without items'
        : (titles.get(String(id)) ?? (products.isPending ? '…' : String(id)));
  return (
    <ChartCard
      title="Top products"
      note={`The ${TOP_PRODUCTS} products in the most orders; "Other products" counts the orders of all the rest (an order counts once under each of its products). Revenue adds order totals as stored, read in the organization's currency (${format.currency}).`}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          No orders in this range.
        </Text>
      ) : (
        <Table.ScrollContainer
          minWidth={360}
          // Scrolls sideways on a phone once it has rows: reachable by keyboard (axe: scrollable-region-focusable).
          scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Top products table' } }}
        >
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Product</Table.Th>
                <Table.Th ta="right">Orders</Table.Th>
                <Table.Th ta="right">Revenue of those orders ({format.currency})</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={index}>
                  <Table.Td>{nameOf(row['items.productId'] ?? null)}</Table.Td>
                  <Table.Td ta="right">{formatInteger(numberOf(row, 'count'))}</Table.Td>
                  <Table.Td ta="right">{format.money(numberOf(row, 'revenue'))}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </ChartCard>
  );
}
