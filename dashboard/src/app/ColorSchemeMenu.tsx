import {
  ActionIcon,
  Group,
  Popover,
  Radio,
  Stack,
  useMantineColorScheme,
  type MantineColorScheme,
} from '@mantine/core';
import { COLOR_SCHEMES, type ColorSchemeButtonProps } from './ColorSchemeButton';

/**
 * The theme switch (docs/dashboard.md#themes): as the system says (the default), light or dark, as a group of radio
 * buttons in a popover (arrow keys move between them). The choice is kept in this browser's localStorage by Mantine's
 * color scheme manager (main.tsx).
 */
export default function ColorSchemeMenu({
  position = 'bottom-end',
  testId = 'color-scheme-button',
}: ColorSchemeButtonProps) {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const current = COLOR_SCHEMES.find((choice) => choice.value === colorScheme) ?? COLOR_SCHEMES[0];
  return (
    <Popover position={position} shadow="md" trapFocus returnFocus>
      <Popover.Target>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={`Theme: ${current.label.toLowerCase()}`}
          data-testid={testId}
        >
          <current.Icon />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>
        <Radio.Group
          label="Theme"
          value={colorScheme}
          onChange={(value) => setColorScheme(value as MantineColorScheme)}
        >
          <Stack gap="xs" mt="xs">
            {COLOR_SCHEMES.map((choice) => (
              <Radio
                key={choice.value}
                value={choice.value}
                label={
                  <Group gap={6} wrap="nowrap" component="span">
                    <choice.Icon />
                    {choice.label}
                  </Group>
                }
              />
            ))}
          </Stack>
        </Radio.Group>
      </Popover.Dropdown>
    </Popover>
  );
}
