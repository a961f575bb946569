import { useState } from 'react';
import { Badge, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Role, User } from '../../api/contract';
import { useDashboardApi, useSession } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { PagedTable } from '../../components/PagedTable';
import { ShownOnce } from '../../components/ShownOnce';
import { formatDateTime } from '../../lib/format';

const ROLES: { value: Role; label: string }[] = [
  { value: 'owner', label: 'Owner: everything, users too' },
  { value: 'admin', label: 'Admin: everything but users' },
  { value: 'viewer', label: 'Viewer: reads only' },
];
const USERS_KEY = ['users'] as const;

/** The organization's users (owners only): invite with a one-time link, change name and role, delete. */
export function UsersTab() {
  const endpoints = useDashboardApi();
  const session = useSession();
  const detail = useDetailParam('user');
  const [inviting, setInviting] = useState(false);
  const [users, setUsers] = useState<readonly User[]>([]);
  const selected = users.find((user) => user.id === detail.id);
  return (
    <Stack>
      <Group justify="flex-end">
        <Button onClick={() => setInviting(true)}>Add user</Button>
      </Group>
      <PagedTable<User>
        caption="Users"
        queryKey={USERS_KEY}
        fetchPage={async () => {
          const page = await endpoints.users.list();
          setUsers(page.data);
          return page;
        }}
        rowKey={(user) => user.id}
        onRowClick={(user) => detail.open(user.id)}
        columns={[
          { key: 'email', header: 'Email', render: (user) => user.email },
          { key: 'name', header: 'Name', render: (user) => user.name ?? '—', visibleFrom: 'sm' },
          { key: 'role', header: 'Role', render: (user) => <Badge variant="light">{user.role}</Badge> },
          {
            key: 'lastSignedInAt',
            header: 'Last signed in',
            render: (user) => formatDateTime(user.lastSignedInAt),
            visibleFrom: 'md',
          },
        ]}
      />
      <DetailDrawer opened={Boolean(selected)} onClose={detail.close} title={selected?.email ?? 'User'}>
        {selected && <EditUser user={selected} self={selected.id === session.user.id} onDone={detail.close} />}
      </DetailDrawer>
      <InviteUser opened={inviting} onClose={() => setInviting(false)} />
    </Stack>
  );
}

function EditUser({ user, self, onDone }: { user: User; self: boolean; onDone: () => void }) {
  const endpoints = useDashboardApi();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { name: user.name ?? '', role: user.role } });
  const save = useMutation({
    mutationFn: (values: { name: string; role: Role }) =>
      endpoints.users.update(user.id, { name: values.name.trim() || null, role: values.role }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: USERS_KEY }),
    onError: (error) => applyApiErrors(form, error),
  });
  return (
    <form onSubmit={form.onSubmit((values) => save.mutate(values))}>
      <Stack>
        <TextInput label="Name" {...form.getInputProps('name')} />
        <Select label="Role" data={ROLES} allowDeselect={false} {...form.getInputProps('role')} />
        <FormError error={save.error} form={form} />
        <Group justify="space-between">
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
          <ConfirmButton
            title="Delete this user?"
            message={`${user.email} will be signed out everywhere and can no longer sign in.${self ? ' That is you.' : ''}`}
            confirmLabel="Delete user"
            onConfirm={async () => {
              await endpoints.users.delete(user.id);
              await queryClient.invalidateQueries({ queryKey: USERS_KEY });
              onDone();
            }}
          >
            Delete
          </ConfirmButton>
        </Group>
      </Stack>
    </form>
  );
}

function InviteUser({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const endpoints = useDashboardApi();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { email: '', name: '', role: 'viewer' as Role } });
  const create = useMutation({
    mutationFn: (values: { email: string; name: string; role: Role }) =>
      endpoints.users.create({
        email: values.email.trim(),
        role: values.role,
        ...(values.name.trim() ? { name: values.name.trim() } : {}),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: USERS_KEY }),
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    create.reset();
    form.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a user">
      {create.isSuccess ? (
        <ShownOnce
          explanation={
            <Text size="sm">
              Send {create.data.user.email} this sign-in link. It works once, for 24 hours, and is not shown again.
            </Text>
          }
          value={create.data.signInLink}
          copyLabel="Copy link"
          onDone={close}
        />
      ) : (
        <form onSubmit={form.onSubmit((values) => create.mutate(values))}>
          <Stack>
            <TextInput label="Email" type="email" required {...form.getInputProps('email')} />
            <TextInput label="Name" {...form.getInputProps('name')} />
            <Select label="Role" data={ROLES} allowDeselect={false} {...form.getInputProps('role')} />
            <FormError error={create.error} form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Add user
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
