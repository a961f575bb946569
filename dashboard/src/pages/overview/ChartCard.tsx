import type { ReactNode } from 'react';
import { Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';

interface ChartCardProps {
  title: string;
  /** The figure for the whole range, beside the title. */
  figure?: ReactNode;
  /** A line under the title: what the numbers are. */
  note?: string;
  loading: boolean;
  error: unknown;
  onRetry: () => void;
  children: ReactNode;
}

/** One chart of the overview with its loading and error states. */
export function ChartCard({ title, figure, note, loading, error, onRetry, children }: ChartCardProps) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-label={title}>
      <Stack gap="xs">
        <Group justify="space-between" align="baseline" wrap="nowrap">
          <Title order={2} size="h5">
            {title}
          </Title>
          {!loading && !error && figure !== undefined && (
            <Text fw={700} size="lg">
              {figure}
            </Text>
          )}
        </Group>
        {note && (
          <Text size="xs" c="dimmed">
            {note}
          </Text>
        )}
        {error ? (
          <ApiErrorAlert error={error} onRetry={onRetry} />
        ) : loading ? (
          <Skeleton h={220} aria-label={`Loading ${title.toLowerCase()}`} />
        ) : (
          children
        )}
      </Stack>
    </Card>
  );
}
