import { useState } from 'react';
import { Alert, Anchor, Button, Group, Paper, PasswordInput, Stack, Table, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PatronError } from '@patron/client/browser';
import { Link, useLocation } from 'react-router';
import { getSession } from '../../api/contract';
import { SESSION_QUERY_KEY, useDashboardApi, useSession } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { applyApiErrors } from '../../components/FormErrors';
import { PageHeader } from '../../components/PageHeader';

const ROLE_NAMES = { owner: 'Owner', admin: 'Admin', viewer: 'Viewer' } as const;

/**
 * The signed-in user's account (docs/dashboard.md#passwords-and-sign-in-links): who they are, and their password. A
 * user without one, or just signed in with a one-time link, chooses one without the current password; otherwise the
 * current one is needed to change it. The API's field errors (a password too easy to guess) show under their field.
 */
export function AccountPage() {
  const session = useSession();
  const location = useLocation();
  const signedInWithLink = (location.state as { signedInWithLink?: boolean } | null)?.signedInWithLink === true;
  const { user } = session;

  return (
    <>
      <PageHeader title="Your account" description="Who you are signed in as, and your password." />
      <Stack gap="lg" maw={560}>
        <Paper withBorder p="md" radius="md">
          <Table variant="vertical" layout="fixed" withRowBorders={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={120}>Email</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{user.email}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Td>{user.name ?? '—'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Role</Table.Th>
                <Table.Td>
                  {ROLE_NAMES[user.role]} of {session.organization.name}
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Paper>
        <PasswordForm signedInWithLink={signedInWithLink} />
      </Stack>
    </>
  );
}

function PasswordForm({ signedInWithLink }: { signedInWithLink: boolean }) {
  const session = useSession();
  const endpoints = useDashboardApi();
  const queryClient = useQueryClient();
  // Choosing (no current password asked): a user without one, or a session just signed in with a link.
  const choosing = !session.user.hasPassword || session.passwordResetUntil !== null;
  const [saved, setSaved] = useState<'set' | 'changed' | null>(null);

  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
    validate: {
      currentPassword: (value) => (choosing || value.length > 0 ? null : 'Enter your current password.'),
      newPassword: (value) => (value.length > 0 ? null : 'Enter a new password.'),
      confirmPassword: (value, values) =>
        value === values.newPassword ? null : 'The two passwords differ: type the new one again.',
    },
  });
  const mutation = useMutation({
    mutationFn: (values: { currentPassword: string; newPassword: string }) =>
      endpoints.changePassword({
        newPassword: values.newPassword,
        ...(choosing ? {} : { currentPassword: values.currentPassword }),
      }),
    onSuccess: async () => {
      setSaved(choosing ? 'set' : 'changed');
      form.reset();
      // The session now says the user has a password, and that this session can no longer skip the current one.
      queryClient.setQueryData(SESSION_QUERY_KEY, await getSession());
    },
    onError: (error) => {
      applyApiErrors(form, error);
      // A wrong current password is 403 without details: it belongs beside that field.
      if (error instanceof PatronError && error.status === 403) form.setFieldError('currentPassword', error.message);
    },
  });
  const unplaced =
    mutation.error instanceof PatronError && (mutation.error.status === 403 || mutation.error.details.length > 0)
      ? null
      : mutation.error;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="password-heading">
      <Stack>
        <Title order={2} size="h4" id="password-heading">
          {choosing ? 'Choose a password' : 'Change your password'}
        </Title>
        {saved && (
          <Alert color="green" title={saved === 'set' ? 'Password saved' : 'Password changed'} role="status">
            <Stack gap="xs">
              <Text size="sm">
                From now on you sign in with your email and this password. Any other place you were signed in has been
                signed out.
              </Text>
              {signedInWithLink && (
                <Anchor component={Link} to="/overview" size="sm" c="dark.8" fw={600} underline="always">
                  Continue to the overview
                </Anchor>
              )}
            </Stack>
          </Alert>
        )}
        {choosing && !saved && (
          <Text size="sm">
            {signedInWithLink
              ? 'You signed in with a one-time link, which works only once. Choose a password now so that you can sign in again.'
              : 'You have no password yet: choose one so that you can sign in without a link.'}
          </Text>
        )}
        <form
          onSubmit={form.onSubmit((values) => {
            setSaved(null);
            mutation.mutate(values);
          })}
          noValidate
        >
          <Stack>
            {!choosing && (
              <PasswordInput
                label="Current password"
                autoComplete="current-password"
                required
                key={form.key('currentPassword')}
                {...form.getInputProps('currentPassword')}
              />
            )}
            <PasswordInput
              label="New password"
              description="10 characters or more, hard to guess: a few unrelated words work well."
              autoComplete="new-password"
              required
              key={form.key('newPassword')}
              {...form.getInputProps('newPassword')}
            />
            <PasswordInput
              label="New password again"
              autoComplete="new-password"
              required
              key={form.key('confirmPassword')}
              {...form.getInputProps('confirmPassword')}
            />
            {unplaced !== null && unplaced !== undefined && (
              <ApiErrorAlert error={unplaced} title="Could not save the password" showDetails={false} />
            )}
            <Group justify="space-between">
              {signedInWithLink && !saved ? (
                <Anchor component={Link} to="/overview" size="sm">
                  Not now
                </Anchor>
              ) : (
                <span />
              )}
              <Button type="submit" loading={mutation.isPending}>
                {choosing ? 'Save password' : 'Change password'}
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}
