import type { ReactNode } from 'react';
import { Group, Stack, Text, Title } from '@mantine/core';

/** A page's heading (the only h1), a line under it, and its controls on the right (below on phones). */
export function PageHeader({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end" mb="lg" gap="md">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        )}
      </Stack>
      {children}
    </Group>
  );
}
