import { useState } from 'react';
import {
  Box,
  Button,
  Center,
  Divider,
  Group,
  Loader,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useCan } from '../../api/session';
import {
  ApiErrorAlert,
  applyApiErrors,
  DetailDrawer,
  FormActions,
  FormError,
  PagedTable,
  useDetailParam,
  type Column,
} from '../../components';
import { formatDateTime } from '../../lib/format';
import { ANY, FilterSelect, StatusBadge, useUrlParam } from '../reviews/shared';
import { MAIL_KINDS, TEMPLATES_KEY, type EmailTemplate } from './shared';

const KIND_OPTIONS = [
  { value: ANY, label: 'Any kind' },
  ...Object.entries(MAIL_KINDS).map(([value, label]) => ({ value, label })),
];
/** The drawer's id for a template being created. */
const NEW = 'new';

/** The organization's email templates, one kind and locale each; one opened in a drawer to edit and preview. */
export function TemplatesTab() {
  const api = useApi();
  const canWrite = useCan('mail:write');
  const detail = useDetailParam();
  const [kind] = useUrlParam('kind');
  const filter: Record<string, unknown> = {};
  if (kind && kind in MAIL_KINDS) filter.kind = kind;

  const columns: Column<EmailTemplate>[] = [
    { key: 'name', header: 'Name', render: (template) => template.name },
    { key: 'kind', header: 'Kind', render: (template) => MAIL_KINDS[template.kind], visibleFrom: 'sm' },
    { key: 'locale', header: 'Locale', render: (template) => template.locale, width: 80 },
    {
      key: 'active',
      header: 'State',
      render: (template) =>
        template.isActive ? (
          <StatusBadge color="green">Active</StatusBadge>
        ) : (
          <StatusBadge color="gray">Draft</StatusBadge>
        ),
      width: 100,
    },
    {
      key: 'updatedAt',
      header: 'Changed',
      render: (template) => formatDateTime(template.updatedAt),
      visibleFrom: 'lg',
    },
  ];
  return (
    <Stack>
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <FilterSelect name="kind" label="Kind" options={KIND_OPTIONS} />
        {canWrite && <Button onClick={() => detail.open(NEW)}>New template</Button>}
      </Group>
      <PagedTable<EmailTemplate>
        caption="Email templates"
        queryKey={[...TEMPLATES_KEY, 'list', filter]}
        fetchPage={(cursor, signal) =>
          api.GET('/email-templates', {
            params: {
              query: {
                limit: 25,
                sort: 'name',
                ...(Object.keys(filter).length > 0 && { filter: JSON.stringify(filter) }),
                ...(cursor && { cursor }),
              },
            },
            signal,
          })
        }
        columns={columns}
        rowKey={(template) => template.id}
        onRowClick={(template) => detail.open(template.id)}
        empty={Object.keys(filter).length > 0 ? 'No template of this kind.' : 'No templates yet.'}
      />
      <DetailDrawer
        opened={detail.id !== null}
        onClose={detail.close}
        title={detail.id === NEW ? 'New email template' : 'Email template'}
        size="xl"
      >
        {detail.id === NEW ? (
          <TemplateForm template={null} onClose={detail.close} onCreated={detail.open} />
        ) : (
          detail.id && <TemplateDetail id={detail.id} onClose={detail.close} />
        )}
      </DetailDrawer>
    </Stack>
  );
}

function TemplateDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const api = useApi();
  const query = useQuery({
    queryKey: [...TEMPLATES_KEY, 'detail', id],
    queryFn: ({ signal }) => api.GET('/email-templates/{id}', { params: { path: { id } }, signal }),
  });
  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the template" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  // Keyed by the version, so a save's answer refills the form.
  return <TemplateForm key={query.data.updatedAt} template={query.data} onClose={onClose} />;
}

interface TemplateValues {
  name: string;
  kind: EmailTemplate['kind'];
  locale: string;
  isActive: boolean;
  subject: string;
  html: string;
  text: string;
}

function TemplateForm({
  template,
  onClose,
  onCreated,
}: {
  template: EmailTemplate | null;
  onClose: () => void;
  onCreated?: (id: string) => void;
}) {
  const api = useApi();
  const canWrite = useCan('mail:write');
  const queryClient = useQueryClient();
  const form = useForm<TemplateValues>({
    initialValues: template
      ? {
          name: template.name,
          kind: template.kind,
          locale: template.locale,
          isActive: template.isActive,
          subject: template.subject,
          html: template.html,
          text: template.text,
        }
      : { name: '', kind: 'surveyRequest', locale: 'en', isActive: false, subject: '', html: '', text: '' },
    validate: {
      name: (value) => (value.trim() ? null : 'Enter a name.'),
      subject: (value) => (value.trim() ? null : 'Enter a subject.'),
      html: (value) => (value.trim() ? null : 'Write the HTML part.'),
    },
  });
  const save = useMutation({
    mutationFn: async (values: TemplateValues) => {
      const { kind, ...fields } = values;
      const body = { ...fields, name: fields.name.trim(), locale: fields.locale.trim() };
      if (!template) return api.POST('/email-templates', { body: { data: { ...body, kind } } });
      return api.PATCH('/email-templates/{id}', { params: { path: { id: template.id } }, body: { data: body } });
    },
    onSuccess: async (saved) => {
      form.resetDirty();
      await queryClient.invalidateQueries({ queryKey: TEMPLATES_KEY });
      if (!template) onCreated?.(saved.id);
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const mono = { styles: { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } };

  return (
    <Stack gap="md">
      <form onSubmit={form.onSubmit((values) => save.mutate(values))}>
        <Stack gap="sm">
          <TextInput label="Name" required maxLength={200} disabled={!canWrite} {...form.getInputProps('name')} />
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <Select
              label="Kind"
              description={template ? 'Kept for life' : undefined}
              data={Object.entries(MAIL_KINDS).map(([value, label]) => ({ value, label }))}
              allowDeselect={false}
              disabled={Boolean(template) || !canWrite}
              {...form.getInputProps('kind')}
            />
            <TextInput
              label="Locale"
              description="A language tag: en, de-AT"
              disabled={!canWrite}
              {...form.getInputProps('locale')}
            />
            <Switch
              label="Active"
              description="One active per kind and locale"
              mt={{ xs: 'lg' }}
              disabled={!canWrite}
              {...form.getInputProps('isActive', { type: 'checkbox' })}
            />
          </SimpleGrid>
          <TextInput label="Subject" required disabled={!canWrite} {...mono} {...form.getInputProps('subject')} />
          <Textarea
            label="HTML"
            description="Liquid; every output is HTML-escaped."
            required
            autosize
            minRows={4}
            maxRows={16}
            disabled={!canWrite}
            {...mono}
            {...form.getInputProps('html')}
          />
          <Textarea
            label="Text"
            description="The plain-text part; empty for none."
            autosize
            minRows={2}
            maxRows={10}
            disabled={!canWrite}
            {...mono}
            {...form.getInputProps('text')}
          />
          <FormError error={save.error} form={form} />
          {save.isSuccess && !form.isDirty() && (
            <Text size="sm" role="status">
              Template saved.
            </Text>
          )}
          <FormActions
            canWrite={canWrite}
            editing={Boolean(template)}
            createLabel="Create template"
            saving={save.isPending}
            onClose={onClose}
            deletion={
              template && {
                title: `Delete the template ${template.name}?`,
                message: 'A template a survey flow writes its requests with cannot be deleted.',
                confirmLabel: 'Delete template',
                onConfirm: async () => {
                  await api.DELETE('/email-templates/{id}', { params: { path: { id: template.id } } });
                  onClose();
                  await queryClient.invalidateQueries({ queryKey: TEMPLATES_KEY });
                },
              }
            }
          />
        </Stack>
      </form>
      {template && <Preview template={template} dirty={form.isDirty()} />}
    </Stack>
  );
}

/** The saved template rendered with its kind's sample data (POST …/preview, which sends nothing). */
function Preview({ template, dirty }: { template: EmailTemplate; dirty: boolean }) {
  const api = useApi();
  const [shown, setShown] = useState(false);
  const preview = useMutation({
    mutationFn: () => api.POST('/email-templates/{id}/preview', { params: { path: { id: template.id } }, body: {} }),
    onSuccess: () => setShown(true),
  });
  return (
    <Stack gap="sm">
      <Divider />
      <Group justify="space-between" align="center" wrap="wrap">
        <Stack gap={0}>
          <Title order={3} size="h5">
            Preview
          </Title>
          <Text size="xs" c="dimmed">
            {dirty ? 'Of the saved template: save to preview your changes.' : 'With sample data; nothing is sent.'}
          </Text>
        </Stack>
        <Button variant="light" onClick={() => preview.mutate()} loading={preview.isPending}>
          Preview
        </Button>
      </Group>
      {preview.isError && <ApiErrorAlert error={preview.error} />}
      {shown && preview.data && (
        <Stack gap="xs" aria-label="Rendered mail" role="group">
          <Box>
            <Text size="xs" c="dimmed">
              Subject
            </Text>
            <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="preview-subject">
              {preview.data.subject}
            </Text>
          </Box>
          <Box>
            <Text size="xs" c="dimmed">
              HTML
            </Text>
            {/* sandbox="": the rendered mail runs no script, submits nothing and cannot reach the dashboard. */}
            <iframe
              title="The rendered HTML part"
              sandbox=""
              srcDoc={preview.data.html}
              style={{
                width: '100%',
                height: 240,
                border: '1px solid var(--mantine-color-default-border)',
                borderRadius: 'var(--mantine-radius-sm)',
                background: 'white',
              }}
            />
          </Box>
          <Box>
            <Text size="xs" c="dimmed">
              Text
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="preview-text">
              {preview.data.text || 'No plain-text part.'}
            </Text>
          </Box>
        </Stack>
      )}
    </Stack>
  );
}
