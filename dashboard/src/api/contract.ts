/**
 * The dashboard's own endpoints (session, users, API keys; docs/api.md#dashboard-sessions), through the typed client
 * like every other call: their shapes are the API document's. They answer only to a signed-in session.
 */
import {
  PatronError,
  type PatronClient,
  type RequestBodyOf,
  type ResponseDataOf,
  type Schemas,
} from '@patron/client/browser';
import { createDashboardClient } from './client';

export type User = Schemas['User'];
export type Role = User['role'];
export type ApiKey = Schemas['ApiKey'];
/** The signed-in user, organization, permissions and CSRF token (kept in memory only). */
export type Session = ResponseDataOf<'/session', 'get'>;
/** A key as created: the secret is in this answer only. */
export type CreatedApiKey = ResponseDataOf<'/keys', 'post'>;
export type SignIn = RequestBodyOf<'/session', 'post'>;

/**
 * One page of users or keys. Every one is on one page (nextCursor is always null), which the generated type drops
 * along with the null-only property, so the list calls put it back for the paged table.
 */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Before a session exists there is no CSRF token; signing in and reading the session need none. */
const anonymous = () => createDashboardClient('');

/** POST /v1/session: signs in with email and password, or with a one-time link's token. */
export const signIn = (credentials: SignIn): Promise<Session> => anonymous().POST('/session', { body: credentials });

/**
 * POST /v1/session/password-reset ("forgot password", docs/api.md#forgotten-passwords): mails a one-time sign-in link,
 * valid 1 hour, if a user has this email. The answer is the same whether one does or not.
 */
export const requestPasswordReset = (email: string): Promise<{ message: string }> =>
  anonymous().POST('/session/password-reset', { body: { email } });

/** GET /v1/session: the session of this browser's cookie, or null when there is none (401). */
export async function getSession(): Promise<Session | null> {
  try {
    return await anonymous().GET('/session');
  } catch (error) {
    if (error instanceof PatronError && error.status === 401) return null;
    throw error;
  }
}

/**
 * PATCH /v1/session: switches the session into test mode (every page then reads and writes the organization's test
 * data) or back to live data. Kept with the session on the server, so it survives a reload.
 */
export const setTestMode = (csrfToken: string, testMode: boolean): Promise<Session> =>
  createDashboardClient(csrfToken).PATCH('/session', { body: { testMode } });

/**
 * PATCH /v1/session `{ locale }`: the signed-in user's own locale (docs/api.md#users-and-roles), stored with the user,
 * which every format of the dashboard reads (lib/format-context.tsx).
 */
export const setLocale = (csrfToken: string, locale: Session['user']['locale']): Promise<Session> =>
  createDashboardClient(csrfToken).PATCH('/session', { body: { locale } });

/** DELETE /v1/session: ends the session everywhere its cookie was copied. */
export const signOut = async (csrfToken: string): Promise<void> => {
  await createDashboardClient(csrfToken).DELETE('/session');
};

/** The calls of the dashboard's own endpoints, bound to the session's client (what useDashboardApi() gives a page). */
export function dashboardEndpoints(api: PatronClient) {
  const id = (value: string) => ({ params: { path: { id: value } } });
  return {
    users: {
      list: async (): Promise<Page<User>> => ({ ...(await api.GET('/users')), nextCursor: null }),
      create: (body: RequestBodyOf<'/users', 'post'>) => api.POST('/users', { body }),
      update: (userId: string, body: RequestBodyOf<'/users/{id}', 'patch'>) =>
        api.PATCH('/users/{id}', { ...id(userId), body }),
      delete: async (userId: string): Promise<void> => {
        await api.DELETE('/users/{id}', id(userId));
      },
    },
    keys: {
      list: async (): Promise<Page<ApiKey>> => ({ ...(await api.GET('/keys')), nextCursor: null }),
      create: (body: RequestBodyOf<'/keys', 'post'>): Promise<CreatedApiKey> => api.POST('/keys', { body }),
      revoke: (keyId: string) => api.POST('/keys/{id}/revoke', id(keyId)),
    },
    changePassword: async (body: RequestBodyOf<'/session/password', 'put'>): Promise<void> => {
      await api.PUT('/session/password', { body });
    },
  };
}
export type DashboardEndpoints = ReturnType<typeof dashboardEndpoints>;
