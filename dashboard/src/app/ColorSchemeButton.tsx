import { lazy, Suspense } from 'react';
import { ActionIcon, useMantineColorScheme } from '@mantine/core';
import { AutoSchemeIcon, MoonIcon, SunIcon } from './icons';

export const COLOR_SCHEMES = [
  { value: 'auto', label: 'As the system', Icon: AutoSchemeIcon },
  { value: 'light', label: 'Light', Icon: SunIcon },
  { value: 'dark', label: 'Dark', Icon: MoonIcon },
] as const;

// The menu brings Mantine's popover (positioning included), which most pages load anyway for their selects: it is a
// chunk of its own, loaded right after the shell, so the first load does not wait for it (docs/dashboard.md#size).
const ColorSchemeMenu = lazy(() => import('./ColorSchemeMenu'));

export interface ColorSchemeButtonProps {
  /** Where its popover opens: below it in the header, above it at the foot of the phone's navigation. */
  position?: 'bottom-end' | 'top-start';
  testId?: string;
}

/** The theme switch; until its menu has loaded, the same button, inert. */
export function ColorSchemeButton(props: ColorSchemeButtonProps) {
  const { colorScheme } = useMantineColorScheme();
  const current = COLOR_SCHEMES.find((choice) => choice.value === colorScheme) ?? COLOR_SCHEMES[0];
  return (
    <Suspense
      fallback={
        <ActionIcon variant="default" size="lg" aria-label={`Theme: ${current.label.toLowerCase()}`} disabled>
          <current.Icon />
        </ActionIcon>
      }
    >
      <ColorSchemeMenu {...props} />
    </Suspense>
  );
}
