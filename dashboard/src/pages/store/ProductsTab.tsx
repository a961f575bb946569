import { useState } from 'react';
import { Anchor, Badge, Center, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListItemOf, operations } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { RecordHistory } from '../activity/RecordHistory';
import { AUDIT_KEY } from '../activity/shared';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime, formatInteger, formatMoney } from '../../lib/format';
import { PRODUCT_FIELDS } from './fields';
import { ListToolbar } from './ListToolbar';
import { TagsList } from './TagsList';
import { TagsNotesForm } from './TagsNotesForm';
import { listQuery, useListParams } from './useListParams';

type Product = ListItemOf<'/products'>;
type ProductSort = NonNullable<NonNullable<operations['listProducts']['parameters']['query']>['sort']>;

const SORTS = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: 'title', label: 'Title A–Z' },
  { value: '-title', label: 'Title Z–A' },
  { value: '-wishlistsCount', label: 'Most wishlisted' },
];

/** GET /v1/products with tags and variant counts; a product's variants and tags in a drawer, tags and notes editable. */
export function ProductsTab() {
  const api = useApi();
  const [params, setParams] = useListParams();
  const [error, setError] = useState<unknown>(null);
  const detail = useDetailParam('product');
  const query = listQuery(params);
  return (
    <Stack gap="md">
      <ListToolbar
        resource="products"
        noun="products"
        fields={PRODUCT_FIELDS}
        sorts={SORTS}
        params={params}
        setParams={setParams}
        error={error}
        searchHint="Title or slug"
      />
      <PagedTable<Product>
        caption="Products"
        queryKey={['products', query]}
        fetchPage={(cursor, signal) =>
          api.GET('/products', {
            params: {
              query: {
                ...query,
                sort: query.sort as ProductSort | undefined,
                include: 'tags,variantsCount,reviewsCount',
                limit: 25,
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        onError={setError}
        minWidth={340}
        rowKey={(product) => product.id}
        onRowClick={(product) => detail.open(product.id)}
        empty="No products match."
        columns={[
          {
            key: 'title',
            header: 'Product',
            render: (product) => (
              <Stack gap={0}>
                <Text size="sm" fw={500}>
                  {product.title || '(untitled)'}
                </Text>
                <Text size="xs" c="dimmed">
                  {product.slug}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'variants',
            header: 'Variants',
            render: (product) => formatInteger(product.variantsCount),
            visibleFrom: 'sm',
          },
          { key: 'tags', header: 'Tags', render: (product) => <TagsList tags={product.tags ?? []} /> },
          {
            key: 'reviews',
            header: 'Reviews',
            render: (product) => formatInteger(product.reviewsCount),
            visibleFrom: 'md',
          },
          {
            key: 'createdAt',
            header: 'Created',
            render: (product) => formatDateTime(product.createdAt),
            visibleFrom: 'md',
          },
        ]}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Product">
        {detail.id && <ProductDetail id={detail.id} />}
      </DetailDrawer>
    </Stack>
  );
}

function ProductDetail({ id }: { id: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const canWrite = useCan('products:write');
  const key = ['product', id];
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      api.GET('/products/{productId}', {
        params: { path: { productId: id }, query: { include: 'tags,variants,reviewsCount,wishlistsCount' } },
        signal,
      }),
  });
  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the product" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const product = query.data;
  const variants = product.variants ?? [];
  return (
    <Stack gap="md">
      <Stack gap={2}>
        <Title order={2} size="h3">
          {product.title || '(untitled)'}
        </Title>
        <Text size="sm" c="dimmed">
          {product.slug}
        </Text>
        {product.url && (
          <Anchor href={product.url} target="_blank" rel="noreferrer noopener" size="sm">
            {product.url}
          </Anchor>
        )}
      </Stack>
      <Group gap="lg">
        <Text size="sm">Reviews: {formatInteger(product.reviewsCount)}</Text>
        <Text size="sm">Wishlists: {formatInteger(product.wishlistsCount)}</Text>
        <Text size="sm">Created {formatDateTime(product.createdAt)}</Text>
      </Group>
      {product.description && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} lineClamp={6}>
          {product.description}
        </Text>
      )}
      <Stack gap="xs">
        <Title order={3} size="h5">
          Variants ({variants.length})
        </Title>
        {variants.length === 0 ? (
          <Text size="sm" c="dimmed">
            No variants.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={360}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Variant</Table.Th>
                  <Table.Th>Price</Table.Th>
                  <Table.Th>Available</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {variants.map((variant) => (
                  <Table.Tr key={variant.id}>
                    <Table.Td>
                      <Text size="sm">{variant.title || variant.slug}</Text>
                      <Text size="xs" c="dimmed">
                        {variant.slug}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatMoney(variant.priceCents, variant.currencyCode)}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={variant.available ? 'green' : 'gray'}>
                        {variant.available ? 'Available' : 'Unavailable'}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <TagsNotesForm
        noun="product"
        permission="products:write"
        canWrite={canWrite}
        initial={{ tags: product.tags ?? [], notes: product.notes }}
        save={async (values) => {
          const updated = await api.PATCH('/products/{productId}', {
            params: { path: { productId: id } },
            body: values,
          });
          queryClient.setQueryData(key, { ...product, ...updated, tags: updated.tags ?? values.tags });
          await queryClient.invalidateQueries({ queryKey: ['products'] });
          // The edit is in the product's history now.
          await queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        }}
      />
      <RecordHistory resourceType="products" resourceId={id} />
    </Stack>
  );
}
