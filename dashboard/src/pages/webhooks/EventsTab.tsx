import { useState } from 'react';
import { Alert, Anchor, Button, Center, Group, Loader, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { PatronEvent } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/format';
import { Field, JsonBlock } from './EndpointDetail';
import { WEBHOOKS_KEY } from './EndpointForm';

const EVENTS_KEY = ['events'] as const;

/** The record an event is about: its data's id, when it has one. */
const objectIdOf = (event: PatronEvent): string | null => {
  const id = (event.data as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
};

/**
 * Every event the organization recorded, newest first, subscribed to or not (docs/api.md, "Events API"), filtered by
 * type or a family of types (`order.*`); a row opens the event's JSON, exactly as its deliveries send it, and a form
 * to send it to one endpoint. The filter and the open event are in the URL (?type=, ?event=).
 */
export function EventsTab() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const type = params.get('type');
  const event = useDetailParam('event');
  const catalog = useQuery({
    queryKey: [...WEBHOOKS_KEY, 'catalog'],
    queryFn: ({ signal }) => api.GET('/webhook-events', { signal }),
    staleTime: Infinity,
  });
  const names = catalog.data?.data.map((entry) => entry.name) ?? [];
  const families = [...new Set(names.map((name) => `${name.slice(0, name.indexOf('.'))}.*`))];
  const setType = (value: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set('type', value);
        else next.delete('type');
        return next;
      },
      { replace: true },
    );
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Text size="sm" c="dimmed" maw={560}>
          What the organization&apos;s changes recorded in the last 30 days, whether or not an endpoint subscribes.
        </Text>
        <Select
          label="Type"
          size="xs"
          w={260}
          searchable
          clearable
          placeholder="Any type"
          nothingFoundMessage="No such type"
          data={[
            { group: 'A family of types', items: families },
            { group: 'One type', items: names },
          ]}
          value={type}
          onChange={setType}
        />
      </Group>
      <PagedTable<PatronEvent>
        caption="Events"
        queryKey={[...EVENTS_KEY, { type }]}
        fetchPage={(cursor, signal) => api.events.list({ cursor, limit: 25, ...(type && { type }) }, { signal })}
        rowKey={(row) => row.id}
        onRowClick={(row) => event.open(row.id)}
        empty={type ? `No ${type} events in the last 30 days.` : 'No events yet: changes to any record make them.'}
        columns={[
          {
            key: 'type',
            header: 'Type',
            render: (row) => (
              <Stack gap={2}>
                <Text size="sm" ff="monospace">
                  {row.event}
                </Text>
                <Text size="xs" c="dimmed" hiddenFrom="sm">
                  {formatDateTime(row.timestamp)}
                </Text>
              </Stack>
            ),
          },
          {
            key: 'object',
            header: 'Object',
            visibleFrom: 'sm',
            render: (row) => (
              <Text size="xs" ff="monospace" c="dimmed">
                {objectIdOf(row) ?? '—'}
              </Text>
            ),
          },
          { key: 'timestamp', header: 'Time', visibleFrom: 'sm', render: (row) => formatDateTime(row.timestamp) },
        ]}
      />
      <EventDrawer eventId={event.id} onClose={event.close} />
    </Stack>
  );
}

/** One event: its JSON as sent, and Send to an endpoint (webhooks:write). */
function EventDrawer({ eventId, onClose }: { eventId: string | null; onClose: () => void }) {
  const api = useApi();
  const canSend = useCan('webhooks:write');
  const query = useQuery({
    queryKey: [...EVENTS_KEY, 'one', eventId],
    enabled: eventId !== null,
    queryFn: ({ signal }) => api.events.get(eventId!, { signal }),
  });
  const row = query.data;
  return (
    <DetailDrawer opened={eventId !== null} onClose={onClose} title="Event">
      {query.isPending ? (
        <Center py="xl">
          <Loader size="sm" aria-label="Loading the event" />
        </Center>
      ) : query.isError ? (
        <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />
      ) : row ? (
        <Stack gap="sm">
          <Text size="sm" ff="monospace" fw={600}>
            {row.event}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
            <Field label="Time">{formatDateTime(row.timestamp)}</Field>
            <Field label="Object" mono>
              {objectIdOf(row) ?? 'none'}
            </Field>
          </SimpleGrid>
          <Field label="Event id" mono>
            {row.id}
          </Field>
          <Stack gap={4}>
            <Text size="xs" c="dimmed">
              JSON, as its deliveries send it
            </Text>
            <JsonBlock value={row} label="Event JSON" />
          </Stack>
          {canSend && <SendToEndpoint key={row.id} eventId={row.id} />}
        </Stack>
      ) : null}
    </DetailDrawer>
  );
}

/** Sends the event to one endpoint now, whatever it subscribes to, and shows the outcome. */
function SendToEndpoint({ eventId }: { eventId: string }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [endpointId, setEndpointId] = useState<string | null>(null);
  const endpoints = useQuery({
    queryKey: [...WEBHOOKS_KEY, 'list', 'choices'],
    queryFn: ({ signal }) => api.GET('/webhooks', { params: { query: { limit: 250, sort: 'url' } }, signal }),
  });
  const send = useMutation({
    mutationFn: (id: string) => api.events.deliver(eventId, id),
    onSettled: (_data, _error, id) => queryClient.invalidateQueries({ queryKey: [...WEBHOOKS_KEY, id] }),
  });
  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="xs" wrap="wrap">
        <Select
          label="Send to endpoint"
          placeholder={endpoints.isPending ? 'Loading…' : 'Choose an endpoint'}
          style={{ flex: '1 1 240px' }}
          data={(endpoints.data?.data ?? []).map((endpoint) => ({
            value: endpoint.id,
            label: endpoint.isActive ? endpoint.url : `${endpoint.url} (paused)`,
          }))}
          value={endpointId}
          onChange={(value) => {
            send.reset();
            setEndpointId(value);
          }}
        />
        <Button disabled={!endpointId} loading={send.isPending} onClick={() => endpointId && send.mutate(endpointId)}>
          Send
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        A new, signed delivery with the same idempotency key, whether or not the endpoint subscribes to this type.
      </Text>
      {send.isError && <ApiErrorAlert error={send.error} title="The event was not sent" />}
      {send.data && (
        <Alert color={send.data.status === 'succeeded' ? 'green' : 'red'} title={`Sent: ${send.data.status}`}>
          <Text size="sm">
            {send.data.error ?? `The receiver answered HTTP ${send.data.responseStatus ?? ''}.`}{' '}
            <Anchor component={Link} to={`/webhooks/${send.data.webhookId}`} size="sm">
              See the endpoint&apos;s log
            </Anchor>
          </Text>
        </Alert>
      )}
    </Stack>
  );
}
