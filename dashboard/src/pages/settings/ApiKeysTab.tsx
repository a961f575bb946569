import { useState } from 'react';
import { Badge, Button, Code, Group, Modal, MultiSelect, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKey } from '../../api/contract';
import { useDashboardApi, useSession } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { PagedTable } from '../../components/PagedTable';
import { ShownOnce } from '../../components/ShownOnce';
import { formatDateTime } from '../../lib/format';

const KEYS_KEY = ['keys'] as const;

/** Secret keys (owners and admins): created with the permissions chosen and shown once, listed, revoked. */
export function ApiKeysTab() {
  const endpoints = useDashboardApi();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const { testMode } = useSession();
  return (
    <Stack>
      <Group justify={testMode ? 'space-between' : 'flex-end'} wrap="nowrap">
        {testMode && (
          <Text size="sm">
            These are the test keys (<Code>sk_test_…</Code>): they act only on test data. Switch test mode off for live
            keys.
          </Text>
        )}
        <Button onClick={() => setCreating(true)}>Create key</Button>
      </Group>
      <PagedTable<ApiKey>
        caption="API keys"
        queryKey={KEYS_KEY}
        fetchPage={() => endpoints.keys.list()}
        rowKey={(key) => key.id}
        empty="No keys yet."
        columns={[
          { key: 'name', header: 'Name', render: (key) => key.name ?? '—' },
          { key: 'prefix', header: 'Key', render: (key) => <Code>{key.prefix}…</Code> },
          {
            key: 'permissions',
            header: 'Permissions',
            render: (key) => (key.permissions.includes('all') ? 'all' : `${key.permissions.length} permissions`),
            visibleFrom: 'sm',
          },
          { key: 'createdAt', header: 'Created', render: (key) => formatDateTime(key.createdAt), visibleFrom: 'md' },
          {
            key: 'state',
            header: '',
            render: (key) =>
              key.revokedAt ? (
                <Badge color="gray" variant="light">
                  Revoked
                </Badge>
              ) : (
                <ConfirmButton
                  title="Revoke this key?"
                  message={`Requests with ${key.prefix}… are refused from now on. This cannot be undone.`}
                  confirmLabel="Revoke key"
                  onConfirm={async () => {
                    await endpoints.keys.revoke(key.id);
                    await queryClient.invalidateQueries({ queryKey: KEYS_KEY });
                  }}
                >
                  Revoke
                </ConfirmButton>
              ),
          },
        ]}
      />
      <CreateKey opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function CreateKey({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const endpoints = useDashboardApi();
  const { grantablePermissions } = useSession();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: '', permissions: [] as string[] },
    validate: { permissions: (value) => (value.length === 0 ? 'Choose at least one permission.' : null) },
  });
  const create = useMutation({
    mutationFn: (values: { name: string; permissions: string[] }) =>
      endpoints.keys.create({
        permissions: values.permissions,
        ...(values.name.trim() ? { name: values.name.trim() } : {}),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEYS_KEY }),
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    create.reset();
    form.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Create an API key" size="lg">
      {create.isSuccess ? (
        <ShownOnce
          explanation={<Text size="sm">Copy the key now: it is shown this once and cannot be read again.</Text>}
          value={create.data.key}
          copyLabel="Copy key"
          onDone={close}
        />
      ) : (
        <form onSubmit={form.onSubmit((values) => create.mutate(values))}>
          <Stack>
            <TextInput label="Name" description="What the key is for." {...form.getInputProps('name')} />
            <MultiSelect
              label="Permissions"
              description="'all' grants every permission, including ones added later."
              data={['all', ...grantablePermissions.filter((permission) => permission !== 'all')]}
              searchable
              required
              {...form.getInputProps('permissions')}
            />
            <FormError error={create.error} form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
