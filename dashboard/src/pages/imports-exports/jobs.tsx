/** What the import and export tabs share: job statuses and progress. */
import { Badge, Progress, Stack, Text } from '@mantine/core';
import { formatInteger } from '../../lib/format';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

const COLORS: Record<JobStatus, string> = {
  queued: 'gray',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'yellow',
};

export const isActive = (status: JobStatus) => status === 'queued' || status === 'running';

export function JobStatusBadge({ status }: { status: JobStatus }) {
  return (
    <Badge color={COLORS[status]} variant="dot">
      {status}
    </Badge>
  );
}

/** Rows handled against the total, as a bar and a line of text. */
export function JobProgress({
  status,
  processed,
  total,
  label,
}: {
  status: JobStatus;
  processed: number;
  total: number | null;
  label: string;
}) {
  const value = total ? Math.min(100, (processed / total) * 100) : status === 'succeeded' ? 100 : 0;
  return (
    <Stack gap={2} miw={120}>
      <Progress
        value={value}
        size="sm"
        color={status === 'failed' ? 'red' : status === 'succeeded' ? 'green' : undefined}
        animated={isActive(status)}
        aria-label={label}
      />
      <Text size="xs" c="dimmed">
        {formatInteger(processed)} / {total === null ? '…' : formatInteger(total)} rows
      </Text>
    </Stack>
  );
}

/** Polls every second while a job is queued or running. */
export const pollWhileActive = (jobs: readonly { status: JobStatus }[] | undefined) =>
  jobs?.some((job) => isActive(job.status)) ? 1_000 : false;

/** Whether a session's permissions include `permission` (as useCan says, for a list of them). */
export const allows = (permissions: readonly string[], permission: string) =>
  permissions.includes('all') || permissions.includes(permission);
