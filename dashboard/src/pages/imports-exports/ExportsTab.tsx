import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RequestBodyOf, Schemas } from '@patron/client/browser';
import { useApi, useSession } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/format';
import { allows, isActive, jobColumns, pollWhileActive } from './jobs';

type ExportJob = Schemas['ExportJob'];
type ExportResource = ExportJob['resource'];
type ExportBody = RequestBodyOf<'/export-jobs', 'post'>;

const EXPORTS_KEY = ['export-jobs'] as const;

/** The lists an export job writes, with the read permission each needs. */
const RESOURCES: { value: ExportResource; label: string; permission: string }[] = [
  { value: 'customers', label: 'Customers', permission: 'customers:read' },
  { value: 'products', label: 'Products', permission: 'products:read' },
  { value: 'orders', label: 'Orders', permission: 'orders:read' },
  { value: 'reviews', label: 'Reviews', permission: 'reviews:read' },
  { value: 'product-questions', label: 'Product questions', permission: 'reviews:read' },
  { value: 'wishlists', label: 'Wishlists', permission: 'wishlists:read' },
  { value: 'loyalty-rewards', label: 'Loyalty rewards', permission: 'loyalty:read' },
  { value: 'loyalty-memberships', label: 'Loyalty memberships', permission: 'loyalty:read' },
  { value: 'loyalty-activity', label: 'Loyalty activity', permission: 'loyalty:read' },
];
const labelOf = (resource: string) => RESOURCES.find((entry) => entry.value === resource)?.label ?? resource;
const columns = jobColumns<ExportJob>('Export', labelOf);

interface Values {
  resource: string;
  format: 'csv' | 'jsonl';
  filter: string;
  search: string;
}

/**
 * Where a succeeded export is downloaded: the job's downloadUrl, relative to the API's base address. The session
 * cookie goes with a plain link to this origin (a GET: no CSRF token needed), so the browser downloads it itself.
 */
function downloadHref(job: ExportJob): string | null {
  if (!job.downloadUrl) return null;
  const path = job.downloadUrl.startsWith('/v1/') ? job.downloadUrl : `/v1${job.downloadUrl}`;
  return new URL(path, window.location.origin).href;
}

export function ExportsTab() {
  const api = useApi();
  const queryClient = useQueryClient();
  const { permissions } = useSession();
  const resources = RESOURCES.filter((resource) => allows(permissions, resource.permission));
  const form = useForm<Values>({
    initialValues: { resource: '', format: 'csv', filter: '', search: '' },
    validate: {
      resource: (value) => (value ? null : 'Choose what to export.'),
      filter: (value) => {
        if (!value.trim()) return null;
        try {
          const parsed: unknown = JSON.parse(value);
          return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
            ? null
            : 'A filter is a JSON object, e.g. {"email": {"$contains": "@example.com"}}.';
        } catch {
          return 'This is not valid JSON.';
        }
      },
    },
  });
  const start = useMutation({
    mutationFn: (values: Values) => {
      // The document gives the body's fields inside data (docs/api.md#wrapped-and-unwrapped-bodies).
      const body: ExportBody = {
        data: {
          resource: values.resource as ExportResource,
          format: values.format,
          ...(values.filter.trim() && { filter: JSON.parse(values.filter) as Record<string, unknown> }),
          ...(values.search.trim() && { search: values.search.trim() }),
        },
      };
      return api.POST('/export-jobs', { body });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: EXPORTS_KEY }),
    onError: (error) => applyApiErrors(form, error),
  });

  return (
    <Stack gap="lg">
      <Card withBorder padding="md">
        <form onSubmit={form.onSubmit((values) => start.mutate(values))} noValidate>
          <Stack>
            <Title order={2} size="h4">
              New export
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Select
                label="Resource"
                placeholder="Choose"
                data={resources.map(({ value, label }) => ({ value, label }))}
                required
                {...form.getInputProps('resource')}
              />
              <Stack gap={4}>
                <Text size="sm" fw={500} id="export-format-label">
                  Format
                </Text>
                <SegmentedControl
                  aria-labelledby="export-format-label"
                  data={[
                    { value: 'csv', label: 'CSV' },
                    { value: 'jsonl', label: 'JSON Lines' },
                  ]}
                  {...form.getInputProps('format')}
                />
              </Stack>
            </SimpleGrid>
            <Textarea
              label="Filter (optional)"
              description='A filter document of the list, as JSON: {"createdAt": {"$gte": "2026-01-01T00:00:00Z"}}.'
              autosize
              minRows={2}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              {...form.getInputProps('filter')}
            />
            <TextInput
              label="Search (optional)"
              description="The list's search, as on its page."
              {...form.getInputProps('search')}
            />
            <FormError error={start.error} form={form} />
            {start.data && (
              <Alert color="green" title="Export started" withCloseButton onClose={() => start.reset()}>
                <Text size="sm">
                  The export of {labelOf(start.data.resource)} is in the list below; its file can be downloaded there
                  once written.
                </Text>
              </Alert>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={start.isPending} disabled={resources.length === 0}>
                Start export
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>

      <Stack gap="sm">
        <Title order={2} size="h4">
          Export jobs
        </Title>
        <PagedTable<ExportJob>
          caption="Export jobs"
          queryKey={[...EXPORTS_KEY, 'list']}
          fetchPage={(cursor, signal) => api.GET('/export-jobs', { params: { query: { cursor, limit: 20 } }, signal })}
          refetchInterval={(page) => pollWhileActive(page?.data)}
          rowKey={(job) => job.id}
          empty="No exports yet."
          columns={[
            ...columns.leading,
            columns.started,
            {
              key: 'file',
              header: 'File',
              render: (job) => {
                const href = downloadHref(job);
                if (href)
                  return (
                    <Stack gap={0}>
                      <Anchor href={href} download size="sm">
                        Download
                      </Anchor>
                      <Text size="xs" c="dimmed" visibleFrom="md">
                        until {formatDateTime(job.expiresAt)}
                      </Text>
                    </Stack>
                  );
                if (isActive(job.status))
                  return (
                    <ConfirmButton
                      title="Cancel this export?"
                      message="It stops before its next page and keeps no file."
                      confirmLabel="Cancel export"
                      onConfirm={async () => {
                        await api.POST('/export-jobs/{id}/cancel', { params: { path: { id: job.id } } });
                        await queryClient.invalidateQueries({ queryKey: EXPORTS_KEY });
                      }}
                    >
                      Cancel
                    </ConfirmButton>
                  );
                return '—';
              },
            },
          ]}
        />
      </Stack>
    </Stack>
  );
}
