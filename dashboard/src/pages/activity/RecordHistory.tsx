import { Stack, Title } from '@mantine/core';
import { useApi, useCan } from '../../api/session';
import { PagedTable } from '../../components';
import { activityColumns, AUDIT_KEY, type AuditEntry } from './shared';

/**
 * A record's own history: every write that named it (its edits, deletions and refused attempts), newest first, from
 * the audit log. Shown to those who may read the log (owners and admins); nothing for the others.
 */
export function RecordHistory({ resourceType, resourceId }: { resourceType: string; resourceId: string }) {
  const api = useApi();
  const canRead = useCan('auditLog:read');
  if (!canRead) return null;
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        History
      </Title>
      <PagedTable<AuditEntry>
        caption="History"
        queryKey={[...AUDIT_KEY, 'record', resourceType, resourceId]}
        fetchPage={(cursor, signal) =>
          api.GET('/audit-log', {
            params: { query: { limit: 10, resourceType, resourceId, ...(cursor && { cursor }) } },
            signal,
          })
        }
        columns={activityColumns(false)}
        rowKey={(entry) => entry.id}
        empty="No changes recorded yet."
        minWidth={360}
      />
    </Stack>
  );
}
