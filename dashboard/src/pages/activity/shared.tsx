import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import type { Schemas } from '@patron/client/browser';
import type { Column } from '../../components';
import { formatDateTime } from '../../lib/format';

export type AuditEntry = Schemas['AuditEntry'];
export const AUDIT_KEY = ['audit-log'] as const;

const ACTOR_TYPES: Record<AuditEntry['actor']['type'], string> = {
  apiKey: 'API key',
  user: 'Person',
  cli: 'Command line',
  system: 'Patron',
};

/** Who: the user's email, the key's prefix or the operator's account, and what kind of caller it was. */
export function Who({ entry }: { entry: AuditEntry }) {
  return (
    <Stack gap={0} style={{ minWidth: 0 }}>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {entry.actor.label ?? entry.actor.id ?? '—'}
      </Text>
      <Text size="xs" c="dimmed">
        {ACTOR_TYPES[entry.actor.type]}
      </Text>
    </Stack>
  );
}

/**
 * What: the request's method and path (the command for the CLI). In a record's own history the record is known, so
 * only what follows its id in the path is shown (`/tags`, or nothing for the record itself).
 */
export function What({ entry, withinRecord = false }: { entry: AuditEntry; withinRecord?: boolean }) {
  const at = withinRecord && entry.resourceId ? entry.path.indexOf(entry.resourceId) : -1;
  const path = at >= 0 ? entry.path.slice(at + (entry.resourceId?.length ?? 0)) : entry.path;
  return (
    <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
      <Text size="xs" fw={700} style={{ flexShrink: 0 }}>
        {entry.method}
      </Text>
      <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
        {path}
      </Text>
    </Group>
  );
}

/** The result: the status answered, green for success, orange for a refusal, red for a failure. */
export function Result({ status }: { status: number | null }) {
  if (status === null) return <Text size="sm">—</Text>;
  const color = status < 300 ? 'green' : status < 500 ? 'orange' : 'red';
  const word = status < 300 ? 'Done' : status < 500 ? 'Refused' : 'Failed';
  return (
    <Badge variant="light" color={color}>
      {`${word} ${status}`}
    </Badge>
  );
}

/** The columns of an activity table; `withRecord` adds what the entry was about (the log page; a record's own history omits it). */
export function activityColumns(withRecord: boolean): Column<AuditEntry>[] {
  return [
    { key: 'when', header: 'When', render: (entry) => formatDateTime(entry.createdAt), width: 180 },
    { key: 'who', header: 'Who', render: (entry) => <Who entry={entry} /> },
    { key: 'what', header: 'What', render: (entry) => <What entry={entry} withinRecord={!withRecord} /> },
    { key: 'result', header: 'Result', render: (entry) => <Result status={entry.status} />, width: 130 },
    ...(withRecord
      ? [
          {
            key: 'record',
            header: 'Record',
            render: (entry: AuditEntry) => (
              <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                {entry.resourceType ?? ''}
                {entry.resourceId ? ` ${entry.resourceId}` : ''}
              </Text>
            ),
            visibleFrom: 'lg' as const,
          },
        ]
      : []),
    {
      key: 'request',
      header: 'Request id',
      render: (entry) => (
        <Code style={{ overflowWrap: 'anywhere' }} fz="xs">
          {entry.requestId ?? '—'}
        </Code>
      ),
      visibleFrom: 'md',
    },
  ];
}
