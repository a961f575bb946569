import { Badge, Center, Code, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Schemas } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime, formatMoney } from '../../lib/format';
import { MEMBERSHIPS_KEY, type Customer } from '../loyalty/shared';
import { MembershipPanel } from './MembershipPanel';
import { RecordHistory } from '../activity/RecordHistory';

/** A customer: identity, the merchant's notes and metadata, orders, loyalty memberships. */
export function useCustomer(customerId: string | null) {
  const api = useApi();
  return useQuery({
    queryKey: ['customers', customerId],
    queryFn: ({ signal }) =>
      api.GET('/customers/{id}', { params: { path: { id: customerId! }, query: { include: 'tags' } }, signal }),
    enabled: customerId !== null,
  });
}

export function CustomerDetail({ customerId }: { customerId: string }) {
  const query = useCustomer(customerId);
  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the customer" />
      </Center>
    );
  }
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const customer = query.data;
  return (
    <Stack gap="lg">
      <CustomerFacts customer={customer} />
      <Memberships customerId={customer.id} />
      <Orders customerId={customer.id} />
      <RecordHistory resourceType="customers" resourceId={customer.id} />
    </Stack>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={0} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Stack>
  );
}

function CustomerFacts({ customer }: { customer: Customer }) {
  const metadata = Object.entries(customer.metadata as Record<string, string>);
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
        <Fact label="Email">{customer.email}</Fact>
        <Fact label="Name">{[customer.firstName, customer.lastName].filter(Boolean).join(' ') || '—'}</Fact>
        <Fact label="Phone">{customer.phone ?? '—'}</Fact>
        <Fact label="Country">{customer.country ?? '—'}</Fact>
        <Fact label="Customer since">{formatDateTime(customer.createdAt)}</Fact>
        <Fact label="Email marketing">{customer.emailOptOut ? 'Opted out' : 'Subscribed'}</Fact>
      </SimpleGrid>
      {customer.tags && customer.tags.length > 0 && (
        <Group gap={4}>
          {customer.tags.map((tag) => (
            <Badge key={tag} variant="outline">
              {tag}
            </Badge>
          ))}
        </Group>
      )}
      {customer.notes && <Fact label="Notes">{customer.notes}</Fact>}
      {metadata.length > 0 && (
        <Fact label="Metadata">
          {metadata.map(([key, value]) => (
            <span key={key} style={{ display: 'block' }}>
              <Code>{key}</Code> {value}
            </span>
          ))}
        </Fact>
      )}
    </Stack>
  );
}

function Memberships({ customerId }: { customerId: string }) {
  const api = useApi();
  const canRead = useCan('loyalty:read');
  const query = useQuery({
    queryKey: [...MEMBERSHIPS_KEY, 'of-customer', customerId],
    queryFn: ({ signal }) =>
      api.GET('/loyalty-memberships', {
        params: { query: { limit: 50, filter: JSON.stringify({ customerId }) } },
        signal,
      }),
    enabled: canRead,
  });
  if (!canRead) return null;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Loyalty
      </Title>
      {query.isPending ? (
        <Center py="md">
          <Loader size="sm" aria-label="Loading memberships" />
        </Center>
      ) : query.isError ? (
        <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          Not a member of any loyalty program.
        </Text>
      ) : (
        query.data.data.map((membership) => <MembershipPanel key={membership.id} membership={membership} />)
      )}
    </Stack>
  );
}

function Orders({ customerId }: { customerId: string }) {
  const api = useApi();
  const canRead = useCan('orders:read');
  if (!canRead) return null;
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Orders
      </Title>
      <PagedTable<Schemas['Order']>
        caption="Orders"
        queryKey={['orders', 'of-customer', customerId]}
        fetchPage={(cursor, signal) =>
          api.GET('/orders', {
            params: { query: { cursor, limit: 10, filter: JSON.stringify({ 'customer.id': customerId }) } },
            signal,
          })
        }
        rowKey={(order) => order.id}
        empty="No orders yet."
        columns={[
          { key: 'number', header: 'Order', render: (order) => order.number },
          { key: 'createdAt', header: 'Placed', render: (order) => formatDateTime(order.createdAt) },
          {
            key: 'total',
            header: 'Total',
            render: (order) => formatMoney(order.totalCents, order.currencyCode),
          },
          {
            key: 'state',
            header: 'State',
            render: (order) =>
              order.cancelledAt ? 'Cancelled' : order.deliveredAt ? 'Delivered' : order.shippedAt ? 'Shipped' : 'Open',
            visibleFrom: 'sm',
          },
        ]}
      />
    </Stack>
  );
}
