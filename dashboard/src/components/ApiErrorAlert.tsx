import { Alert, Button, Group, List, Text } from '@mantine/core';
import { PatronError } from '@patron/client/browser';

/** A person-readable title for an error of the API or the network. */
export function errorTitle(error: unknown): string {
  if (error instanceof PatronError) {
    if (error.status === 403) return 'Not allowed';
    if (error.status === 404) return 'Not found';
    if (error.status === 409) return 'Conflict';
    if (error.status === 429) return 'Too many attempts';
    if (error.status >= 500) return 'The server could not answer';
    return 'The request was refused';
  }
  if (error instanceof TypeError) return 'The server could not be reached';
  return 'Something went wrong';
}

export interface ApiErrorAlertProps {
  /** What a query or mutation threw: a PatronError (the API's envelope), a network TypeError, anything else. */
  error: unknown;
  /** Overrides the title chosen from the status. */
  title?: string;
  /** Shows a Retry button. */
  onRetry?: () => void;
  /** Whether to list details[] (path: message); forms that show them per field pass false. Default true. */
  showDetails?: boolean;
}

/**
 * Shows an error of the API from its envelope `{ error: { code, message, details } }`: the message, the details and
 * the request id to quote. Everything is rendered as text.
 */
export function ApiErrorAlert({ error, title, onRetry, showDetails = true }: ApiErrorAlertProps) {
  const patron = error instanceof PatronError ? error : undefined;
  const message =
    patron?.message ??
    (error instanceof TypeError
      ? 'Check the connection and try again.'
      : error instanceof Error
        ? error.message
        : String(error));
  return (
    <Alert color="red" title={title ?? errorTitle(error)} role="alert">
      <Text size="sm">{message}</Text>
      {showDetails && patron && patron.details.length > 0 && (
        <List size="sm" mt="xs">
          {patron.details.map((detail, index) => (
            <List.Item key={index}>
              <Text span size="sm" ff="monospace">
                {detail.path}
              </Text>{' '}
              {detail.message}
            </List.Item>
          ))}
        </List>
      )}
      {(patron?.requestId || onRetry) && (
        <Group justify="space-between" mt="xs" gap="xs">
          {patron?.requestId ? (
            // Not "dimmed": its grey on the alert's red tint is below AA contrast.
            <Text size="xs" c="gray.8">
              {patron.code} · request {patron.requestId}
            </Text>
          ) : (
            <span />
          )}
          {onRetry && (
            <Button size="xs" variant="light" color="red" onClick={onRetry}>
              Retry
            </Button>
          )}
        </Group>
      )}
    </Alert>
  );
}
