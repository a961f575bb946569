import { Alert, Anchor, Center, Stack, Text, Title } from '@mantine/core';
import { Link, isRouteErrorResponse, useRouteError } from 'react-router';

export function NotFoundPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Page not found
      </Title>
      <Text>
        Nothing is at this address. Go to the{' '}
        <Anchor component={Link} to="/overview">
          overview
        </Anchor>
        .
      </Text>
    </Stack>
  );
}

/** What a route shows when its page failed to render or to load (e.g. a chunk of an older build). */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <Center p="md" mih="60vh">
      <Alert color="red" title="This page could not be shown" role="alert" maw={560}>
        <Text size="sm">{message}</Text>
        <Text size="sm" mt="xs">
          Reload the page; if the dashboard was updated meanwhile, that loads the new version.
        </Text>
      </Alert>
    </Center>
  );
}
