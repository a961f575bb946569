import { useState } from 'react';
import {
  Button,
  Card,
  Center,
  Divider,
  Group,
  Loader,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import {
  ApiErrorAlert,
  applyApiErrors,
  ConfirmButton,
  DetailDrawer,
  FormActions,
  FormError,
  PagedTable,
  useDetailParam,
  type Column,
} from '../../components';
import { formatDateTime, formatInteger } from '../../lib/format';
import { Field } from './ReviewsTab';
import { ANY, FilterSelect, Prose, Rating, StatusBadge, useUrlParam } from './shared';

type Survey = Schemas['Survey'];
type SurveyFlow = Schemas['SurveyFlow'];
type Question = SurveyFlow['questions'][number];
type SurveyAnswer = Survey['answers'][number];

const SURVEYS_KEY = ['surveys'] as const;
const FLOWS_KEY = ['survey-flows'] as const;
const CLOSE_LABEL = { closeButtonProps: { 'aria-label': 'Close' } } as const;

const SURVEY_STATUS: Record<Survey['status'], { label: string; color: string }> = {
  scheduled: { label: 'Scheduled', color: 'blue' },
  sent: { label: 'Sent', color: 'teal' },
  answered: { label: 'Answered', color: 'green' },
  suppressed: { label: 'Suppressed', color: 'gray' },
  failed: { label: 'Failed', color: 'red' },
};
const STATUS_OPTIONS = [
  { value: ANY, label: 'Any status' },
  ...Object.entries(SURVEY_STATUS).map(([value, { label }]) => ({ value, label })),
];
const TRIGGERS: Record<SurveyFlow['trigger'], string> = {
  orderShipped: 'Order shipped',
  orderDelivered: 'Order delivered',
};
const KINDS: Record<Question['kind'], string> = { rating: 'Rating (1–5)', choice: 'Choice', text: 'Text' };

const days = (count: number) => (count === 0 ? 'At once' : count === 1 ? '1 day' : `${formatInteger(count)} days`);

/** The survey flows (which surveys go out when), and the surveys they scheduled with their answers. */
export function SurveysTab() {
  return (
    <Stack gap="xl">
      <FlowsSection />
      <SurveysSection />
    </Stack>
  );
}

/** Every flow of the organization (a few at most), for names in the surveys list and questions in a survey. */
function useFlows() {
  const api = useApi();
  return useQuery({
    queryKey: [...FLOWS_KEY, 'all'],
    queryFn: ({ signal }) => api.GET('/survey-flows', { params: { query: { limit: 100 } }, signal }),
    staleTime: 30_000,
  });
}

function FlowsSection() {
  const api = useApi();
  const canWrite = useCan('surveys:write');
  const [editing, setEditing] = useState<SurveyFlow | 'new' | null>(null);
  const columns: Column<SurveyFlow>[] = [
    { key: 'name', header: 'Name', render: (flow) => flow.name },
    { key: 'trigger', header: 'After', render: (flow) => TRIGGERS[flow.trigger], visibleFrom: 'sm' },
    { key: 'delay', header: 'Delay', render: (flow) => days(flow.delayDays), visibleFrom: 'sm', width: 90 },
    {
      key: 'questions',
      header: 'Questions',
      render: (flow) => formatInteger(flow.questions.length),
      visibleFrom: 'md',
      width: 90,
    },
    { key: 'active', header: 'Active', render: (flow) => <ActiveSwitch flow={flow} canWrite={canWrite} />, width: 90 },
  ];
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Title order={2} size="h4">
            Survey flows
          </Title>
          <Text size="sm" c="dimmed">
            Each active flow mails a survey a set number of days after an order ships or arrives.
          </Text>
        </Stack>
        {canWrite && <Button onClick={() => setEditing('new')}>New flow</Button>}
      </Group>
      <PagedTable<SurveyFlow>
        caption="Survey flows"
        queryKey={[...FLOWS_KEY, 'list']}
        fetchPage={(cursor, signal) =>
          api.GET('/survey-flows', { params: { query: { limit: 25, ...(cursor && { cursor }) } }, signal })
        }
        columns={columns}
        rowKey={(flow) => flow.id}
        onRowClick={setEditing}
        empty="No survey flows yet."
        // On a phone: the name and the switch, without scrolling sideways.
        minWidth={300}
      />
      {editing && <FlowForm flow={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}

/** isActive, switched in the list (PATCH); read-only without surveys:write. */
function ActiveSwitch({ flow, canWrite }: { flow: SurveyFlow; canWrite: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (isActive: boolean) =>
      api.PATCH('/survey-flows/{id}', { params: { path: { id: flow.id } }, body: { data: { isActive } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: FLOWS_KEY }),
  });
  const checked = toggle.isPending ? toggle.variables : flow.isActive;
  return (
    // The row opens the flow; the switch is its own control.
    <span onClick={(event) => event.stopPropagation()} onKeyDown={(event) => event.stopPropagation()}>
      <Switch
        checked={checked}
        disabled={!canWrite || toggle.isPending}
        onChange={(event) => toggle.mutate(event.currentTarget.checked)}
        aria-label={`${flow.name} active`}
        error={toggle.isError ? 'Not saved' : undefined}
      />
    </span>
  );
}

interface QuestionValues {
  id: string;
  text: string;
  kind: Question['kind'];
  choices: string[];
}
interface FlowValues {
  name: string;
  trigger: SurveyFlow['trigger'];
  delayDays: number | string;
  emailTemplateId: string | null;
  isActive: boolean;
  questions: QuestionValues[];
}

function FlowForm({ flow, onClose }: { flow: SurveyFlow | null; onClose: () => void }) {
  const api = useApi();
  const canWrite = useCan('surveys:write');
  const canReadMail = useCan('mail:read');
  const queryClient = useQueryClient();
  const templates = useQuery({
    queryKey: ['email-templates', 'surveyRequest'],
    enabled: canReadMail,
    queryFn: ({ signal }) =>
      api.GET('/email-templates', {
        params: { query: { limit: 100, filter: JSON.stringify({ kind: 'surveyRequest' }) } },
        signal,
      }),
  });
  const form = useForm<FlowValues>({
    initialValues: flow
      ? {
          name: flow.name,
          trigger: flow.trigger,
          delayDays: flow.delayDays,
          emailTemplateId: flow.emailTemplateId,
          isActive: flow.isActive,
          questions: flow.questions.map((question) => ({ ...question, choices: question.choices ?? [] })),
        }
      : {
          name: '',
          trigger: 'orderDelivered',
          delayDays: 7,
          emailTemplateId: null,
          isActive: true,
          questions: [{ id: 'overall', text: 'How happy are you with your order?', kind: 'rating', choices: [] }],
        },
    validate: {
      name: (value) => (value.trim() ? null : 'Enter a name.'),
      emailTemplateId: (value) => (value ? null : 'Choose the template the request is written with.'),
    },
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: FLOWS_KEY });
  const save = useMutation({
    mutationFn: async (values: FlowValues) => {
      const body = {
        name: values.name.trim(),
        trigger: values.trigger,
        delayDays: values.delayDays === '' ? 0 : Number(values.delayDays),
        emailTemplateId: values.emailTemplateId ?? '',
        isActive: values.isActive,
        questions: values.questions.map((question) => ({
          id: question.id.trim(),
          text: question.text.trim(),
          kind: question.kind,
          ...(question.kind === 'choice' && { choices: question.choices }),
        })),
      };
      if (!flow) return api.POST('/survey-flows', { body: { data: body } });
      return api.PATCH('/survey-flows/{id}', { params: { path: { id: flow.id } }, body: { data: body } });
    },
    onSuccess: async () => {
      await changed();
      onClose();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const templateOptions = (templates.data?.data ?? []).map((template) => ({
    value: template.id,
    label: `${template.name} (${template.locale}${template.isActive ? '' : ', inactive'})`,
  }));
  if (flow && !templateOptions.some((option) => option.value === flow.emailTemplateId))
    templateOptions.unshift({ value: flow.emailTemplateId, label: templates.isPending ? 'Loading…' : 'A template' });

  return (
    <Modal
      {...CLOSE_LABEL}
      opened
      onClose={onClose}
      size="lg"
      title={flow ? (canWrite ? `Edit flow ${flow.name}` : flow.name) : 'New survey flow'}
    >
      <form onSubmit={form.onSubmit((values) => save.mutate(values))}>
        <Stack>
          <TextInput label="Name" required maxLength={200} disabled={!canWrite} {...form.getInputProps('name')} />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <Select
              label="Sent after"
              data={Object.entries(TRIGGERS).map(([value, label]) => ({ value, label }))}
              allowDeselect={false}
              disabled={!canWrite}
              {...form.getInputProps('trigger')}
            />
            <NumberInput
              label="Delay in days"
              min={0}
              max={365}
              allowDecimal={false}
              disabled={!canWrite}
              {...form.getInputProps('delayDays')}
            />
          </SimpleGrid>
          <Select
            label="Email template"
            description="A survey request template (Mail › Templates)."
            data={templateOptions}
            required
            disabled={!canWrite}
            {...form.getInputProps('emailTemplateId')}
          />
          <Switch label="Active" disabled={!canWrite} {...form.getInputProps('isActive', { type: 'checkbox' })} />
          <Divider label="Questions" labelPosition="left" />
          {form.values.questions.map((question, index) => (
            <Card key={index} withBorder padding="sm" aria-label={`Question ${index + 1}`} component="fieldset">
              <Stack gap="xs">
                <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                  <TextInput
                    label="Id"
                    description="Letters, digits, _ and -"
                    required
                    disabled={!canWrite}
                    {...form.getInputProps(`questions.${index}.id`)}
                  />
                  <Select
                    label="Kind"
                    data={Object.entries(KINDS).map(([value, label]) => ({ value, label }))}
                    allowDeselect={false}
                    disabled={!canWrite}
                    {...form.getInputProps(`questions.${index}.kind`)}
                  />
                </SimpleGrid>
                <Textarea
                  label="Question"
                  required
                  autosize
                  minRows={1}
                  disabled={!canWrite}
                  {...form.getInputProps(`questions.${index}.text`)}
                />
                {question.kind === 'choice' && (
                  <TagsInput
                    label="Choices"
                    description="2 to 20; Enter after each"
                    disabled={!canWrite}
                    {...form.getInputProps(`questions.${index}.choices`)}
                  />
                )}
                {canWrite && form.values.questions.length > 1 && (
                  <Group justify="flex-end">
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      onClick={() => form.removeListItem('questions', index)}
                    >
                      Remove question {index + 1}
                    </Button>
                  </Group>
                )}
              </Stack>
            </Card>
          ))}
          {canWrite && form.values.questions.length < 20 && (
            <Group>
              <Button
                variant="light"
                size="xs"
                onClick={() =>
                  form.insertListItem('questions', {
                    id: `q${form.values.questions.length + 1}`,
                    text: '',
                    kind: 'text',
                    choices: [],
                  })
                }
              >
                Add a question
              </Button>
            </Group>
          )}
          <FormError error={save.error} form={form} />
          <FormActions
            canWrite={canWrite}
            editing={Boolean(flow)}
            createLabel="Create flow"
            saving={save.isPending}
            onClose={onClose}
            deletion={
              flow && {
                title: `Delete the flow ${flow.name}?`,
                message:
                  'The flow is deleted with its surveys and their answers; requests not sent yet are withdrawn. To keep them, switch the flow off instead.',
                confirmLabel: 'Delete flow',
                onConfirm: async () => {
                  await api.DELETE('/survey-flows/{id}', { params: { path: { id: flow.id } } });
                  await Promise.all([changed(), queryClient.invalidateQueries({ queryKey: SURVEYS_KEY })]);
                  onClose();
                },
              }
            }
          />
        </Stack>
      </form>
    </Modal>
  );
}

/** The order a survey is about and its customer, read once per order (shared by the list and the drawer). */
function useOrder(id: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: ['orders', 'one', id, 'customer'],
    enabled: Boolean(id),
    queryFn: ({ signal }) =>
      api.GET('/orders/{id}', { params: { path: { id: id! }, query: { include: 'customer' } }, signal }),
    staleTime: 60_000,
    retry: false,
  });
}

function customerName(customer: { firstName?: string | null; lastName?: string | null; email?: string | null }) {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return name || customer.email || '—';
}

function OrderCell({ id }: { id: string }) {
  const order = useOrder(id);
  if (order.isError) return <>Deleted order</>;
  return <>{order.data?.number ?? '…'}</>;
}

function CustomerCell({ orderId }: { orderId: string }) {
  const order = useOrder(orderId);
  if (order.isError) return <>—</>;
  const customer = order.data?.customer;
  return <>{order.data ? (customer ? customerName(customer) : '—') : '…'}</>;
}

function SurveysSection() {
  const api = useApi();
  const detail = useDetailParam();
  const flows = useFlows();
  const [status] = useUrlParam('status');
  const filter: Record<string, unknown> = {};
  if (status && status in SURVEY_STATUS) filter.status = status;
  const flowName = (id: string) => flows.data?.data.find((flow) => flow.id === id)?.name ?? '—';

  const columns: Column<Survey>[] = [
    {
      key: 'status',
      header: 'Status',
      render: (survey) => (
        <StatusBadge color={SURVEY_STATUS[survey.status].color}>{SURVEY_STATUS[survey.status].label}</StatusBadge>
      ),
      width: 120,
    },
    { key: 'order', header: 'Order', render: (survey) => <OrderCell id={survey.orderId} /> },
    {
      key: 'customer',
      header: 'Customer',
      render: (survey) => <CustomerCell orderId={survey.orderId} />,
      visibleFrom: 'sm',
    },
    { key: 'flow', header: 'Flow', render: (survey) => flowName(survey.surveyFlowId), visibleFrom: 'md' },
    {
      key: 'scheduledFor',
      header: 'Scheduled for',
      render: (survey) => formatDateTime(survey.scheduledFor),
      visibleFrom: 'lg',
    },
    { key: 'sentAt', header: 'Sent', render: (survey) => formatDateTime(survey.sentAt), visibleFrom: 'lg' },
    { key: 'answeredAt', header: 'Answered', render: (survey) => formatDateTime(survey.answeredAt), visibleFrom: 'sm' },
  ];

  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Surveys
      </Title>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <FilterSelect name="status" label="Status" options={STATUS_OPTIONS} />
      </Group>
      <PagedTable<Survey>
        caption="Surveys"
        queryKey={[...SURVEYS_KEY, 'list', filter]}
        fetchPage={(cursor, signal) =>
          api.GET('/surveys', {
            params: {
              query: {
                limit: 25,
                ...(Object.keys(filter).length > 0 && { filter: JSON.stringify(filter) }),
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        columns={columns}
        rowKey={(survey) => survey.id}
        onRowClick={(survey) => detail.open(survey.id)}
        empty={Object.keys(filter).length > 0 ? 'No survey matches this filter.' : 'No surveys yet.'}
        minWidth={300}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Survey">
        {detail.id && <SurveyDetail id={detail.id} onDeleted={detail.close} />}
      </DetailDrawer>
    </Stack>
  );
}

function SurveyDetail({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const api = useApi();
  const canWrite = useCan('surveys:write');
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: [...SURVEYS_KEY, 'detail', id],
    queryFn: ({ signal }) => api.GET('/surveys/{id}', { params: { path: { id } }, signal }),
  });
  const flowId = query.data?.surveyFlowId;
  const flow = useQuery({
    queryKey: [...FLOWS_KEY, 'detail', flowId],
    enabled: Boolean(flowId),
    queryFn: ({ signal }) => api.GET('/survey-flows/{id}', { params: { path: { id: flowId! } }, signal }),
  });
  const order = useOrder(query.data?.orderId);

  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the survey" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const survey = query.data;
  const answers = new Map(survey.answers.map((answer) => [answer.questionId, answer]));

  return (
    <Stack gap="md">
      <Group justify="space-between" align="center">
        <StatusBadge color={SURVEY_STATUS[survey.status].color}>{SURVEY_STATUS[survey.status].label}</StatusBadge>
        {canWrite && (
          <ConfirmButton
            title="Delete this survey?"
            message="The survey and its answers are deleted for good; a request not sent yet is withdrawn."
            confirmLabel="Delete survey"
            buttonProps={{ variant: 'subtle', size: 'xs' }}
            onConfirm={async () => {
              await api.DELETE('/surveys/{id}', { params: { path: { id } } });
              onDeleted();
              await queryClient.invalidateQueries({ queryKey: SURVEYS_KEY });
            }}
          >
            Delete
          </ConfirmButton>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
        <Field label="Order">{order.data?.number ?? (order.isError ? 'Deleted order' : '…')}</Field>
        <Field label="Customer">
          {order.data?.customer ? customerName(order.data.customer) : order.isPending ? '…' : '—'}
        </Field>
        <Field label="Flow">{flow.data?.name ?? (flow.isError ? '—' : '…')}</Field>
        <Field label="Scheduled for">{formatDateTime(survey.scheduledFor)}</Field>
        <Field label="Sent">{survey.sentAt ? formatDateTime(survey.sentAt) : 'Not sent'}</Field>
        <Field label="Answered">{survey.answeredAt ? formatDateTime(survey.answeredAt) : 'Not answered'}</Field>
      </SimpleGrid>
      <Divider />
      <Title order={3} size="h5">
        Questions and answers
      </Title>
      {flow.isError && <ApiErrorAlert error={flow.error} />}
      {flow.isPending ? (
        <Center py="md">
          <Loader size="sm" aria-label="Loading the questions" />
        </Center>
      ) : (
        <Stack gap="xs" role="list" aria-label="Questions">
          {(flow.data?.questions ?? []).map((question) => (
            <Card key={question.id} withBorder padding="sm" role="listitem">
              <Stack gap={4}>
                <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {question.text}
                </Text>
                <AnswerText question={question} answer={answers.get(question.id)} />
              </Stack>
            </Card>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function AnswerText({ question, answer }: { question: Question; answer: SurveyAnswer | undefined }) {
  if (!answer)
    return (
      <Text size="sm" c="dimmed">
        {question.kind === 'choice' ? `Not answered (choices: ${(question.choices ?? []).join(', ')})` : 'Not answered'}
      </Text>
    );
  if (question.kind === 'rating' && answer.step !== undefined)
    return (
      <Text size="sm">
        <Rating value={answer.step} /> {answer.step}/5
      </Text>
    );
  if (question.kind === 'choice') return <Prose>{answer.choice ?? '—'}</Prose>;
  return <Prose>{answer.text ?? '—'}</Prose>;
}
