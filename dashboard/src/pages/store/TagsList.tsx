import { Badge, Group, Text } from '@mantine/core';

/** A record's tags as badges (text only), at most `max` then "+n". */
export function TagsList({ tags, max = 4 }: { tags: readonly string[]; max?: number }) {
  if (tags.length === 0)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Group gap={4}>
      {tags.slice(0, max).map((tag) => (
        <Badge key={tag} variant="light" size="sm" tt="none">
          {tag}
        </Badge>
      ))}
      {tags.length > max && (
        <Text size="xs" c="dimmed">
          +{tags.length - max}
        </Text>
      )}
    </Group>
  );
}
