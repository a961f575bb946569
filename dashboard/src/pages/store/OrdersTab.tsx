import { useState } from 'react';
import { Badge, Center, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListItemOf, operations } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { tagActions } from '../../components/BulkActions';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { PagedTable } from '../../components/PagedTable';
import { useFormat } from '../../lib/format-context';
import { ORDER_FIELDS } from './fields';
import { ListToolbar } from './ListToolbar';
import { TagsList } from './TagsList';
import { TagsNotesForm } from './TagsNotesForm';
import { listQuery, useListParams } from './useListParams';

type Order = ListItemOf<'/orders'>;
type OrderSort = NonNullable<NonNullable<operations['listOrders']['parameters']['query']>['sort']>;

const SORTS = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: '-totalCents', label: 'Largest total' },
  { value: 'totalCents', label: 'Smallest total' },
  { value: 'number', label: 'Number' },
];

const customerName = (customer: Order['customer']) =>
  customer ? [customer.firstName, customer.lastName].filter(Boolean).join(' ') || customer.email : '—';

function status(order: Pick<Order, 'cancelledAt' | 'deliveredAt' | 'shippedAt'>) {
  if (order.cancelledAt)
    return (
      <Badge color="red" variant="light">
        Cancelled
      </Badge>
    );
  if (order.deliveredAt)
    return (
      <Badge color="green" variant="light">
        Delivered
      </Badge>
    );
  if (order.shippedAt)
    return (
      <Badge color="blue" variant="light">
        Shipped
      </Badge>
    );
  return (
    <Badge color="gray" variant="light">
      Open
    </Badge>
  );
}

/** GET /v1/orders with their customer and items; an order's items, customer and tags in a drawer. */
export function OrdersTab() {
  const api = useApi();
  const canWrite = useCan('orders:write');
  const bulkActions = tagActions<Order>(['order', 'orders'], (ids, body) =>
    api.PATCH('/orders/bulk-update', {
      params: { query: { filter: JSON.stringify({ id: { $in: ids } }) } },
      body,
    }),
  );
  const format = useFormat();
  const [params, setParams] = useListParams();
  const [error, setError] = useState<unknown>(null);
  const detail = useDetailParam('order');
  const query = listQuery(params);
  return (
    <Stack gap="md">
      <ListToolbar
        resource="orders"
        noun="orders"
        fields={ORDER_FIELDS}
        sorts={SORTS}
        params={params}
        setParams={setParams}
        error={error}
        searchHint="Number, store id or customer email"
      />
      <PagedTable<Order>
        caption="Orders"
        queryKey={['orders', query]}
        fetchPage={(cursor, signal) =>
          api.GET('/orders', {
            params: {
              query: {
                ...query,
                sort: query.sort as OrderSort | undefined,
                include: 'customer,items,tags',
                limit: 25,
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        onError={setError}
        minWidth={340}
        rowKey={(order) => order.id}
        onRowClick={(order) => detail.open(order.id)}
        {...(canWrite && {
          bulk: {
            actions: bulkActions,
            noun: ['order', 'orders'],
            label: (order) => `order ${order.number ?? order.id}`,
          },
        })}
        empty="No orders match."
        columns={[
          {
            key: 'number',
            header: 'Order',
            render: (order) => (
              <Text size="sm" fw={500} data-testid="order-number">
                {order.number}
              </Text>
            ),
          },
          {
            key: 'customer',
            header: 'Customer',
            render: (order) => (
              <Stack gap={0}>
                <Text size="sm">{customerName(order.customer)}</Text>
                <Text size="xs" c="dimmed" visibleFrom="sm">
                  {order.customer?.email}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'items',
            header: 'Items',
            render: (order) => {
              const items = order.items ?? [];
              const first = items[0]?.product?.title;
              return (
                <Text size="sm" lineClamp={1}>
                  {format.integer(items.reduce((sum, item) => sum + item.quantity, 0))}
                  {first ? ` · ${first}${items.length > 1 ? ` +${items.length - 1}` : ''}` : ''}
                </Text>
              );
            },
            visibleFrom: 'md',
          },
          {
            key: 'total',
            header: 'Total',
            render: (order) => (
              <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                {format.money(order.totalCents, order.currencyCode)}
              </Text>
            ),
          },
          { key: 'status', header: 'Status', render: status, visibleFrom: 'sm' },
          {
            key: 'tags',
            header: 'Tags',
            render: (order) => <TagsList tags={order.tags ?? []} max={2} />,
            visibleFrom: 'lg',
          },
          {
            key: 'createdAt',
            header: 'Created',
            render: (order) => format.dateTime(order.createdAt),
            visibleFrom: 'md',
          },
        ]}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Order">
        {detail.id && <OrderDetail id={detail.id} />}
      </DetailDrawer>
    </Stack>
  );
}

function OrderDetail({ id }: { id: string }) {
  const api = useApi();
  const format = useFormat();
  const queryClient = useQueryClient();
  const canWrite = useCan('orders:write');
  const key = ['order', id];
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      api.GET('/orders/{id}', { params: { path: { id }, query: { include: 'customer,items,tags' } }, signal }),
  });
  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the order" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const order = query.data;
  const items = order.items ?? [];
  // An order is shown in its own currency, whatever the organization's.
  const money = (minor: number) => format.money(minor, order.currencyCode);
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Order {order.number}
        </Title>
        {status(order)}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            Customer
          </Text>
          <Text size="sm">{customerName(order.customer)}</Text>
          <Text size="sm">{order.customer?.email}</Text>
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            Dates
          </Text>
          <Text size="sm">Created {format.dateTime(order.createdAt)}</Text>
          {order.shippedAt && <Text size="sm">Shipped {format.dateTime(order.shippedAt)}</Text>}
          {order.deliveredAt && <Text size="sm">Delivered {format.dateTime(order.deliveredAt)}</Text>}
          {order.cancelledAt && <Text size="sm">Cancelled {format.dateTime(order.cancelledAt)}</Text>}
        </Stack>
      </SimpleGrid>
      <Stack gap="xs">
        <Title order={3} size="h5">
          Items ({items.length})
        </Title>
        {items.length === 0 ? (
          <Text size="sm" c="dimmed">
            No items.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={360}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Product</Table.Th>
                  <Table.Th ta="right">Qty</Table.Th>
                  <Table.Th ta="right">Amount</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((item) => (
                  <Table.Tr key={item.id}>
                    <Table.Td>
                      <Text size="sm">{item.product?.title ?? 'A deleted product'}</Text>
                      <Text size="xs" c="dimmed">
                        {item.variant ? item.variant.title || item.variant.slug : 'A deleted variant'}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">{format.integer(item.quantity)}</Table.Td>
                    <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                      {money(item.unitPriceCents * item.quantity)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <Stack gap={0} align="flex-end">
          <Text size="sm">Subtotal {money(order.subtotalCents)}</Text>
          <Text size="sm">Shipping {money(order.shippingCents)}</Text>
          <Text size="sm">Tax {money(order.taxCents)}</Text>
          <Text size="sm" fw={600}>
            Total {money(order.totalCents)}
          </Text>
        </Stack>
      </Stack>
      <TagsNotesForm
        noun="order"
        permission="orders:write"
        canWrite={canWrite}
        initial={{ tags: order.tags ?? [], notes: order.notes }}
        save={async (values) => {
          const updated = await api.PATCH('/orders/{id}', { params: { path: { id } }, body: values });
          queryClient.setQueryData(key, { ...order, ...updated, tags: updated.tags ?? values.tags });
          await queryClient.invalidateQueries({ queryKey: ['orders'] });
        }}
      />
    </Stack>
  );
}
