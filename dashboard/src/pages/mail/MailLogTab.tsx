import { Center, Code, Divider, Group, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ApiErrorAlert, DetailDrawer, PagedTable, useDetailParam, type Column } from '../../components';
import { formatDateTime } from '../../lib/format';
import { Field } from '../reviews/ReviewsTab';
import { ANY, FilterSelect, Prose, Snippet, StatusBadge, useUrlParam } from '../reviews/shared';
import { MAIL_LOG_KINDS, MAIL_LOG_KEY, type MailMessage } from './shared';

const MAIL_STATUS: Record<MailMessage['status'], { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'blue' },
  sending: { label: 'Sending', color: 'cyan' },
  sent: { label: 'Sent', color: 'green' },
  logged: { label: 'Logged', color: 'teal' },
  suppressed: { label: 'Suppressed', color: 'gray' },
  failed: { label: 'Failed', color: 'red' },
  interrupted: { label: 'Interrupted', color: 'orange' },
};
const STATUS_OPTIONS = [
  { value: ANY, label: 'Any status' },
  ...Object.entries(MAIL_STATUS).map(([value, { label }]) => ({ value, label })),
];
const KIND_OPTIONS = [
  { value: ANY, label: 'Any kind' },
  ...Object.entries(MAIL_LOG_KINDS).map(([value, label]) => ({ value, label })),
];

function MailStatus({ status }: { status: MailMessage['status'] }) {
  return <StatusBadge color={MAIL_STATUS[status].color}>{MAIL_STATUS[status].label}</StatusBadge>;
}

/** Every mail queued, sent or not, newest first, filtered by status and kind; one entry in a drawer. */
export function MailLogTab() {
  const api = useApi();
  const detail = useDetailParam();
  const [status] = useUrlParam('status');
  const [kind] = useUrlParam('kind');
  const filter: Record<string, unknown> = {};
  if (status && status in MAIL_STATUS) filter.status = status;
  if (kind && kind in MAIL_LOG_KINDS) filter.kind = kind;

  const columns: Column<MailMessage>[] = [
    { key: 'status', header: 'Status', render: (mail) => <MailStatus status={mail.status} />, width: 130 },
    { key: 'recipient', header: 'Recipient', render: (mail) => <Snippet>{mail.recipient}</Snippet> },
    { key: 'subject', header: 'Subject', render: (mail) => <Snippet>{mail.subject}</Snippet>, visibleFrom: 'sm' },
    { key: 'kind', header: 'Kind', render: (mail) => MAIL_LOG_KINDS[mail.kind], visibleFrom: 'md' },
    { key: 'createdAt', header: 'Queued', render: (mail) => formatDateTime(mail.createdAt), visibleFrom: 'lg' },
  ];
  return (
    <Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <FilterSelect name="status" label="Status" options={STATUS_OPTIONS} />
        <FilterSelect name="kind" label="Kind" options={KIND_OPTIONS} />
      </Group>
      <PagedTable<MailMessage>
        caption="Mail log"
        queryKey={[...MAIL_LOG_KEY, 'list', filter]}
        fetchPage={(cursor, signal) =>
          api.GET('/mail-log', {
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
        rowKey={(mail) => mail.id}
        onRowClick={(mail) => detail.open(mail.id)}
        empty={Object.keys(filter).length > 0 ? 'No mail matches these filters.' : 'No mail yet.'}
        minWidth={300}
      />
      <DetailDrawer opened={detail.id !== null} onClose={detail.close} title="Mail">
        {detail.id && <MailDetail id={detail.id} />}
      </DetailDrawer>
    </Stack>
  );
}

function MailDetail({ id }: { id: string }) {
  const api = useApi();
  const query = useQuery({
    queryKey: [...MAIL_LOG_KEY, 'detail', id],
    queryFn: ({ signal }) => api.GET('/mail-log/{id}', { params: { path: { id } }, signal }),
  });
  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the mail" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const mail = query.data;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="center">
        <MailStatus status={mail.status} />
        <Text size="xs" c="dimmed">
          {MAIL_LOG_KINDS[mail.kind]} · {mail.marketing ? 'marketing' : 'asked for by the customer'}
        </Text>
      </Group>
      <Prose>{mail.subject}</Prose>
      <Divider />
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
        <Field label="Recipient">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {mail.recipient}
          </Text>
        </Field>
        <Field label="Queued">{formatDateTime(mail.createdAt)}</Field>
        <Field label="Due">{formatDateTime(mail.dueAt)}</Field>
        <Field label="Sent">{mail.sentAt ? formatDateTime(mail.sentAt) : 'Not sent'}</Field>
      </SimpleGrid>
      {mail.error && (
        <Field label="Error">
          <Prose>{mail.error}</Prose>
        </Field>
      )}
      {mail.smtpResponse && (
        <Field label="SMTP response">
          <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {mail.smtpResponse}
          </Code>
        </Field>
      )}
      {mail.messageId && (
        <Field label="Message-ID">
          <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {mail.messageId}
          </Text>
        </Field>
      )}
    </Stack>
  );
}
