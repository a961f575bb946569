import type { ReactNode } from 'react';
import { Center, Loader } from '@mantine/core';
import { Navigate, useLocation } from 'react-router';
import { SignedInProvider, useSessionQuery } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';
import { FormatProvider } from '../lib/format-context';

/** The route guard: without a session, the sign-in page (which comes back here after signing in). */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const session = useSessionQuery();
  if (session.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading the session" />
      </Center>
    );
  }
  if (session.isError) {
    return (
      <Center h="100vh" p="md">
        <ApiErrorAlert error={session.error} onRetry={() => void session.refetch()} />
      </Center>
    );
  }
  if (session.data === null) {
    const from = location.pathname + location.search;
    return <Navigate to="/sign-in" replace state={{ from }} />;
  }
  return (
    <SignedInProvider session={session.data}>
      <FormatProvider>{children}</FormatProvider>
    </SignedInProvider>
  );
}
