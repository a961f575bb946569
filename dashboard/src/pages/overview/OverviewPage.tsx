import '@mantine/charts/styles.css';
import { useState } from 'react';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Box, Center, Loader, SimpleGrid, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { DateRangeZonePicker, lastDays, rangeFilter, type DateRangeZone } from '../../components/DateRangeZonePicker';
import { PageHeader } from '../../components/PageHeader';
import { formatBucketDate, formatCents, formatDecimal, formatInteger } from '../../lib/format';
import { ChartCard } from './ChartCard';
import { dailySeries, numberOf, total, useAnalytics, type AnalyticsRow } from './analytics';

const CHART_HEIGHT = 220;

/** The organization, for its time zone (the default of the range picker). */
function useOrganization() {
  const api = useApi();
  return useQuery({ queryKey: ['organization'], queryFn: ({ signal }) => api.GET('/organization', { signal }) });
}

export default function OverviewPage() {
  const organization = useOrganization();
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

function Overview({ timezone }: { timezone: string }) {
  const [range, setRange] = useState<DateRangeZone>(() => lastDays(30, timezone));
  return (
    <>
      <PageHeader
        title="Overview"
        description="Orders, loyalty and reviews over the days chosen, in the time zone chosen."
      >
        <DateRangeZonePicker value={range} onChange={setRange} />
      </PageHeader>
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
    </>
  );
}

/** Rows as chart points: `date` is the bucket's day, shown in the range's zone. */
function points(rows: readonly AnalyticsRow[] | undefined, range: DateRangeZone, dateField = 'createdAt') {
  return (rows ?? [])
    .filter((row) => typeof row[dateField] === 'string')
    .map((row) => ({ ...row, date: formatBucketDate(row[dateField] as string, range.timezone) }));
}

function Revenue({ range }: { range: DateRangeZone }) {
  const query = useAnalytics(dailySeries('orders', ['revenue', 'count'], range));
  const rows = query.data?.data ?? [];
  return (
    <ChartCard
      title="Revenue per day"
      figure={formatCents(total(rows, 'revenue'))}
      note="Order totals as stored, every currency added together; cancelled orders included."
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <AreaChart
        h={CHART_HEIGHT}
        data={points(rows, range)}
        dataKey="date"
        series={[{ name: 'revenue', label: 'Revenue', color: 'indigo.6' }]}
        valueFormatter={(value) => formatCents(value)}
        curveType="monotone"
        withDots={false}
        yAxisProps={{ width: 72 }}
      />
    </ChartCard>
  );
}

function Orders({ range }: { range: DateRangeZone }) {
  // The same query as Revenue's: answered from the cache.
  const query = useAnalytics(dailySeries('orders', ['revenue', 'count'], range));
  const rows = query.data?.data ?? [];
  return (
    <ChartCard
      title="Orders per day"
      figure={formatInteger(total(rows, 'count'))}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      <BarChart
        h={CHART_HEIGHT}
        data={points(rows, range)}
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
      title="New members"
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
    date: formatBucketDate(row.createdAt as string, range.timezone),
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
      note={`The ${TOP_PRODUCTS} products in the most orders; "Other products" counts the orders of all the rest (an order counts once under each of its products).`}
      loading={query.isPending}
      error={query.error}
      onRetry={() => void query.refetch()}
    >
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          No orders in this range.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={360}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Product</Table.Th>
                <Table.Th ta="right">Orders</Table.Th>
                <Table.Th ta="right">Revenue of those orders</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={index}>
                  <Table.Td>{nameOf(row['items.productId'] ?? null)}</Table.Td>
                  <Table.Td ta="right">{formatInteger(numberOf(row, 'count'))}</Table.Td>
                  <Table.Td ta="right">{formatCents(numberOf(row, 'revenue'))}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </ChartCard>
  );
}
