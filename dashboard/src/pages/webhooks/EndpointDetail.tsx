import { useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Center,
  Code,
  Group,
  Loader,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { PatronError, type ResponseDataOf, type Schemas } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { PageHeader } from '../../components/PageHeader';
import { PagedTable } from '../../components/PagedTable';
import { ShownOnce } from '../../components/ShownOnce';
import { activeFormat, formatDateTime } from '../../lib/format';
import { instantToWallTime, wallTimeToInstant } from '../../lib/time';
import { EndpointForm, WEBHOOKS_KEY } from './EndpointForm';
import { ActiveBadge } from './WebhooksPage';

type Delivery = Schemas['WebhookDelivery'];
type Rotated = ResponseDataOf<'/webhooks/{id}/rotate-secret', 'post'>;

const STATUS_COLORS: Record<Delivery['status'], string> = {
  pending: 'gray',
  sending: 'blue',
  succeeded: 'green',
  failed: 'red',
};

function DeliveryStatus({ delivery }: { delivery: Delivery }) {
  return (
    <Badge color={STATUS_COLORS[delivery.status]} variant="dot">
      {delivery.status}
    </Badge>
  );
}

/** JSON (a payload) as indented text in a <pre>: never HTML. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <Code
      block
      aria-label={label}
      // It scrolls when long: focusable, so a keyboard can scroll it too.
      tabIndex={0}
      style={{ maxHeight: 420, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
    >
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

const deliveriesKey = (endpointId: string) => [...WEBHOOKS_KEY, endpointId, 'deliveries'] as const;

/** One endpoint: what it subscribes to, its actions (edit, test, rotate, recover, delete) and its delivery log. */
export function EndpointDetail() {
  const { id = '' } = useParams();
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canWrite = useCan('webhooks:write');
  const [editing, setEditing] = useState(false);
  const [recovering, setRecovering] = useState(false);
  const [rotated, setRotated] = useState<Rotated | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const delivery = useDetailParam('delivery');

  const endpoint = useQuery({
    queryKey: [...WEBHOOKS_KEY, id],
    queryFn: ({ signal }) => api.GET('/webhooks/{id}', { params: { path: { id } }, signal }),
  });
  const refreshLog = () => queryClient.invalidateQueries({ queryKey: deliveriesKey(id) });
  const test = useMutation({
    mutationFn: () => api.POST('/webhooks/{id}/test', { params: { path: { id } } }),
    onSettled: refreshLog,
  });

  const back = (
    <Anchor component={Link} to="/webhooks" size="sm">
      ← All endpoints
    </Anchor>
  );
  if (endpoint.isPending) {
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the endpoint" />
      </Center>
    );
  }
  if (endpoint.isError) {
    return (
      <Stack>
        <PageHeader title="Webhook endpoint">{back}</PageHeader>
        <ApiErrorAlert error={endpoint.error} onRetry={() => void endpoint.refetch()} />
      </Stack>
    );
  }
  const record = endpoint.data;
  return (
    <Stack gap="lg">
      <PageHeader
        title="Webhook endpoint"
        description={
          <Text span size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {record.url}
          </Text>
        }
      >
        {back}
      </PageHeader>

      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group gap="xs">
            <ActiveBadge active={record.isActive} />
            <Badge color={record.hasHmacSecret ? 'indigo' : 'orange'} variant="dot">
              {record.hasHmacSecret ? 'Signed' : 'Unsigned'}
            </Badge>
            <Text size="xs" c="dimmed">
              Created {formatDateTime(record.createdAt)} · changed {formatDateTime(record.updatedAt)}
            </Text>
          </Group>
          <Text size="sm" fw={500}>
            {record.events.length === 1 ? '1 event' : `${record.events.length} events`}
          </Text>
          <Group gap={4}>
            {record.events.map((name) => (
              <Badge key={name} variant="outline" color="gray" tt="none">
                {name}
              </Badge>
            ))}
          </Group>
          {canWrite && (
            <Group gap="xs" mt="xs">
              <Button size="xs" onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button
                size="xs"
                variant="default"
                onClick={() => test.mutate()}
                loading={test.isPending}
                disabled={!record.isActive}
                title={record.isActive ? undefined : 'Activate the endpoint to send a test'}
              >
                Send test
              </Button>
              <Button size="xs" variant="default" onClick={() => setRecovering(true)} disabled={!record.isActive}>
                Recover failed
              </Button>
              <ConfirmButton
                title="Rotate the signing secret?"
                message="A new secret is generated and shown once. For 24 hours deliveries are signed with both the new and the previous secret, so receivers can switch."
                confirmLabel="Rotate secret"
                danger={false}
                buttonProps={{ size: 'xs', variant: 'default', color: undefined }}
                onConfirm={async () => {
                  const answer = await api.POST('/webhooks/{id}/rotate-secret', { params: { path: { id } } });
                  setRotated(answer);
                  await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY });
                }}
              >
                Rotate secret
              </ConfirmButton>
              <ConfirmButton
                title="Delete this endpoint?"
                message="It receives nothing more, and its delivery log is deleted with it. To stop deliveries for a while, pause it instead."
                confirmLabel="Delete endpoint"
                buttonProps={{ size: 'xs' }}
                onConfirm={async () => {
                  await api.DELETE('/webhooks/{id}', { params: { path: { id } } });
                  queryClient.removeQueries({ queryKey: [...WEBHOOKS_KEY, id] });
                  await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY });
                  await navigate('/webhooks');
                }}
              >
                Delete
              </ConfirmButton>
            </Group>
          )}
          {test.isError && <ApiErrorAlert error={test.error} title="The test could not be sent" />}
          {test.data && (
            <Alert
              color={test.data.status === 'succeeded' ? 'green' : 'red'}
              title={test.data.status === 'succeeded' ? 'Test ping delivered' : 'Test ping failed'}
              withCloseButton
              onClose={() => test.reset()}
            >
              <Text size="sm">
                {test.data.status === 'succeeded'
                  ? `The receiver answered HTTP ${test.data.responseStatus ?? ''}.`
                  : (test.data.error ?? test.data.status)}
              </Text>
            </Alert>
          )}
        </Stack>
      </Card>

      <Stack gap="sm">
        <Group justify="space-between" align="flex-end">
          <Title order={2} size="h4">
            Delivery log
          </Title>
          <Select
            label="Status"
            size="xs"
            w={160}
            clearable
            placeholder="Any"
            data={['pending', 'sending', 'succeeded', 'failed']}
            value={status}
            onChange={setStatus}
          />
        </Group>
        <PagedTable<Delivery>
          caption="Deliveries"
          queryKey={[...deliveriesKey(id), { status }]}
          fetchPage={(cursor, signal) =>
            api.GET('/webhooks/{id}/events', {
              params: {
                path: { id },
                query: { cursor, limit: 25, ...(status && { filter: JSON.stringify({ status }) }) },
              },
              signal,
            })
          }
          // Deliveries waiting for the dispatcher change status on their own: look again until they are done.
          refetchInterval={(page) =>
            page?.data.some((row) => row.status === 'pending' || row.status === 'sending') ? 2_000 : false
          }
          rowKey={(row) => row.id}
          onRowClick={(row) => delivery.open(row.id)}
          empty={status ? `No ${status} deliveries.` : 'Nothing delivered yet. Send a test to see one here.'}
          columns={[
            {
              key: 'event',
              header: 'Event',
              render: (row) => (
                <Text size="sm" ff="monospace">
                  {row.eventName}
                </Text>
              ),
            },
            { key: 'status', header: 'Status', render: (row) => <DeliveryStatus delivery={row} /> },
            {
              key: 'answer',
              header: 'Answer',
              visibleFrom: 'sm',
              render: (row) => (
                <Text size="sm" lineClamp={2}>
                  {row.error ?? (row.responseStatus ? `HTTP ${row.responseStatus}` : '—')}
                </Text>
              ),
            },
            { key: 'createdAt', header: 'Created', visibleFrom: 'md', render: (row) => formatDateTime(row.createdAt) },
          ]}
        />
      </Stack>

      <DeliveryDrawer
        endpointId={id}
        deliveryId={delivery.id}
        onClose={delivery.close}
        canResend={canWrite && record.isActive}
      />
      {editing && <EndpointForm opened endpoint={record} onClose={() => setEditing(false)} />}
      {recovering && (
        <RecoverDialog endpointId={id} onClose={() => setRecovering(false)} onRecovered={() => void refreshLog()} />
      )}
      <Modal opened={rotated !== null} onClose={() => setRotated(null)} title="The new signing secret" size="lg">
        {rotated && (
          <ShownOnce
            explanation={
              <Alert color="yellow" title="Copy the secret now">
                <Text size="sm">
                  It is shown this once.{' '}
                  {rotated.previousSecretExpiresAt
                    ? `The previous secret still signs deliveries until ${formatDateTime(rotated.previousSecretExpiresAt)}.`
                    : 'Deliveries are signed from now on.'}
                </Text>
              </Alert>
            }
            value={rotated.hmacSecret}
            copyLabel="Copy secret"
            onDone={() => setRotated(null)}
            testId="webhook-secret"
          />
        )}
      </Modal>
    </Stack>
  );
}

/** One delivery: where and when it went, its outcome and error, the payload as sent; Resend. */
function DeliveryDrawer({
  endpointId,
  deliveryId,
  onClose,
  canResend,
}: {
  endpointId: string;
  deliveryId: string | null;
  onClose: () => void;
  canResend: boolean;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: [...deliveriesKey(endpointId), 'one', deliveryId],
    enabled: deliveryId !== null,
    // The log has no GET of one delivery: its list, filtered on the id.
    queryFn: async ({ signal }) => {
      const page = await api.GET('/webhooks/{id}/events', {
        params: { path: { id: endpointId }, query: { filter: JSON.stringify({ id: deliveryId }), limit: 1 } },
        signal,
      });
      return page.data[0] ?? null;
    },
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      api.POST('/webhooks/{id}/events/{deliveryId}/resend', { params: { path: { id: endpointId, deliveryId: id } } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: deliveriesKey(endpointId) }),
  });
  const close = () => {
    resend.reset();
    onClose();
  };
  const row = query.data;
  return (
    <DetailDrawer opened={deliveryId !== null} onClose={close} title="Delivery">
      {query.isPending ? (
        <Center py="xl">
          <Loader size="sm" aria-label="Loading the delivery" />
        </Center>
      ) : query.isError ? (
        <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />
      ) : !row ? (
        <Text c="dimmed">This delivery is not in the log.</Text>
      ) : (
        <Stack gap="sm">
          <Group gap="xs">
            <DeliveryStatus delivery={row} />
            <Text size="sm" ff="monospace">
              {row.eventName}
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
            <Field label="Created">{formatDateTime(row.createdAt)}</Field>
            <Field label="Last change">{formatDateTime(row.updatedAt)}</Field>
            <Field label="Receiver's answer">{row.responseStatus ? `HTTP ${row.responseStatus}` : 'none'}</Field>
            <Field label="Idempotency key" mono>
              {row.idempotencyKey}
            </Field>
          </SimpleGrid>
          <Field label="Sent to" mono>
            {row.url}
          </Field>
          {row.error && (
            <Stack gap={4}>
              <Text size="xs" c="dimmed">
                Error
              </Text>
              <Code block color="red.0" aria-label="Error" style={{ whiteSpace: 'pre-wrap' }}>
                {row.error}
              </Code>
            </Stack>
          )}
          <Stack gap={4}>
            <Text size="xs" c="dimmed">
              Payload
            </Text>
            <JsonBlock value={row.payload} label="Payload" />
          </Stack>
          {canResend && (
            <Group>
              <Button onClick={() => resend.mutate(row.id)} loading={resend.isPending}>
                Resend
              </Button>
            </Group>
          )}
          {resend.isError && <ApiErrorAlert error={resend.error} title="The resend failed" />}
          {resend.data && (
            <Alert color={resend.data.status === 'succeeded' ? 'green' : 'red'} title={`Resent: ${resend.data.status}`}>
              <Text size="sm">
                {resend.data.error ?? `The receiver answered HTTP ${resend.data.responseStatus ?? ''}.`}
              </Text>
            </Alert>
          )}
        </Stack>
      )}
    </DetailDrawer>
  );
}

export function Field({ label, children, mono }: { label: string; children: React.ReactNode; mono?: boolean }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" ff={mono ? 'monospace' : undefined} style={{ wordBreak: 'break-all' }}>
        {children}
      </Text>
    </Stack>
  );
}

/** `date` as a datetime-local input takes it: the wall-clock time in the organization's zone. */
function localInput(date: Date): string {
  return instantToWallTime(date.toISOString(), activeFormat().timeZone) ?? '';
}

/** POST /webhooks/{id}/recover: queue again every event whose deliveries since a time all failed. */
function RecoverDialog({
  endpointId,
  onClose,
  onRecovered,
}: {
  endpointId: string;
  onClose: () => void;
  onRecovered: () => void;
}) {
  const api = useApi();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3_600_000)));
  const recover = useMutation({
    mutationFn: () => {
      // Typed in the organization's zone, as every time is shown.
      const instant = wallTimeToInstant(since, activeFormat().timeZone);
      return api.POST('/webhooks/{id}/recover', {
        params: { path: { id: endpointId } },
        body: { since: instant ?? since },
      });
    },
    onSuccess: onRecovered,
  });
  const sinceError =
    recover.error instanceof PatronError
      ? recover.error.details.find((detail) => detail.path.endsWith('since'))?.message
      : undefined;
  return (
    <Modal opened onClose={onClose} title="Recover failed deliveries">
      <Stack>
        <Text size="sm">
          Every event whose deliveries since this time all failed is queued once more, in order, to the current URL.
          Events delivered since (by a resend, say) are left alone.
        </Text>
        <TextInput
          type="datetime-local"
          label={`Since (${activeFormat().timeZone})`}
          value={since}
          onChange={(event) => setSince(event.currentTarget.value)}
          error={sinceError}
          required
        />
        {recover.isError && <ApiErrorAlert error={recover.error} />}
        {recover.data && (
          <Alert color="green" title="Queued">
            <Text size="sm">
              {recover.data.queued === 0
                ? 'Nothing to recover: no event since then failed on every delivery.'
                : `${recover.data.queued} ${recover.data.queued === 1 ? 'delivery' : 'deliveries'} queued.`}
              {recover.data.more && ' More are left: recover again to queue the next ones.'}
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {recover.data ? 'Done' : 'Cancel'}
          </Button>
          {!recover.data?.queued && (
            <Button onClick={() => recover.mutate()} loading={recover.isPending} disabled={!since}>
              Recover
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
