import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createTheme, MantineProvider, Notification, type CSSVariablesResolver } from '@mantine/core';
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
  components: {
    // Mantine's close button is an icon without a name: every notification's gets one (axe: button-name).
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});
// Mantine's "dimmed" text (gray.6) is 3.3:1 on white, below WCAG AA's 4.5:1; gray.7 is well above it. Likewise its
// error colour (red.6, the validation messages under fields and an invalid input's text) is 3.3:1; red.9 is 5:1.
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {},
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
