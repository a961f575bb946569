/**
 * The signed-in session as the pages see it: useSession() (the user, organization and permissions), useApi() (the
 * typed client) and useDashboardApi() (users, keys, password), all available inside the app layout, where the route
 * guard has made sure there is a session.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { PatronError, type PatronClient } from '@patron/client/browser';
import { createDashboardClient } from './client';
import { dashboardEndpoints, getSession, setTestMode, type DashboardEndpoints, type Session } from './contract';

export const SESSION_QUERY_KEY = ['session'] as const;

/** The session of this browser: undefined while loading, null when signed out. */
export function useSessionQuery() {
  return useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: getSession,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/** Any answer of 401 means the session ended (expired, signed out elsewhere): the guard then shows the sign-in page. */
export function forgetSessionOn401(queryClient: QueryClient, error: unknown): void {
  if (error instanceof PatronError && error.status === 401) queryClient.setQueryData(SESSION_QUERY_KEY, null);
}

interface SignedIn {
  session: Session;
  api: PatronClient;
  endpoints: DashboardEndpoints;
}
const SignedInContext = createContext<SignedIn | null>(null);

export function SignedInProvider({ session, children }: { session: Session; children: ReactNode }) {
  const value = useMemo(() => {
    const api = createDashboardClient(session.csrfToken);
    return { session, api, endpoints: dashboardEndpoints(api) };
  }, [session]);
  return <SignedInContext.Provider value={value}>{children}</SignedInContext.Provider>;
}

function useSignedIn(): SignedIn {
  const value = useContext(SignedInContext);
  if (!value) throw new Error('Used outside the signed-in layout: wrap the page in the route guard.');
  return value;
}

/** The signed-in user, organization and permissions. */
export const useSession = (): Session => useSignedIn().session;
/** The typed client of /v1 (every path, parameter, body and answer typed from the API document). */
export const useApi = (): PatronClient => useSignedIn().api;
/** The dashboard-only endpoints (users, API keys, password): see api/contract.ts. */
export const useDashboardApi = (): DashboardEndpoints => useSignedIn().endpoints;

/** Whether the session may do `permission` (e.g. 'organization:write'). */
export function useCan(permission: string): boolean {
  const { permissions } = useSession();
  return permissions.includes('all') || permissions.includes(permission);
}

/** Every cached answer but the session's own: what a switch of mode empties. */
const notTheSession = {
  predicate: (query: { queryKey: readonly unknown[] }) => query.queryKey[0] !== SESSION_QUERY_KEY[0],
};

/**
 * Switches the session between live and test data (docs/api.md#test-mode). Every cached answer is of the mode it was
 * read in, so once the server has switched, reads in flight are cancelled and every answer is dropped (the pages on
 * screen read again, in the new mode): no page shows one mode's records in the other. The session's own entry is
 * replaced, not dropped, so the route guard watching it sees the new mode at once.
 */
export function useSwitchTestMode(): (testMode: boolean) => Promise<void> {
  const queryClient = useQueryClient();
  const { session } = useSignedIn();
  return async (testMode) => {
    const next = await setTestMode(session.csrfToken, testMode);
    await queryClient.cancelQueries(notTheSession);
    queryClient.setQueryData(SESSION_QUERY_KEY, next);
    await queryClient.resetQueries(notTheSession);
  };
}

/** Puts a session in the cache (after signing in) or removes it (after signing out). */
export function useSetSession(): (session: Session | null) => void {
  const queryClient = useQueryClient();
  return (session) => {
    if (session === null) queryClient.clear();
    queryClient.setQueryData(SESSION_QUERY_KEY, session);
  };
}
