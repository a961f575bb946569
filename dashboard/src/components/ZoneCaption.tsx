import { Text } from '@mantine/core';
import { useFormat } from '../lib/format-context';

/** "Times in Europe/Berlin": said once beside every table, drawer or chart that shows times. */
export function ZoneCaption() {
  const format = useFormat();
  return (
    <Text size="xs" c="dimmed" data-testid="zone-caption">
      {format.zoneLabel}
    </Text>
  );
}
