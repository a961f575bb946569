import { useMemo } from 'react';
import {
  Alert,
  Button,
  Checkbox,
  Group,
  Loader,
  Modal,
  MultiSelect,
  PasswordInput,
  Radio,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMediaQuery } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ResponseDataOf, Schemas } from '@patron/client/browser';
import { useApi } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { ShownOnce } from '../../components/ShownOnce';

export type Endpoint = Schemas['WebhookEndpoint'];
type Saved = ResponseDataOf<'/webhooks', 'post'>;

export const WEBHOOKS_KEY = ['webhooks'] as const;
export const EVENT_CATALOG_KEY = ['webhook-events'] as const;

/** What happens to the signing secret: create offers generate / none / own; edit adds keep and remove. */
type SecretChoice = 'generate' | 'none' | 'own' | 'keep' | 'remove';

interface Values {
  url: string;
  events: string[];
  isActive: boolean;
  secret: SecretChoice;
  hmacSecret: string;
}

/** The catalog of event names (GET /v1/webhook-events), which the picker offers, grouped by record. */
export function useEventCatalog() {
  const api = useApi();
  return useQuery({
    queryKey: EVENT_CATALOG_KEY,
    queryFn: ({ signal }) => api.GET('/webhook-events', { signal }),
    staleTime: Infinity,
  });
}

function bodyOf(values: Values, editing: boolean) {
  const secret =
    values.secret === 'generate'
      ? { generateSecret: true }
      : values.secret === 'own'
        ? { hmacSecret: values.hmacSecret }
        : values.secret === 'remove' || (values.secret === 'none' && !editing)
          ? { hmacSecret: null }
          : {};
  return { url: values.url.trim(), events: values.events, isActive: values.isActive, ...secret };
}

/**
 * Creates an endpoint (endpoint undefined) or changes one: URL, the events it subscribes to (from the catalog),
 * active or paused, and its signing secret. A secret the server generates is shown once, here.
 */
export function EndpointForm({
  opened,
  onClose,
  endpoint,
}: {
  opened: boolean;
  onClose: () => void;
  endpoint?: Endpoint;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const catalog = useEventCatalog();
  const editing = endpoint !== undefined;
  const phone = useMediaQuery('(max-width: 48em)');
  const form = useForm<Values>({
    initialValues: {
      url: endpoint?.url ?? '',
      events: endpoint?.events ?? [],
      isActive: endpoint?.isActive ?? true,
      secret: editing ? 'keep' : 'generate',
      hmacSecret: '',
    },
    validate: {
      url: (value) => (value.trim() ? null : 'Enter the URL deliveries are sent to.'),
      events: (value) => (value.length === 0 ? 'Choose at least one event.' : null),
      hmacSecret: (value, values) =>
        values.secret === 'own' && value.length < 16 ? 'A secret has at least 16 characters.' : null,
    },
  });
  const save = useMutation({
    mutationFn: (values: Values): Promise<Saved> =>
      endpoint
        ? api.PUT('/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: bodyOf(values, true) })
        : api.POST('/webhooks', { body: bodyOf(values, false) }),
    onSuccess: async (saved) => {
      queryClient.setQueryData([...WEBHOOKS_KEY, saved.id], { ...saved, hmacSecret: undefined });
      await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY });
      if (!saved.hmacSecret) close();
    },
    onError: (error) => {
      // The API names the secret `hmacSecret` (and `generateSecret`); both are the one secret field here.
      const rest = applyApiErrors(form, error);
      const secret = rest.find((detail) => /hmacSecret|generateSecret/.test(detail.path));
      if (secret) form.setFieldError('hmacSecret', secret.message);
    },
  });
  const close = () => {
    save.reset();
    form.reset();
    onClose();
  };

  const groups = useMemo(() => {
    const byRecord = new Map<string, { value: string; label: string }[]>();
    for (const event of catalog.data?.data ?? []) {
      const record = event.name.split('.')[0] ?? event.name;
      const items = byRecord.get(record) ?? [];
      items.push({ value: event.name, label: event.firing ? event.name : `${event.name} (not sent yet)` });
      byRecord.set(record, items);
    }
    return [...byRecord].map(([group, items]) => ({ group, items }));
  }, [catalog.data]);
  const firesWhen = useMemo(
    () => new Map((catalog.data?.data ?? []).map((event) => [event.name, event.firesWhen])),
    [catalog.data],
  );

  const secretChoices: { value: SecretChoice; label: string }[] = editing
    ? [
        { value: 'keep', label: endpoint.hasHmacSecret ? 'Keep the current secret' : 'Keep unsigned' },
        { value: 'generate', label: 'Generate a new secret (replaces at once)' },
        { value: 'own', label: 'Set my own secret' },
        ...(endpoint.hasHmacSecret ? [{ value: 'remove' as const, label: 'Remove the secret (stop signing)' }] : []),
      ]
    : [
        { value: 'generate', label: 'Generate a signing secret (recommended)' },
        { value: 'own', label: 'Use my own secret' },
        { value: 'none', label: 'No secret (deliveries are not signed)' },
      ];

  const saved = save.data;
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={editing ? 'Edit webhook endpoint' : 'Add a webhook endpoint'}
      size="lg"
      fullScreen={phone}
    >
      {saved?.hmacSecret ? (
        <ShownOnce
          explanation={
            <Alert color="yellow" title="Copy the signing secret now">
              <Text size="sm">
                It is shown this once and cannot be read again. Receivers verify deliveries with it.
              </Text>
            </Alert>
          }
          value={saved.hmacSecret}
          copyLabel="Copy secret"
          onDone={close}
          testId="webhook-secret"
        />
      ) : (
        <form onSubmit={form.onSubmit((values) => save.mutate(values))} noValidate>
          <Stack>
            <TextInput
              label="URL"
              description="An https:// address on a public host; deliveries are POSTed there."
              placeholder="https://example.com/patron-webhooks"
              required
              inputMode="url"
              {...form.getInputProps('url')}
            />
            {catalog.isError ? (
              <ApiErrorAlert error={catalog.error} title="The event catalog could not be loaded" />
            ) : (
              <MultiSelect
                label="Events"
                description="The events sent to this endpoint."
                placeholder={catalog.isPending ? 'Loading events…' : 'Choose events'}
                rightSection={catalog.isPending ? <Loader size="xs" /> : undefined}
                data={groups}
                searchable
                clearable
                required
                hidePickedOptions
                maxDropdownHeight={280}
                comboboxProps={{ withinPortal: true }}
                renderOption={({ option }) => (
                  <Stack gap={0}>
                    <Text size="sm">{option.label}</Text>
                    <Text size="xs" c="dimmed">
                      {firesWhen.get(option.value)}
                    </Text>
                  </Stack>
                )}
                {...form.getInputProps('events')}
              />
            )}
            {catalog.data && (
              <Group gap="xs">
                <Button
                  variant="subtle"
                  size="compact-sm"
                  onClick={() =>
                    form.setFieldValue(
                      'events',
                      catalog.data.data.filter((event) => event.firing).map((event) => event.name),
                    )
                  }
                >
                  Every event sent today
                </Button>
                <Button variant="subtle" size="compact-sm" onClick={() => form.setFieldValue('events', [])}>
                  None
                </Button>
              </Group>
            )}
            <Checkbox
              label="Active (paused endpoints receive nothing)"
              {...form.getInputProps('isActive', { type: 'checkbox' })}
            />
            <Radio.Group label="Signing secret" {...form.getInputProps('secret')}>
              <Stack gap="xs" mt="xs">
                {secretChoices.map((choice) => (
                  <Radio key={choice.value} value={choice.value} label={choice.label} />
                ))}
              </Stack>
            </Radio.Group>
            {form.values.secret === 'own' && (
              <PasswordInput
                label="Secret"
                description="16 to 256 characters; one starting with whsec_ must be a Standard Webhooks secret."
                autoComplete="off"
                {...form.getInputProps('hmacSecret')}
              />
            )}
            {form.values.secret !== 'own' && form.errors.hmacSecret && (
              <Text size="sm" c="red.9" role="alert">
                {form.errors.hmacSecret}
              </Text>
            )}
            <FormError error={save.error} form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                {editing ? 'Save' : 'Add endpoint'}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
