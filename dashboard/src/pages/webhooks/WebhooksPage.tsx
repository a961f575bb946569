import { useState } from 'react';
import { Badge, Button, Group, Stack, Tabs, Text } from '@mantine/core';
import { Route, Routes, useNavigate, useSearchParams } from 'react-router';
import { useApi, useCan } from '../../api/session';
import { PageHeader } from '../../components/PageHeader';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/format';
import { EndpointDetail } from './EndpointDetail';
import { EndpointForm, WEBHOOKS_KEY, type Endpoint } from './EndpointForm';
import { EventsTab } from './EventsTab';

/**
 * Webhook endpoints and the organization's events (/webhooks, ?tab=events), and one endpoint with its delivery log
 * (/webhooks/:id).
 */
export default function WebhooksPage() {
  return (
    <Routes>
      <Route index element={<EndpointList />} />
      <Route path=":id" element={<EndpointDetail />} />
    </Routes>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  return active ? (
    <Badge color="green" variant="dot">
      Active
    </Badge>
  ) : (
    <Badge color="gray" variant="dot">
      Paused
    </Badge>
  );
}

function EndpointList() {
  const canWrite = useCan('webhooks:write');
  const canReadEvents = useCan('events:read');
  const [creating, setCreating] = useState(false);
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'events' && canReadEvents ? 'events' : 'endpoints';
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive the organization's events, their deliveries, and every event recorded."
      >
        {canWrite && <Button onClick={() => setCreating(true)}>Add endpoint</Button>}
      </PageHeader>
      <Tabs
        value={tab}
        // The tab is in the URL (?tab=events) so the view can be reloaded and linked to; each starts unfiltered.
        onChange={(value) => value && setParams(value === 'events' ? { tab: value } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md" aria-label="Views">
          <Tabs.Tab value="endpoints">Endpoints</Tabs.Tab>
          {canReadEvents && <Tabs.Tab value="events">Events</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="endpoints">
          <EndpointTable />
        </Tabs.Panel>
        {canReadEvents && (
          <Tabs.Panel value="events">
            <EventsTab />
          </Tabs.Panel>
        )}
      </Tabs>
      {creating && <EndpointForm opened onClose={() => setCreating(false)} />}
    </>
  );
}

function EndpointTable() {
  const api = useApi();
  const navigate = useNavigate();
  return (
    <PagedTable<Endpoint>
      caption="Webhook endpoints"
      queryKey={[...WEBHOOKS_KEY, 'list']}
      fetchPage={(cursor, signal) => api.GET('/webhooks', { params: { query: { cursor, limit: 25 } }, signal })}
      rowKey={(endpoint) => endpoint.id}
      onRowClick={(endpoint) => void navigate(endpoint.id)}
      empty="No endpoints yet. Add one to receive events."
      columns={[
        {
          key: 'url',
          header: 'URL',
          render: (endpoint) => (
            <Stack gap={2}>
              <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                {endpoint.url}
              </Text>
              <Text size="xs" c="dimmed" hiddenFrom="sm">
                {endpoint.events.length === 1 ? '1 event' : `${endpoint.events.length} events`}
              </Text>
            </Stack>
          ),
        },
        {
          key: 'events',
          header: 'Events',
          visibleFrom: 'sm',
          render: (endpoint) =>
            endpoint.events.length <= 2
              ? endpoint.events.join(', ')
              : `${endpoint.events.slice(0, 2).join(', ')} +${endpoint.events.length - 2}`,
        },
        {
          key: 'state',
          header: 'State',
          render: (endpoint) => (
            <Group gap={4}>
              <ActiveBadge active={endpoint.isActive} />
              {!endpoint.hasHmacSecret && (
                <Badge color="orange" variant="dot">
                  Unsigned
                </Badge>
              )}
            </Group>
          ),
        },
        {
          key: 'createdAt',
          header: 'Created',
          visibleFrom: 'md',
          render: (endpoint) => formatDateTime(endpoint.createdAt),
        },
      ]}
    />
  );
}
