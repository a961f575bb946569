import { useEffect, useRef, useState } from 'react';
import {
  Alert,
  Button,
  Card,
  Center,
  Checkbox,
  FileInput,
  Group,
  Loader,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { fileFormat, useImportUpload, type ImportJob, type ImportResource } from '../../api/import-upload';
import { useApi, useSession } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime, formatInteger } from '../../lib/format';
import { allows, isActive, jobColumns, JobProgress, JobStatusBadge, pollWhileActive } from './jobs';

const IMPORTS_KEY = ['import-jobs'] as const;

/** The resources an import job writes, the permission each needs, and the options its import takes. */
const RESOURCES: { value: ImportResource; label: string; permission: string; merge: boolean }[] = [
  { value: 'customers', label: 'Customers', permission: 'customers:write', merge: true },
  { value: 'products', label: 'Products', permission: 'products:write', merge: true },
  { value: 'orders', label: 'Orders', permission: 'orders:write', merge: true },
  { value: 'reviews', label: 'Reviews', permission: 'reviews:write', merge: true },
  { value: 'product-questions', label: 'Product questions', permission: 'reviews:write', merge: true },
  { value: 'wishlists', label: 'Wishlists', permission: 'wishlists:write', merge: false },
  { value: 'loyalty-memberships', label: 'Loyalty memberships', permission: 'loyalty:write', merge: false },
  { value: 'loyalty-history', label: 'Loyalty history', permission: 'loyalty:write', merge: false },
];
const labelOf = (resource: string) => RESOURCES.find((entry) => entry.value === resource)?.label ?? resource;
const columns = jobColumns<ImportJob>('Import', labelOf);

function useWritableResources() {
  const { permissions } = useSession();
  return RESOURCES.filter((resource) => allows(permissions, resource.permission));
}

/** Bytes as KB / MB. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function ImportsTab() {
  const api = useApi();
  const detail = useDetailParam('job');
  return (
    <Stack gap="lg">
      <NewImport onOpenJob={detail.open} />
      <Stack gap="sm">
        <Title order={2} size="h4">
          Import jobs
        </Title>
        <PagedTable<ImportJob>
          caption="Import jobs"
          queryKey={[...IMPORTS_KEY, 'list']}
          fetchPage={(cursor, signal) => api.GET('/import-jobs', { params: { query: { cursor, limit: 20 } }, signal })}
          refetchInterval={(page) => pollWhileActive(page?.data)}
          rowKey={(job) => job.id}
          onRowClick={(job) => detail.open(job.id)}
          empty="No imports yet."
          columns={[
            ...columns.leading,
            { key: 'counts', header: 'Rows', visibleFrom: 'sm', render: (job) => <Counts job={job} /> },
            columns.started,
          ]}
        />
      </Stack>
      <ImportDrawer jobId={detail.id} onClose={detail.close} />
    </Stack>
  );
}

function Counts({ job }: { job: ImportJob }) {
  return (
    <Text size="xs">
      {formatInteger(job.created)} created · {formatInteger(job.updated)} updated · {formatInteger(job.unchanged)}{' '}
      unchanged ·{' '}
      <Text span size="xs" fw={job.skipped > 0 ? 600 : undefined}>
        {formatInteger(job.skipped)} skipped
      </Text>
    </Text>
  );
}

/** Choose the resource and the file, upload it (a bar of bytes sent), then follow the job (a bar of rows). */
function NewImport({ onOpenJob }: { onOpenJob: (id: string) => void }) {
  const api = useApi();
  const upload = useImportUpload();
  const queryClient = useQueryClient();
  const resources = useWritableResources();
  const [resource, setResource] = useState<ImportResource | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [strict, setStrict] = useState(false);
  const [mergeMetadata, setMergeMetadata] = useState(false);
  const [earnLoyalty, setEarnLoyalty] = useState(true);
  const [sent, setSent] = useState<{ loaded: number; total: number } | null>(null);
  const [fieldErrors, setFieldErrors] = useState<{ resource?: string; file?: string }>({});
  const abort = useRef<AbortController | null>(null);
  const chosen = RESOURCES.find((entry) => entry.value === resource);

  const start = useMutation({
    mutationFn: async () => {
      const controller = new AbortController();
      abort.current = controller;
      setSent({ loaded: 0, total: file!.size });
      return upload({
        file: file!,
        query: {
          resource: resource!,
          ...(strict && { strict: true }),
          ...(chosen?.merge && mergeMetadata && { mergeMetadata: true }),
          ...(resource === 'orders' && !earnLoyalty && { earnLoyalty: false }),
        },
        onProgress: setSent,
        signal: controller.signal,
      });
    },
    onSuccess: (job) => {
      queryClient.setQueryData([...IMPORTS_KEY, job.id], job);
      void queryClient.invalidateQueries({ queryKey: [...IMPORTS_KEY, 'list'] });
    },
    onSettled: () => {
      abort.current = null;
    },
  });
  const jobId = start.data?.id;
  // The job after the upload, asked for every second until it is finished.
  const job = useQuery({
    queryKey: [...IMPORTS_KEY, jobId],
    enabled: jobId !== undefined,
    queryFn: ({ signal }) => api.GET('/import-jobs/{id}', { params: { path: { id: jobId! } }, signal }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? 1_000 : false),
    initialData: start.data,
  });
  const current = job.data;
  // Once it is finished the list shows its final counts too.
  const finishedId = current && !isActive(current.status) ? current.id : null;
  useEffect(() => {
    if (finishedId) void queryClient.invalidateQueries({ queryKey: [...IMPORTS_KEY, 'list'] });
  }, [finishedId, queryClient]);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const errors = {
      ...(!resource && { resource: 'Choose what the file holds.' }),
      ...(!file && { file: 'Choose a file.' }),
      ...(file && !fileFormat(file.name) && { file: 'The file must be .csv, .jsonl or .ndjson (optionally .gz).' }),
    };
    setFieldErrors(errors);
    if (Object.keys(errors).length === 0) start.mutate();
  };

  if (resources.length === 0) {
    return (
      <Alert color="gray" title="Imports need a write permission">
        <Text size="sm">Your role can read the organization&apos;s data but cannot import records.</Text>
      </Alert>
    );
  }
  const uploading = start.isPending;
  return (
    <Card withBorder padding="md">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">
            New import
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="Resource"
              description="What each row of the file is."
              placeholder="Choose"
              data={resources.map(({ value, label }) => ({ value, label }))}
              value={resource}
              onChange={(value) => setResource(value as ImportResource | null)}
              error={fieldErrors.resource}
              disabled={uploading}
              required
            />
            <FileInput
              label="File"
              description="CSV with a header row, or JSON Lines; up to 100,000 rows and 100 MiB."
              placeholder="Choose a file"
              accept=".csv,.jsonl,.ndjson,.gz,text/csv,application/x-ndjson"
              value={file}
              onChange={setFile}
              error={fieldErrors.file}
              disabled={uploading}
              clearable
              required
            />
          </SimpleGrid>
          <Group gap="lg">
            <Checkbox
              label="Strict: stop at the first row that cannot be imported"
              checked={strict}
              onChange={(event) => setStrict(event.currentTarget.checked)}
              disabled={uploading}
            />
            {chosen?.merge && (
              <Checkbox
                label="Merge metadata instead of replacing it"
                checked={mergeMetadata}
                onChange={(event) => setMergeMetadata(event.currentTarget.checked)}
                disabled={uploading}
              />
            )}
            {resource === 'orders' && (
              <Checkbox
                label="New orders earn loyalty points"
                checked={earnLoyalty}
                onChange={(event) => setEarnLoyalty(event.currentTarget.checked)}
                disabled={uploading}
              />
            )}
          </Group>
          {start.isError && !(start.error instanceof DOMException) && (
            <ApiErrorAlert error={start.error} title="The file was not accepted" />
          )}
          {start.isError && start.error instanceof DOMException && (
            <Alert color="gray" title="Upload stopped">
              <Text size="sm">Nothing was imported.</Text>
            </Alert>
          )}
          {sent && (uploading || current) && (
            <Stack gap={4}>
              <Text size="sm">
                Upload: {formatBytes(sent.loaded)} of {formatBytes(sent.total)}
                {uploading && sent.loaded >= sent.total ? ' — the server is reading the file…' : ''}
              </Text>
              <Progress
                value={sent.total ? (sent.loaded / sent.total) * 100 : 100}
                aria-label="Upload"
                animated={uploading}
              />
            </Stack>
          )}
          {current && (
            <Stack gap={4} data-testid="import-progress">
              <Group gap="xs">
                <Text size="sm">Import of {labelOf(current.resource)}:</Text>
                <JobStatusBadge status={current.status} />
              </Group>
              <JobProgress
                status={current.status}
                processed={current.rowsProcessed}
                total={current.rowsTotal}
                label="Rows imported"
              />
              <Counts job={current} />
              {current.error && (
                <Alert color="red" title="The import failed">
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                    {current.error}
                  </Text>
                </Alert>
              )}
              {job.isError && <ApiErrorAlert error={job.error} onRetry={() => void job.refetch()} />}
              {current.skipped > 0 && (
                <Group>
                  <Button variant="light" size="xs" onClick={() => onOpenJob(current.id)}>
                    See the skipped rows
                  </Button>
                </Group>
              )}
            </Stack>
          )}
          <Group justify="flex-end">
            {uploading && (
              <Button variant="default" onClick={() => abort.current?.abort()}>
                Stop upload
              </Button>
            )}
            <Button type="submit" loading={uploading}>
              Upload and import
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/** One import job: its counts and error, the rows it skipped (and why), Cancel while it runs. */
function ImportDrawer({ jobId, onClose }: { jobId: string | null; onClose: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const job = useQuery({
    queryKey: [...IMPORTS_KEY, jobId],
    enabled: jobId !== null,
    queryFn: ({ signal }) => api.GET('/import-jobs/{id}', { params: { path: { id: jobId! } }, signal }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? 1_000 : false),
  });
  const record = job.data;
  return (
    <DetailDrawer opened={jobId !== null} onClose={onClose} title="Import job">
      {job.isPending ? (
        <Center py="xl">
          <Loader size="sm" aria-label="Loading the import job" />
        </Center>
      ) : job.isError ? (
        <ApiErrorAlert error={job.error} onRetry={() => void job.refetch()} />
      ) : (
        record && (
          <Stack gap="sm">
            <Group gap="xs">
              <Text fw={500}>{labelOf(record.resource)}</Text>
              <JobStatusBadge status={record.status} />
              <Text size="xs" c="dimmed">
                {record.format.toUpperCase()}
                {record.options.strict ? ' · strict' : ''}
                {record.options.mergeMetadata ? ' · merge metadata' : ''}
                {record.options.earnLoyalty === false ? ' · earns no loyalty' : ''}
              </Text>
            </Group>
            <JobProgress
              status={record.status}
              processed={record.rowsProcessed}
              total={record.rowsTotal}
              label="Rows imported"
            />
            <Counts job={record} />
            <Text size="xs" c="dimmed">
              Made {formatDateTime(record.createdAt)} · started {formatDateTime(record.startedAt)} · finished{' '}
              {formatDateTime(record.finishedAt)}
            </Text>
            {record.error && (
              <Alert color="red" title="The import failed">
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {record.error}
                </Text>
              </Alert>
            )}
            {isActive(record.status) && (
              <Group>
                <ConfirmButton
                  title="Cancel this import?"
                  message="It stops before its next batch of rows. Rows already written stay."
                  confirmLabel="Cancel import"
                  onConfirm={async () => {
                    const cancelled = await api.POST('/import-jobs/{id}/cancel', {
                      params: { path: { id: record.id } },
                    });
                    queryClient.setQueryData([...IMPORTS_KEY, record.id], cancelled);
                    await queryClient.invalidateQueries({ queryKey: [...IMPORTS_KEY, 'list'] });
                  }}
                >
                  Cancel import
                </ConfirmButton>
              </Group>
            )}
            {record.skipped > 0 && (
              <Stack gap="xs">
                <Title order={3} size="h5">
                  Skipped rows
                </Title>
                <PagedTable<{ index: number; itemIndex?: number; line: number; message: string }>
                  caption="Skipped rows"
                  queryKey={[...IMPORTS_KEY, record.id, 'skipped']}
                  fetchPage={(cursor, signal) =>
                    api.GET('/import-jobs/{id}/skipped', {
                      params: { path: { id: record.id }, query: { cursor, limit: 50 } },
                      signal,
                    })
                  }
                  rowKey={(row) => `${row.index}:${row.itemIndex ?? ''}`}
                  columns={[
                    { key: 'line', header: 'Line', width: 60, render: (row) => formatInteger(row.line) },
                    {
                      key: 'item',
                      header: 'Item',
                      width: 60,
                      render: (row) => (row.itemIndex === undefined ? '—' : formatInteger(row.itemIndex)),
                    },
                    {
                      key: 'message',
                      header: 'Why',
                      render: (row) => (
                        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                          {row.message}
                        </Text>
                      ),
                    },
                  ]}
                />
              </Stack>
            )}
          </Stack>
        )
      )}
    </DetailDrawer>
  );
}
