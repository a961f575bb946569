import { Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi, useCan, useSession } from '../../api/session';
import { PagedTable } from '../../components';
import { PageHeader } from '../../components/PageHeader';
import { ANY, FilterSelect, useUrlParam } from '../reviews/shared';
import { activityColumns, AUDIT_KEY, type AuditEntry } from './shared';

const RESULTS = [
  { value: ANY, label: 'Any result' },
  { value: '2xx', label: 'Done (2xx)' },
  { value: '4xx', label: 'Refused (4xx)' },
  { value: '5xx', label: 'Failed (5xx)' },
];
const RECORD_TYPES = [
  { value: ANY, label: 'Any kind of record' },
  ...['products', 'customers', 'orders', 'reviews', 'webhooks', 'keys', 'users', 'session', 'organization'].map(
    (value) => ({ value, label: value }),
  ),
];

/** The people (owners see the users) and keys of the organization, as the "Who" filter's options. */
function useActors(enabled: boolean): { value: string; label: string }[] {
  const api = useApi();
  const { user } = useSession();
  const keys = useQuery({ queryKey: ['keys'], queryFn: ({ signal }) => api.GET('/keys', { signal }), enabled });
  const users = useQuery({
    queryKey: ['users'],
    queryFn: ({ signal }) => api.GET('/users', { signal }),
    enabled: enabled && user.role === 'owner',
  });
  return [
    { value: ANY, label: 'Anyone' },
    { value: 'user', label: 'Any person' },
    { value: 'apiKey', label: 'Any API key' },
    { value: 'cli', label: 'The command line' },
    ...(users.data?.data ?? []).map((each) => ({ value: `user:${each.id}`, label: each.email })),
    ...(keys.data?.data ?? []).map((each) => ({
      value: `apiKey:${each.id}`,
      label: `${each.name ? `${each.name} ` : ''}(${each.prefix}…)`,
    })),
  ];
}

/** The activity log (owners and admins): who changed what, when, and what Patron answered; filters in the URL. */
export default function ActivityPage() {
  const api = useApi();
  const canRead = useCan('auditLog:read');
  const actors = useActors(canRead);
  const [actor, setActor] = useUrlParam('actor');
  const [status] = useUrlParam('result');
  const [resourceType] = useUrlParam('recordType');
  const [resourceId, setResourceId] = useUrlParam('record');
  if (!canRead) {
    return (
      <>
        <PageHeader title="Activity log" />
        <Text c="dimmed">Only owners and admins can see the activity log.</Text>
      </>
    );
  }
  const query = {
    ...(actor && actor !== ANY && { actor }),
    ...(status && status !== ANY && { status }),
    ...(resourceType && resourceType !== ANY && { resourceType }),
    ...(resourceId && { resourceId }),
  };
  return (
    <>
      <PageHeader title="Activity log" />
      <Stack>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label="Who"
            data={actors}
            value={actors.some((option) => option.value === actor) ? actor : ANY}
            onChange={(next) => setActor(next === ANY ? null : next)}
            allowDeselect={false}
            searchable
            w={{ base: '100%', xs: 260 }}
            comboboxProps={{ withinPortal: true }}
          />
          <FilterSelect name="recordType" label="Record" options={RECORD_TYPES} />
          <TextInput
            label="Record id"
            placeholder="0196…"
            defaultValue={resourceId ?? ''}
            onBlur={(event) => setResourceId(event.currentTarget.value.trim() || null)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') setResourceId(event.currentTarget.value.trim() || null);
            }}
            w={{ base: '100%', xs: 320 }}
          />
          <FilterSelect name="result" label="Result" options={RESULTS} />
        </Group>
        <PagedTable<AuditEntry>
          caption="Activity log"
          queryKey={[...AUDIT_KEY, 'list', query]}
          fetchPage={(cursor, signal) =>
            api.GET('/audit-log', { params: { query: { limit: 25, ...query, ...(cursor && { cursor }) } }, signal })
          }
          columns={activityColumns(true)}
          rowKey={(entry) => entry.id}
          empty={Object.keys(query).length > 0 ? 'No activity matches these filters.' : 'No activity yet.'}
          minWidth={640}
        />
      </Stack>
    </>
  );
}
