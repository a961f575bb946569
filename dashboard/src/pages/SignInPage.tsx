import { useEffect, useRef, useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Center,
  Divider,
  Group,
  Loader,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { PatronError } from '@patron/client/browser';
import { signIn, type SignIn } from '../api/contract';
import { useSetSession } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';
import { RequestLinkForm } from './account/RequestLinkForm';

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
  const [linkToken, setLinkToken] = useState(linkTokenOfUrl);
  // A link opened in a tab already on this page changes only the fragment: no new page load, so it is listened for.
  useEffect(() => {
    const onHashChange = () => {
      const token = linkTokenOfUrl();
      if (token) setLinkToken(token);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);

  const mutation = useMutation({
    mutationFn: (credentials: SignIn) => signIn(credentials),
    onSuccess: (session, credentials) => {
      setSession(session);
      // A link's sign-in leads to choosing a password when the user has none, or asked for the link because they
      // forgot theirs (docs/dashboard.md#passwords-and-sign-in-links).
      if (credentials.signInToken !== undefined && (!session.user.hasPassword || session.passwordResetUntil !== null)) {
        void navigate('/account', { replace: true, state: { signedInWithLink: true } });
        return;
      }
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

  // Once per token, even when React runs effects twice: a link's token works once.
  const started = useRef<string | null>(null);
  const { mutate } = mutation;
  useEffect(() => {
    if (!linkToken || started.current === linkToken) return;
    started.current = linkToken;
    // Out of the address bar (and so of the history and any bookmark) before it is used.
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    mutate({ signInToken: linkToken });
  }, [linkToken, mutate]);

  const usingLink = linkToken !== null;
  // A used, expired or unknown link (401): a way to a new link instead of a dead end.
  const deadLink =
    usingLink && mutation.isError && mutation.error instanceof PatronError && mutation.error.status === 401;
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
          {deadLink && (
            <Stack data-testid="dead-link">
              <Alert color="yellow" title="This sign-in link has expired or was already used" role="alert">
                <Text size="sm">
                  A link works once: for 24 hours when an owner invites you, for 1 hour when you asked for it. Enter
                  your email and we mail you a new one, or sign in with your password below.
                </Text>
              </Alert>
              <RequestLinkForm submitLabel="Email me a new link" />
              <Divider label="or sign in with your password" labelPosition="center" />
            </Stack>
          )}
          {mutation.isError && !deadLink && (
            <ApiErrorAlert
              error={mutation.error}
              title={usingLink ? 'This sign-in link does not work' : 'Could not sign in'}
            />
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
                <Group justify="center">
                  <Anchor component={Link} to="/forgot-password" size="sm">
                    Forgot password?
                  </Anchor>
                </Group>
              </Stack>
            </form>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
