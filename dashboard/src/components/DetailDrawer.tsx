import type { ReactNode } from 'react';
import { Box, Drawer } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import { ZoneCaption } from './ZoneCaption';

/**
 * Which record a page shows in its drawer, kept in the URL (`?id=…`) so a detail can be linked to, reloaded and
 * closed with the browser's Back button.
 */
export function useDetailParam(name = 'id') {
  const [params, setParams] = useSearchParams();
  const id = params.get(name);
  const open = (value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set(name, value);
      return next;
    });
  const close = () =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete(name);
      return next;
    });
  return { id, open, close };
}

export interface DetailDrawerProps {
  opened: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  /** Width on wide screens (full width on phones). Default 'lg'. */
  size?: string | number;
}

/** The detail of a record beside its list: from the right on wide screens, the whole screen on phones. */
export function DetailDrawer({ opened, onClose, title, children, size = 'lg' }: DetailDrawerProps) {
  const phone = useMediaQuery('(max-width: 48em)');
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      title={title}
      position="right"
      size={phone ? '100%' : size}
      padding="md"
      // Mantine's close button is an icon without a name.
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {children}
      {/* Every time a drawer shows is in the organization's zone: said once, at its foot. */}
      <Box mt="md">
        <ZoneCaption />
      </Box>
    </Drawer>
  );
}
