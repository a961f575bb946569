import { useEffect, useRef, useState } from 'react';
import { Button, Center, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { signIn, type SignIn } from '../api/contract';
import { useSetSession } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';

/** A one-time sign-in link: /dashboard/sign-in#token=… (the token never reaches the server in a URL). */
function linkTokenOfUrl(): string | null {
  const match = /^#token=([^&]+)$/.exec(window.location.hash);
  return match ? decodeURIComponent(match[1]!) : null;
}

export function SignInPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const setSession = useSetSession();
  const from = (location.state as { from?: string } | null)?.from ?? '/overview';
  const [linkToken] = useState(linkTokenOfUrl);

  const mutation = useMutation({
    mutationFn: (credentials: SignIn) => signIn(credentials),
    onSuccess: (session) => {
      setSession(session);
      void navigate(from.startsWith('/sign-in') ? '/overview' : from, { replace: true });
    },
  });
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '' },
    validate: {
      email: (value) => (/^\S+@\S+$/.test(value.trim()) ? null : 'Enter your email address.'),
      password: (value) => (value.length > 0 ? null : 'Enter your password.'),
    },
  });

  // Once per page load, even when React runs effects twice: a link's token works once.
  const started = useRef(false);
  const { mutate } = mutation;
  useEffect(() => {
    if (started.current || !linkToken) return;
    started.current = true;
    // Out of the address bar (and so of the history and any bookmark) before it is used.
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    mutate({ signInToken: linkToken });
  }, [linkToken, mutate]);

  const usingLink = linkToken !== null;
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={400}>
        <Stack>
          <Title order={1} size="h2">
            Sign in to Patron
          </Title>
          {usingLink && mutation.isPending && (
            <Stack align="center" gap="xs" py="md" aria-live="polite">
              <Loader size="sm" aria-hidden />
              <Text size="sm">Signing in with your link…</Text>
            </Stack>
          )}
          {mutation.isError && (
            <ApiErrorAlert
              error={mutation.error}
              title={usingLink ? 'This sign-in link does not work' : 'Could not sign in'}
            />
          )}
          {usingLink && mutation.isError && (
            <Text size="sm" c="dimmed">
              A link works once and for 24 hours. Ask an owner of your organization for a new one, or sign in with your
              email and password below.
            </Text>
          )}
          {!(usingLink && (mutation.isPending || mutation.isSuccess)) && (
            <form
              onSubmit={form.onSubmit((values) =>
                mutation.mutate({ email: values.email.trim(), password: values.password }),
              )}
              noValidate
            >
              <Stack>
                <TextInput
                  label="Email"
                  type="email"
                  autoComplete="username"
                  required
                  key={form.key('email')}
                  {...form.getInputProps('email')}
                />
                <PasswordInput
                  label="Password"
                  autoComplete="current-password"
                  required
                  key={form.key('password')}
                  {...form.getInputProps('password')}
                />
                <Button type="submit" loading={mutation.isPending} fullWidth>
                  Sign in
                </Button>
              </Stack>
            </form>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
