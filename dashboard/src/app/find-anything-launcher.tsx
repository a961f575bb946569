import { lazy, Suspense, useState } from 'react';
import { ActionIcon, Button, Kbd } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { createSpotlight, useSpotlight } from '@mantine/spotlight';
import { SearchIcon } from './icons';

/**
 * The palette's store (its open state and which result is selected), shared by the shell's launcher and the palette
 * itself, which is a chunk of its own loaded the first time it opens (docs/dashboard.md#size).
 */
export const [paletteStore, palette] = createSpotlight();

const FindAnything = lazy(() => import('./FindAnything'));

/** The shortcut as this device writes it: ⌘ K on Apple's systems, Ctrl K elsewhere. */
const isApple = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/**
 * The header's button that opens the palette: "Search" with its shortcut on wide screens, an icon on phones (where a
 * keyboard shortcut is rarely at hand).
 */
export function FindAnythingButton() {
  const shortcut = isApple ? 'Meta+K' : 'Control+K';
  return (
    <>
      <Button
        variant="default"
        size="xs"
        visibleFrom="sm"
        leftSection={<SearchIcon />}
        rightSection={<Kbd size="xs">{isApple ? '⌘ K' : 'Ctrl K'}</Kbd>}
        onClick={palette.open}
        aria-keyshortcuts={shortcut}
        data-testid="find-anything-button"
      >
        Search
      </Button>
      <ActionIcon
        variant="default"
        size="lg"
        hiddenFrom="sm"
        onClick={palette.open}
        aria-label="Search"
        aria-keyshortcuts={shortcut}
        data-testid="find-anything-icon"
      >
        <SearchIcon />
      </ActionIcon>
    </>
  );
}

/**
 * Ctrl+K and ⌘K open the palette on every system (a Mac keyboard on Linux, a PC keyboard on a Mac), also while a
 * field has focus: neither is a text-editing key in a browser's fields. The palette is rendered from its first
 * opening on.
 */
export function FindAnythingHost() {
  const { opened } = useSpotlight(paletteStore);
  const [wanted, setWanted] = useState(false);
  if (opened && !wanted) setWanted(true);
  useHotkeys(
    [
      ['ctrl+K', palette.open],
      ['meta+K', palette.open],
    ],
    [],
  );
  return wanted ? (
    <Suspense fallback={null}>
      <FindAnything />
    </Suspense>
  ) : null;
}
