import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/spotlight/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createTheme, localStorageColorSchemeManager, MantineProvider, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { forgetSessionOn401 } from './api/session';
import { router } from './app/router';

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error) => forgetSessionOn401(queryClient, error) }),
  mutationCache: new MutationCache({ onError: (error) => forgetSessionOn401(queryClient, error) }),
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // The client already retries 429 and 503 after Retry-After; other failures are shown, with a Retry button.
      retry: false,
      refetchOnWindowFocus: false,
    },
  },
});

// Mantine's default blue is below WCAG AA contrast for small white text; a darker shade is the primary.
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 7,
  // Whoever asks their system for less motion gets drawers and dialogs without their transitions.
  respectReducedMotion: true,
  // Plain objects rather than Component.extend(): extending would import every one of these components into the shell
  // bundle, where most are used only by pages loaded later.
  components: {
    // Mantine's close and clear buttons are icons without a name: every one gets a name (axe: button-name), so a
    // screen reader says what it does.
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Alert: { defaultProps: { closeButtonLabel: 'Dismiss' } },
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Select: { defaultProps: { clearButtonProps: { 'aria-label': 'Clear' } } },
    MultiSelect: { defaultProps: { clearButtonProps: { 'aria-label': 'Clear all' } } },
    TagsInput: { defaultProps: { clearButtonProps: { 'aria-label': 'Clear all' } } },
    FileInput: { defaultProps: { clearButtonProps: { 'aria-label': 'Remove the file' } } },
  },
});

// Mantine's "dimmed" text (gray.6) is 3.3:1 on white, below WCAG AA's 4.5:1; gray.7 is well above it. Likewise its
// error colour (red.6, the validation messages under fields and an invalid input's text) is 3.3:1; red.9 is 5:1.
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    // A placeholder drawn as text (a file input's "Choose a file") is gray.5, 2.1:1; this grey is 5:1 on white.
    '--mantine-color-placeholder': '#687076',
    // The "light" variant (alerts, badges) writes shade 9 on shade 1, which for these colours is 2.7:1 (yellow) to
    // 4.3:1 (teal): darker text of the same hue is 5:1 or more.
    '--mantine-color-green-light-color': '#1b6b2e',
    '--mantine-color-teal-light-color': '#066649',
    '--mantine-color-yellow-light-color': '#8a4b00',
    '--mantine-color-orange-light-color': '#a33a0a',
    '--mantine-color-lime-light-color': '#466f0a',
    // A filled red button (a confirmation that deletes) writes white on red.7, 3.8:1; red.9 is 5.4:1.
    '--mantine-color-red-filled': 'var(--mantine-color-red-9)',
    '--mantine-color-red-filled-hover': '#a51d1d',
  },
  // The dark theme's "dimmed" text (dark.2) is 4.0:1 on the page and 3.5:1 on a card; a lighter grey is 5.7:1 on a
  // card and 4.7:1 on a hovered row. Placeholders (a file input's "Choose a file") get the same.
  dark: {
    '--mantine-color-dimmed': '#a8a8a8',
    // Errors (an alert's text, a field's message) in red.6 are 3.4:1 on the dark page; red.4 is 6.6:1.
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--mantine-color-placeholder': '#a8a8a8',
  },
});

// The theme follows the system (prefers-color-scheme) until the header's switch picks light or dark, which this browser
// then remembers (docs/dashboard.md#themes).
const colorSchemeManager = localStorageColorSchemeManager({ key: 'patron-color-scheme' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="auto"
      colorSchemeManager={colorSchemeManager}
    >
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
