import { useState } from 'react';
import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { Route, Routes, useNavigate } from 'react-router';
import { useApi, useCan } from '../../api/session';
import { PageHeader } from '../../components/PageHeader';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/format';
import { EndpointDetail } from './EndpointDetail';
import { EndpointForm, WEBHOOKS_KEY, type Endpoint } from './EndpointForm';

/** Webhook endpoints (/webhooks) and one endpoint with its delivery log (/webhooks/:id). */
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
  const api = useApi();
  const navigate = useNavigate();
  const canWrite = useCan('webhooks:write');
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive the organization's events, and their deliveries."
      >
        {canWrite && <Button onClick={() => setCreating(true)}>Add endpoint</Button>}
      </PageHeader>
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
      {creating && <EndpointForm opened onClose={() => setCreating(false)} />}
    </>
  );
}
