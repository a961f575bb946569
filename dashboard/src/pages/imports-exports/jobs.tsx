/** What the import and export tabs share: job statuses, progress and the columns of their job lists. */
import { Badge, Progress, Stack, Text } from '@mantine/core';
import type { Column } from '../../components/PagedTable';
import { formatDateTime, formatInteger } from '../../lib/format';

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

/** What both kinds of job answer (GET /v1/import-jobs and /v1/export-jobs). */
interface Job {
  resource: string;
  format: string;
  status: JobStatus;
  rowsProcessed: number;
  rowsTotal: number | null;
  error?: string | null;
  createdAt: string;
}

const FORMATS: Record<string, string> = { csv: 'CSV', jsonl: 'JSON Lines' };

/**
 * The columns a job list starts with (resource and format, status with the job's error, progress) and the one it
 * ends with (when it started); each tab puts its own between and after.
 */
export function jobColumns<J extends Job>(
  kind: 'Import' | 'Export',
  labelOf: (resource: string) => string,
): { leading: Column<J>[]; started: Column<J> } {
  return {
    leading: [
      {
        key: 'resource',
        header: 'Resource',
        render: (job) => (
          <Stack gap={0}>
            <Text size="sm">{labelOf(job.resource)}</Text>
            <Text size="xs" c="dimmed">
              {FORMATS[job.format] ?? job.format}
            </Text>
          </Stack>
        ),
      },
      {
        key: 'status',
        header: 'Status',
        render: (job) => (
          <Stack gap={2}>
            <JobStatusBadge status={job.status} />
            {job.error && (
              <Text size="xs" c="red.9" style={{ whiteSpace: 'pre-wrap' }}>
                {job.error}
              </Text>
            )}
          </Stack>
        ),
      },
      {
        key: 'progress',
        header: 'Progress',
        visibleFrom: 'sm',
        render: (job) => (
          <JobProgress
            status={job.status}
            processed={job.rowsProcessed}
            total={job.rowsTotal}
            label={`${kind} of ${labelOf(job.resource)}`}
          />
        ),
      },
    ],
    started: { key: 'createdAt', header: 'Started', visibleFrom: 'md', render: (job) => formatDateTime(job.createdAt) },
  };
}
