import { Anchor, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { RequestLinkForm } from './account/RequestLinkForm';

/**
 * "Forgot password?" (docs/dashboard.md#passwords-and-sign-in-links): the email to mail a one-time sign-in link to.
 * The link signs in once, within an hour, and leads to choosing a new password.
 */
export function ForgotPasswordPage() {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={400}>
        <Stack>
          <Title order={1} size="h2">
            Forgot your password?
          </Title>
          <Text size="sm">
            Enter the email you sign in with. If it has an account, we mail it a link that signs you in once, within an
            hour; you then choose a new password.
          </Text>
          <RequestLinkForm />
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    </Center>
  );
}
