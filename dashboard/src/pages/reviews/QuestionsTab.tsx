import {
  Button,
  Card,
  Center,
  Divider,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useCan, useSession } from '../../api/session';
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
import { formatDateTime, formatInteger } from '../../lib/format';
import { Field } from './ReviewsTab';
import {
  ANY,
  FilterSelect,
  ProductSelect,
  Prose,
  QUESTIONS_KEY,
  SearchInput,
  Snippet,
  StatusBadge,
  useUrlParam,
  type Answer,
  type Question,
} from './shared';

const QUESTION_STATUS = {
  pending: { label: 'Pending', color: 'yellow' },
  published: { label: 'Published', color: 'green' },
  rejected: { label: 'Rejected', color: 'gray' },
} as const;
const ANSWER_STATUS = {
  pending: { label: 'Pending', color: 'yellow' },
  published: { label: 'Published', color: 'green' },
  hidden: { label: 'Hidden', color: 'gray' },
} as const;

const STATUS_OPTIONS = [
  { value: ANY, label: 'Any status' },
  { value: 'pending', label: 'Pending' },
  { value: 'published', label: 'Published' },
  { value: 'rejected', label: 'Rejected' },
];
const SOURCE_OPTIONS = [
  { value: ANY, label: 'Anyone' },
  { value: 'shopper', label: 'Shoppers' },
  { value: 'merchant', label: 'Recorded by the store' },
];

/** Shoppers' questions about products: filtered, moderated (publish, reject) and answered. */
/** A question as a checkbox's name and a failure's line: the start of its text. */
const questionLabel = (question: Question) => `the question "${question.body.slice(0, 40)}"`;

export function QuestionsTab() {
  const api = useApi();
  const canWrite = useCan('reviews:write');
  const detail = useDetailParam();
  const [status] = useUrlParam('status');
  const [source] = useUrlParam('source');
  const [product, setProduct] = useUrlParam('product');
  const [search] = useUrlParam('q');

  const filter: Record<string, unknown> = {};
  if (status && status in QUESTION_STATUS) filter.status = status;
  if (source === 'shopper' || source === 'merchant') filter.source = source;
  if (product) filter.productId = product;

  const columns: Column<Question>[] = [
    { key: 'body', header: 'Question', render: (question) => <Snippet>{question.body}</Snippet> },
    { key: 'author', header: 'Asked by', render: (question) => question.authorName, visibleFrom: 'md' },
    {
      key: 'product',
      header: 'Product',
      render: (question) => question.product?.title ?? (question.productId ? '—' : 'Deleted product'),
      visibleFrom: 'sm',
    },
    {
      key: 'answers',
      header: 'Answers',
      render: (question) => formatInteger(question.answersCount),
      visibleFrom: 'md',
      width: 80,
    },
    {
      key: 'status',
      header: 'Status',
      render: (question) => (
        <StatusBadge color={QUESTION_STATUS[question.status].color}>
          {QUESTION_STATUS[question.status].label}
        </StatusBadge>
      ),
      width: 110,
    },
    { key: 'createdAt', header: 'Asked', render: (question) => formatDateTime(question.createdAt), visibleFrom: 'lg' },
  ];

  // Publishing and rejecting are one bulk update of the selected ids; deleting is one DELETE per question.
  const setStatus =
    (status: 'published' | 'rejected') => async (rows: Question[], progress: (done: number) => void) => {
      const { count } = await api.PATCH('/product-questions/bulk-update', {
        params: { query: { filter: JSON.stringify({ id: { $in: rows.map((question) => question.id) } }) } },
        body: { status },
      });
      progress(rows.length);
      return { done: count, failed: [] };
    };
  const questions = (count: number) => `${count} ${count === 1 ? 'question' : 'questions'}`;
  const bulkActions: BulkAction<Question>[] = [
    { label: 'Publish', done: (n) => `Published ${questions(n)}`, run: setStatus('published') },
    { label: 'Reject', done: (n) => `Rejected ${questions(n)}`, run: setStatus('rejected') },
    {
      label: 'Delete',
      danger: true,
      confirm: (n) => `${questions(n)} will be deleted for good, with their answers.`,
      done: (n) => `Deleted ${questions(n)}`,
      run: (rows, progress) =>
        eachRow(rows, progress, questionLabel, (question) =>
          api.DELETE('/product-questions/{id}', { params: { path: { id: question.id } } }),
        ),
    },
  ];

  return (
    <Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <SearchInput label="Search" placeholder="Text, author name or email" />
        <FilterSelect name="status" label="Status" options={STATUS_OPTIONS} />
        <FilterSelect name="source" label="Asked by" options={SOURCE_OPTIONS} />
        <ProductSelect value={product} onChange={setProduct} />
        <ExportButton resource="product-questions" noun="questions" selection={{ filter, search }} />
      </Group>
      <PagedTable<Question>
        caption="Product questions"
        queryKey={[...QUESTIONS_KEY, 'list', filter, search]}
        fetchPage={(cursor, signal) =>
          api.GET('/product-questions', {
            params: {
              query: {
                limit: 25,
                include: 'product,answersCount',
                ...(Object.keys(filter).length > 0 && { filter: JSON.stringify(filter) }),
                ...(search && { search }),
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        columns={columns}
        rowKey={(question) => question.id}
        onRowClick={(question) => detail.open(question.id)}
        {...(canWrite && { bulk: { actions: bulkActions, noun: ['question', 'questions'], label: questionLabel } })}
        empty={Object.keys(filter).length > 0 || search ? 'No question matches these filters.' : 'No questions yet.'}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Product question">
        {detail.id && <QuestionDetail id={detail.id} onDeleted={detail.close} />}
      </DetailDrawer>
    </Stack>
  );
}

function QuestionDetail({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const api = useApi();
  const canWrite = useCan('reviews:write');
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: [...QUESTIONS_KEY, 'detail', id],
    queryFn: ({ signal }) =>
      api.GET('/product-questions/{id}', {
        params: { path: { id }, query: { include: 'answers,product,customer' } },
        signal,
      }),
  });
  const moderate = useMutation({
    mutationFn: (status: Question['status']) =>
      api.PATCH('/product-questions/{id}', { params: { path: { id } }, body: { status } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY }),
  });

  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the question" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const question = query.data;
  const answers = question.answers ?? [];
  const actions: { status: Question['status']; label: string; color?: string; variant: string }[] = [
    { status: 'published' as const, label: 'Publish', variant: 'filled' },
    { status: 'rejected' as const, label: 'Reject', color: 'red', variant: 'light' },
    { status: 'pending' as const, label: 'Back to pending', variant: 'default' },
  ].filter((action) => action.status !== question.status);

  return (
    <Stack gap="md">
      <Group justify="space-between" align="center">
        <StatusBadge color={QUESTION_STATUS[question.status].color}>
          {QUESTION_STATUS[question.status].label}
        </StatusBadge>
        <Text size="xs" c="dimmed">
          {question.source === 'merchant' ? 'Recorded by the store' : 'Asked by a shopper'}
        </Text>
      </Group>
      <Prose>{question.body}</Prose>

      {canWrite && (
        <Stack gap="xs">
          <Group gap="xs">
            {actions.map((action) => (
              <Button
                key={action.status}
                size="xs"
                color={action.color}
                variant={action.variant}
                loading={moderate.isPending && moderate.variables === action.status}
                disabled={moderate.isPending}
                onClick={() => moderate.mutate(action.status)}
              >
                {action.label}
              </Button>
            ))}
            <ConfirmButton
              title="Delete this question?"
              message="The question and its answers are deleted for good. This cannot be undone."
              confirmLabel="Delete question"
              buttonProps={{ variant: 'subtle', size: 'xs' }}
              onConfirm={async () => {
                await api.DELETE('/product-questions/{id}', { params: { path: { id } } });
                onDeleted();
                await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
              }}
            >
              Delete
            </ConfirmButton>
          </Group>
          {moderate.isError && <ApiErrorAlert error={moderate.error} />}
        </Stack>
      )}

      <Divider />
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
        <Field label="Product">{question.product?.title ?? 'Deleted product'}</Field>
        <Field label="Asked by">
          {question.authorName}
          {question.authorEmail && (
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {question.authorEmail}
            </Text>
          )}
        </Field>
        <Field label="Asked">{formatDateTime(question.createdAt)}</Field>
        <Field label="Published">{question.publishedAt ? formatDateTime(question.publishedAt) : 'Not published'}</Field>
      </SimpleGrid>

      <Divider />
      <Title order={3} size="h5">
        Answers ({formatInteger(answers.length)})
      </Title>
      {answers.length === 0 ? (
        <Text size="sm" c="dimmed">
          No answers yet.
        </Text>
      ) : (
        <Stack gap="xs" role="list" aria-label="Answers">
          {answers.map((answer) => (
            <AnswerCard key={answer.id} answer={answer} canWrite={canWrite} />
          ))}
        </Stack>
      )}
      {canWrite && <AnswerForm questionId={id} />}
    </Stack>
  );
}

function AnswerCard({ answer, canWrite }: { answer: Answer; canWrite: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (status: Answer['status']) =>
      api.PATCH('/product-question-answers/{id}', { params: { path: { id: answer.id } }, body: { status } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY }),
  });
  const next: { status: Answer['status']; label: string } =
    answer.status === 'published' ? { status: 'hidden', label: 'Hide' } : { status: 'published', label: 'Publish' };
  return (
    <Card withBorder padding="sm" role="listitem">
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
            {answer.authorName}{' '}
            <Text span size="xs" c="dimmed" fw={400}>
              {answer.source === 'merchant' ? 'store' : 'shopper'} · {formatDateTime(answer.createdAt)}
            </Text>
          </Text>
          <StatusBadge color={ANSWER_STATUS[answer.status].color}>{ANSWER_STATUS[answer.status].label}</StatusBadge>
        </Group>
        <Prose>{answer.body}</Prose>
        {canWrite && (
          <Group gap="xs">
            <Button
              size="compact-xs"
              variant="light"
              loading={update.isPending}
              onClick={() => update.mutate(next.status)}
              aria-label={`${next.label} the answer by ${answer.authorName}`}
            >
              {next.label}
            </Button>
            <ConfirmButton
              title="Delete this answer?"
              message="The answer is deleted for good. This cannot be undone."
              confirmLabel="Delete answer"
              buttonProps={{ variant: 'subtle', size: 'compact-xs' }}
              onConfirm={async () => {
                await api.DELETE('/product-question-answers/{id}', { params: { path: { id: answer.id } } });
                await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
              }}
            >
              Delete
            </ConfirmButton>
          </Group>
        )}
        {update.isError && <ApiErrorAlert error={update.error} />}
      </Stack>
    </Card>
  );
}

function AnswerForm({ questionId }: { questionId: string }) {
  const api = useApi();
  const { organization } = useSession();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { body: '', authorName: '' },
    validate: { body: (value) => (value.trim() === '' ? 'Write the answer.' : null) },
  });
  const answer = useMutation({
    mutationFn: (values: { body: string; authorName: string }) =>
      api.POST('/product-questions/{id}/answers', {
        params: { path: { id: questionId } },
        body: {
          data: { body: values.body, ...(values.authorName.trim() && { authorName: values.authorName.trim() }) },
        },
      }),
    onSuccess: async () => {
      form.reset();
      await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
    },
    onError: (error) => applyApiErrors(form, error),
  });
  return (
    <form onSubmit={form.onSubmit((values) => answer.mutate(values))}>
      <Stack gap="xs">
        <Title order={3} size="h5">
          Answer the question
        </Title>
        <Textarea label="Answer" autosize minRows={3} maxRows={10} required {...form.getInputProps('body')} />
        <TextInput
          label="Signed as"
          description="Shown with the answer; the organization's name when left empty."
          placeholder={organization.name}
          {...form.getInputProps('authorName')}
        />
        <FormError error={answer.error} form={form} />
        {answer.isSuccess && (
          <Text size="sm" role="status">
            Answer published.
          </Text>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={answer.isPending}>
            Post answer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
