import {
  Anchor,
  Button,
  Card,
  Center,
  Divider,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useApi, useCan } from '../../api/session';
import {
  ApiErrorAlert,
  applyApiErrors,
  ConfirmButton,
  DetailDrawer,
  eachRow,
  ExportButton,
  FormError,
  PagedTable,
  useDetailParam,
  type BulkAction,
  type Column,
} from '../../components';
import { formatDateTime } from '../../lib/format';
import {
  ANY,
  FilterSelect,
  ProductSelect,
  Prose,
  Rating,
  REVIEWS_KEY,
  SearchInput,
  Snippet,
  StatusBadge,
  SUMMARY_KEY,
  useUrlParam,
  type Review,
} from './shared';

const STATUS_FILTERS: Record<string, Record<string, unknown>> = {
  published: { published: true },
  unpublished: { published: false },
  flagged: { flagged: true },
  unflagged: { flagged: false },
  replied: { 'reply.createdAt': { $exists: true } },
  unreplied: { 'reply.createdAt': null },
};

const STATUS_OPTIONS = [
  { value: ANY, label: 'Any status' },
  { value: 'published', label: 'Published' },
  { value: 'unpublished', label: 'Not published' },
  { value: 'flagged', label: 'Flagged' },
  { value: 'unflagged', label: 'Not flagged' },
  { value: 'replied', label: 'Replied' },
  { value: 'unreplied', label: 'Not replied' },
];

const RATING_OPTIONS = [
  { value: ANY, label: 'Any rating' },
  ...[5, 4, 3, 2, 1].map((stars) => ({ value: String(stars), label: `${stars} star${stars === 1 ? '' : 's'}` })),
];

export function ReviewBadges({ review }: { review: Review }) {
  return (
    <Group gap={4} wrap="wrap">
      {review.published ? (
        <StatusBadge color="green">Published</StatusBadge>
      ) : (
        <StatusBadge color="gray">Not published</StatusBadge>
      )}
      {review.flagged && <StatusBadge color="red">Flagged</StatusBadge>}
      {review.reply && <StatusBadge color="blue">Replied</StatusBadge>}
    </Group>
  );
}

/** The reviews: filtered by status, rating, product and text; one opens beside the list to publish or flag it. */
/** A review as a checkbox's name and a failure's line: its title, else the start of its text. */
const reviewLabel = (review: Review) => `the review "${(review.title || review.body || review.id).slice(0, 40)}"`;

export function ReviewsTab() {
  const api = useApi();
  const canWrite = useCan('reviews:write');
  const queryClient = useQueryClient();
  const detail = useDetailParam();
  const [status] = useUrlParam('status');
  const [rating] = useUrlParam('rating');
  const [product, setProduct] = useUrlParam('product');
  const [search] = useUrlParam('q');

  const filter: Record<string, unknown> = { ...(status && STATUS_FILTERS[status]) };
  if (rating && /^[1-5]$/.test(rating)) filter.rating = Number(rating);
  if (product) filter.productId = product;

  const columns: Column<Review>[] = [
    { key: 'rating', header: 'Rating', render: (review) => <Rating value={review.rating} />, width: 96 },
    {
      key: 'review',
      header: 'Review',
      render: (review) => (
        <Stack gap={2}>
          {review.title && <Snippet strong>{review.title}</Snippet>}
          <Snippet>{review.body || '(no text)'}</Snippet>
          {/* On phones the status column is left out: the badges go under the text. */}
          <Group hiddenFrom="sm">
            <ReviewBadges review={review} />
          </Group>
        </Stack>
      ),
    },
    {
      key: 'product',
      header: 'Product',
      render: (review) => review.product?.title ?? (review.productId ? '—' : 'Deleted product'),
      visibleFrom: 'sm',
    },
    {
      key: 'customer',
      header: 'Reviewer',
      render: (review) => <Text size="sm">{review.customer?.email ?? '—'}</Text>,
      visibleFrom: 'lg',
    },
    {
      key: 'status',
      header: 'Status',
      render: (review) => <ReviewBadges review={review} />,
      width: 130,
      visibleFrom: 'sm',
    },
    {
      key: 'createdAt',
      header: 'Written',
      render: (review) => formatDateTime(review.createdAt),
      visibleFrom: 'md',
    },
  ];

  // Publishing and flagging are one bulk update of the selected ids; deleting is one DELETE per review.
  const bulkUpdate =
    (body: { published?: boolean; flagged?: boolean }) => async (rows: Review[], progress: (done: number) => void) => {
      const ids = rows.map((review) => review.id);
      const { count } = await api.PATCH('/reviews/bulk-update', {
        params: { query: { filter: JSON.stringify({ id: { $in: ids } }) } },
        body,
      });
      progress(rows.length);
      await queryClient.invalidateQueries({ queryKey: SUMMARY_KEY });
      return { done: count, failed: [] };
    };
  const reviews = (count: number) => `${count} ${count === 1 ? 'review' : 'reviews'}`;
  const bulkActions: BulkAction<Review>[] = [
    { label: 'Publish', done: (n) => `Published ${reviews(n)}`, run: bulkUpdate({ published: true }) },
    { label: 'Unpublish', done: (n) => `Unpublished ${reviews(n)}`, run: bulkUpdate({ published: false }) },
    { label: 'Flag', done: (n) => `Flagged ${reviews(n)}`, run: bulkUpdate({ flagged: true }) },
    { label: 'Unflag', done: (n) => `Unflagged ${reviews(n)}`, run: bulkUpdate({ flagged: false }) },
    {
      label: 'Delete',
      danger: true,
      confirm: (n) => `${reviews(n)} will be deleted for good, with their replies. Product summaries are updated.`,
      done: (n) => `Deleted ${reviews(n)}`,
      run: (rows, progress) =>
        eachRow(rows, progress, reviewLabel, (review) =>
          api.DELETE('/reviews/{id}', { params: { path: { id: review.id } } }),
        ),
    },
  ];

  return (
    <Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <SearchInput label="Search" placeholder="Title, text or reviewer email" />
        <FilterSelect name="status" label="Status" options={STATUS_OPTIONS} />
        <FilterSelect name="rating" label="Rating" options={RATING_OPTIONS} />
        <ProductSelect value={product} onChange={setProduct} />
        <ExportButton resource="reviews" noun="reviews" selection={{ filter, search }} />
      </Group>
      <PagedTable<Review>
        caption="Reviews"
        queryKey={[...REVIEWS_KEY, 'list', filter, search]}
        fetchPage={(cursor, signal) =>
          api.GET('/reviews', {
            params: {
              query: {
                limit: 25,
                include: 'product,customer',
                ...(Object.keys(filter).length > 0 && { filter: JSON.stringify(filter) }),
                ...(search && { search }),
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        columns={columns}
        rowKey={(review) => review.id}
        onRowClick={(review) => detail.open(review.id)}
        {...(canWrite && { bulk: { actions: bulkActions, noun: ['review', 'reviews'], label: reviewLabel } })}
        empty={Object.keys(filter).length > 0 || search ? 'No review matches these filters.' : 'No reviews yet.'}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Review">
        {detail.id && <ReviewDetail id={detail.id} onDeleted={detail.close} />}
      </DetailDrawer>
    </Stack>
  );
}

function ReviewDetail({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const api = useApi();
  const canWrite = useCan('reviews:write');
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: [...REVIEWS_KEY, 'detail', id],
    queryFn: ({ signal }) =>
      api.GET('/reviews/{id}', { params: { path: { id }, query: { include: 'product,customer' } }, signal }),
  });
  const update = useMutation({
    mutationFn: (body: { published?: boolean; flagged?: boolean }) =>
      api.PATCH('/reviews/{id}', { params: { path: { id } }, body }),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: REVIEWS_KEY }),
        queryClient.invalidateQueries({ queryKey: SUMMARY_KEY }),
      ]);
    },
  });

  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the review" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const review = query.data;
  const busy = update.isPending;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="center">
        <Rating value={review.rating} />
        <ReviewBadges review={review} />
      </Group>
      <Stack gap={4}>
        {review.title && (
          <Title order={3} size="h4" style={{ overflowWrap: 'anywhere' }}>
            {review.title}
          </Title>
        )}
        <Prose>{review.body || '(no text)'}</Prose>
      </Stack>

      {canWrite && (
        <Stack gap="xs">
          <Group gap="xs">
            <Button
              size="xs"
              variant={review.published ? 'default' : 'filled'}
              loading={busy && update.variables?.published !== undefined}
              disabled={busy}
              onClick={() => update.mutate({ published: !review.published })}
            >
              {review.published ? 'Unpublish' : 'Publish'}
            </Button>
            <Button
              size="xs"
              color={review.flagged ? undefined : 'red'}
              variant={review.flagged ? 'default' : 'light'}
              loading={busy && update.variables?.flagged !== undefined}
              disabled={busy}
              onClick={() => update.mutate({ flagged: !review.flagged })}
            >
              {review.flagged ? 'Clear flag' : 'Flag'}
            </Button>
            <ConfirmButton
              title="Delete this review?"
              message="The review is deleted for good and the product's summary no longer reads it. This cannot be undone."
              confirmLabel="Delete review"
              buttonProps={{ variant: 'subtle', disabled: busy }}
              onConfirm={async () => {
                await api.DELETE('/reviews/{id}', { params: { path: { id } } });
                onDeleted();
                await queryClient.invalidateQueries({ queryKey: REVIEWS_KEY });
              }}
            >
              Delete
            </ConfirmButton>
          </Group>
          <Text size="xs" c="dimmed">
            Flagged reviews wait for moderation: review summaries do not quote them.
          </Text>
          {update.isError && <ApiErrorAlert error={update.error} />}
        </Stack>
      )}

      <Divider />
      <ReplySection review={review} canWrite={canWrite} />

      <Divider />
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
        <Field label="Product">
          {review.product ? (
            <Anchor component={Link} to={`?tab=summaries&product=${review.product.id}`} size="sm">
              {review.product.title}
            </Anchor>
          ) : (
            'Deleted product'
          )}
        </Field>
        <Field label="Reviewer">
          {review.customer
            ? [review.customer.firstName, review.customer.lastName].filter(Boolean).join(' ') ||
              review.customer.email ||
              '—'
            : 'Deleted customer'}
          {review.customer?.email && (
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {review.customer.email}
            </Text>
          )}
        </Field>
        <Field label="Verified buyer">{review.verifiedBuyer ? 'Yes' : 'No'}</Field>
        <Field label="Language">{review.language ?? 'Unknown'}</Field>
        <Field label="Written">{formatDateTime(review.createdAt)}</Field>
        <Field label="Last changed">{formatDateTime(review.updatedAt)}</Field>
      </SimpleGrid>

      {review.answers.length > 0 && (
        <Stack gap={4}>
          <Title order={4} size="h6">
            Answers to the review form
          </Title>
          <Table>
            <Table.Tbody>
              {review.answers.map((answer, index) => (
                <Table.Tr key={index}>
                  <Table.Td>{answer.question}</Table.Td>
                  <Table.Td w={64}>{answer.step} / 5</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
      {Object.keys(review.metadata).length > 0 && (
        <Stack gap={4}>
          <Title order={4} size="h6">
            Metadata
          </Title>
          <Table>
            <Table.Tbody>
              {Object.entries(review.metadata).map(([key, value]) => (
                <Table.Tr key={key}>
                  <Table.Td ff="monospace">{key}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Stack>
  );
}

/** The API's bound on a reply (docs/api.md#review-replies). */
const MAX_REPLY_LENGTH = 5000;

/**
 * The merchant's reply under the review: shown with who wrote it and when, written or edited in a textarea (the API's
 * field error beside it), deleted after a confirmation.
 */
function ReplySection({ review, canWrite }: { review: Review; canWrite: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const reply = review.reply;
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm({ initialValues: { body: reply?.body ?? '' } });
  const save = useMutation({
    mutationFn: (values: { body: string }) =>
      api.PUT('/reviews/{id}/reply', { params: { path: { id: review.id } }, body: { body: values.body } }),
    onSuccess: async () => {
      setEditing(false);
      setNotice(reply ? 'Reply updated.' : 'Reply posted.');
      await queryClient.invalidateQueries({ queryKey: REVIEWS_KEY });
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const startEditing = () => {
    form.setValues({ body: reply?.body ?? '' });
    form.clearErrors();
    save.reset();
    setNotice(null);
    setEditing(true);
  };
  const showForm = canWrite && (editing || !reply);
  const length = form.values.body.length;

  return (
    <Stack gap="xs" component="section" aria-labelledby={`reply-${review.id}`}>
      <Title order={3} size="h5" id={`reply-${review.id}`}>
        Your reply
      </Title>
      {reply && !editing && (
        <Card withBorder padding="sm">
          <Stack gap={6}>
            <Prose>{reply.body}</Prose>
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {reply.author.type === 'user' ? reply.author.label : `API key ${reply.author.label}…`} ·{' '}
              {reply.updatedAt === reply.createdAt
                ? formatDateTime(reply.createdAt)
                : `edited ${formatDateTime(reply.updatedAt)} (first replied ${formatDateTime(reply.createdAt)})`}
            </Text>
            {canWrite && (
              <Group gap="xs">
                <Button size="compact-xs" variant="light" onClick={startEditing}>
                  Edit reply
                </Button>
                <ConfirmButton
                  title="Delete this reply?"
                  message="The reply is removed from the review. The reviewer is not told; a mail already sent about it stays sent."
                  confirmLabel="Delete reply"
                  buttonProps={{ variant: 'subtle', size: 'compact-xs' }}
                  onConfirm={async () => {
                    await api.DELETE('/reviews/{id}/reply', { params: { path: { id: review.id } } });
                    form.setValues({ body: '' });
                    setNotice('Reply deleted.');
                    await queryClient.invalidateQueries({ queryKey: REVIEWS_KEY });
                  }}
                >
                  Delete reply
                </ConfirmButton>
              </Group>
            )}
          </Stack>
        </Card>
      )}
      {!reply && !canWrite && (
        <Text size="sm" c="dimmed">
          No reply yet.
        </Text>
      )}
      {showForm && (
        <form
          onSubmit={form.onSubmit((values) => {
            setNotice(null);
            save.mutate(values);
          })}
        >
          <Stack gap="xs">
            <Textarea
              label={reply ? 'Edit the reply' : 'Reply to the review'}
              description={`Shown under the review; the reviewer is mailed when a "Review replied" template is active. ${length.toLocaleString()} / ${MAX_REPLY_LENGTH.toLocaleString()} characters.`}
              autosize
              minRows={3}
              maxRows={10}
              required
              {...form.getInputProps('body')}
            />
            <FormError error={save.error} form={form} />
            <Group justify="flex-end" gap="xs">
              {editing && (
                <Button variant="default" onClick={() => setEditing(false)} disabled={save.isPending}>
                  Cancel
                </Button>
              )}
              <Button type="submit" loading={save.isPending}>
                {reply ? 'Save reply' : 'Post reply'}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      {notice && (
        <Text size="sm" role="status">
          {notice}
        </Text>
      )}
    </Stack>
  );
}

export function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}
