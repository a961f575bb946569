import { useState } from 'react';
import { ActionIcon, Button, Group, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListItemOf, RequestDataOf } from '@patron/client/browser';
import { useApi, useCan } from '../api/session';
import { ApiErrorAlert } from './ApiErrorAlert';
import { ConfirmDialog } from './ConfirmDialog';
import { applyApiErrors, FormError } from './FormErrors';

export type QuickFilter = ListItemOf<'/quick-filters'>;
export type QuickFilterResource = RequestDataOf<'/quick-filters', 'post'>['resource'];

/** What the list shows now, saved as a quick filter's filter, search and sort. */
export interface ListSelection {
  filter: Record<string, unknown>;
  search: string | null;
  sort: string | null;
}

export interface QuickFilterBarProps {
  /** The list the quick filters belong to. */
  resource: QuickFilterResource;
  /** The id of the quick filter applied (the list's `quickFilter` parameter), or null. */
  applied: string | null;
  /** Applies one (or none): the page then sends `quickFilter=<id>`. */
  onApply: (quickFilter: QuickFilter | null) => void;
  /** What "Save as quick filter" saves. */
  current: ListSelection;
}

export const quickFiltersKey = (resource: string) => ['quick-filters', resource] as const;

/**
 * The saved views of one list (docs/api.md#quick-filters; decisions D37): lists them, applies one with the list's
 * `quickFilter` parameter, saves the current filter, search and sort as a new one, deletes one.
 */
export function QuickFilterBar({ resource, applied, onApply, current }: QuickFilterBarProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const canRead = useCan('quickFilters:read');
  const canWrite = useCan('quickFilters:write');
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<QuickFilter | null>(null);
  const query = useQuery({
    queryKey: quickFiltersKey(resource),
    queryFn: ({ signal }) =>
      api.GET('/quick-filters', {
        params: { query: { filter: JSON.stringify({ resource }), sort: 'name', limit: 250 } },
        signal,
      }),
    enabled: canRead,
  });
  if (!canRead) return null;
  const quickFilters = query.data?.data ?? [];

  return (
    <Stack gap={6}>
      <Group gap="xs" wrap="wrap" role="group" aria-label="Quick filters">
        <Text size="sm" fw={500}>
          Quick filters
        </Text>
        {query.isPending && <Loader size="xs" aria-label="Loading quick filters" />}
        {query.isSuccess && quickFilters.length === 0 && (
          <Text size="sm" c="dimmed">
            None saved yet.
          </Text>
        )}
        {quickFilters.map((quickFilter) => {
          const on = quickFilter.id === applied;
          return (
            <Group key={quickFilter.id} gap={0} wrap="nowrap" maw="100%">
              <Button
                size="compact-sm"
                variant={on ? 'filled' : 'light'}
                aria-pressed={on}
                onClick={() => onApply(on ? null : quickFilter)}
                title={JSON.stringify(quickFilter.filter)}
                // Long names are cut (the full name stays the button's accessible name), so a phone's row fits.
                {...(quickFilter.name.length > 28 && { 'aria-label': quickFilter.name })}
              >
                {quickFilter.name.length > 28 ? `${quickFilter.name.slice(0, 27)}…` : quickFilter.name}
              </Button>
              {canWrite && (
                <ActionIcon
                  size="md"
                  variant="subtle"
                  color="gray"
                  aria-label={`Delete quick filter ${quickFilter.name}`}
                  onClick={() => setDeleting(quickFilter)}
                >
                  ×
                </ActionIcon>
              )}
            </Group>
          );
        })}
        {canWrite && (
          <Button size="compact-sm" variant="default" onClick={() => setSaving(true)}>
            Save as quick filter
          </Button>
        )}
      </Group>
      {query.isError && <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
      <SaveQuickFilter
        opened={saving}
        onClose={() => setSaving(false)}
        resource={resource}
        current={current}
        onSaved={(created) => {
          setSaving(false);
          onApply(created);
        }}
      />
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Delete this quick filter?"
        message={`“${deleting?.name ?? ''}” will be gone for everyone in the organization; requests naming it will answer 404.`}
        confirmLabel="Delete quick filter"
        onConfirm={async () => {
          if (!deleting) return;
          await api.DELETE('/quick-filters/{id}', { params: { path: { id: deleting.id } } });
          if (deleting.id === applied) onApply(null);
          await queryClient.invalidateQueries({ queryKey: quickFiltersKey(resource) });
        }}
      />
    </Stack>
  );
}

function SaveQuickFilter({
  opened,
  onClose,
  resource,
  current,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  resource: QuickFilterResource;
  current: ListSelection;
  onSaved: (created: QuickFilter) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (value: string) => (value.trim() === '' ? 'Enter a name.' : null) },
  });
  const save = useMutation({
    mutationFn: (name: string) => api.POST('/quick-filters', { body: { data: { resource, name, ...current } } }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: quickFiltersKey(resource) });
      notifications.show({
        color: 'green',
        closeButtonProps: { 'aria-label': 'Close' },
        message: `The quick filter “${created.name}” was saved.`,
      });
      form.reset();
      onSaved(created);
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    save.reset();
    form.reset();
    onClose();
  };
  const empty = Object.keys(current.filter).length === 0 && !current.search;
  return (
    <Modal opened={opened} onClose={close} title="Save as quick filter" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={form.onSubmit((values) => save.mutate(values.name.trim()))}>
        <Stack>
          <Text size="sm">
            {empty
              ? 'No filter or search is set: this quick filter will select everything.'
              : 'Saves the filter, search and sort the list uses now.'}
          </Text>
          <TextInput label="Name" data-autofocus maxLength={200} {...form.getInputProps('name')} />
          <FormError error={save.error} form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
