/**
 * The dashboard's own endpoints (session, users, API keys) as the dashboard contract states them
 * (docs/dashboard.md#the-api-module). They answer only to a signed-in session and are not in the OpenAPI document
 * this checkout's @patron/client is generated from, so their shapes are written here by hand: this file is the one
 * place to switch to the generated types (`Schemas['Session']`, `api.POST('/session', …)`) once the document has
 * them, after which it can go.
 */
import { PatronError } from '@patron/client/browser';

export type Role = 'owner' | 'admin' | 'viewer';

export interface User {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: Role;
  hasPassword: boolean;
  createdAt: string;
  lastSignedInAt: string | null;
}

export interface Session {
  user: User;
  organization: { id: string; name: string };
  /** The permissions the user has (a viewer: every `…:read`). */
  permissions: string[];
  /** The permission names an API key can be given (the key catalog). */
  grantablePermissions: string[];
  /** Sent as X-CSRF-Token with every write; kept in memory only. */
  csrfToken: string;
  expiresAt: string;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  permissions: string[];
  createdAt: string;
  revokedAt: string | null;
}

/** A key as created: the secret is in this answer only. */
export type CreatedApiKey = ApiKey & { key: string };

export type SignIn = { email: string; password: string } | { signInToken: string };

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * One call of a dashboard endpoint: same origin, cookies sent, X-CSRF-Token on writes; any answer but 2xx throws the
 * same PatronError the typed client throws (status, code, message, details, requestId).
 */
async function call<T>(method: string, path: string, init: { body?: unknown; csrfToken?: string } = {}): Promise<T> {
  const headers = new Headers({ accept: 'application/json' });
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  if (!SAFE_METHODS.has(method) && init.csrfToken) headers.set('x-csrf-token', init.csrfToken);
  const response = await fetch(`/v1${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON (a proxy's page): PatronError keeps the start of the text
  }
  if (!response.ok) throw PatronError.fromResponse(response, body, method);
  return body as T;
}

/** POST /v1/session: signs in with email and password, or with a one-time link's token. */
export const signIn = (credentials: SignIn) => call<Session>('POST', '/session', { body: credentials });

/** GET /v1/session: the session of this browser's cookie, or null when there is none (401). */
export async function getSession(): Promise<Session | null> {
  try {
    return await call<Session>('GET', '/session');
  } catch (error) {
    if (error instanceof PatronError && error.status === 401) return null;
    throw error;
  }
}

/** DELETE /v1/session: ends the session everywhere its cookie was copied. */
export const signOut = (csrfToken: string) => call<void>('DELETE', '/session', { csrfToken });

/** PUT /v1/session/password. */
export const changePassword = (csrfToken: string, body: { currentPassword?: string; newPassword: string }) =>
  call<void>('PUT', '/session/password', { csrfToken, body });

/** The calls that need the session's CSRF token, bound to it (what useDashboardApi() gives a page). */
export function dashboardEndpoints(csrfToken: string) {
  return {
    users: {
      list: () => call<Page<User>>('GET', '/users'),
      create: (body: { email: string; name?: string; role: Role }) =>
        call<{ user: User; signInLink: string }>('POST', '/users', { csrfToken, body }),
      update: (id: string, body: { name?: string | null; role?: Role }) =>
        call<User>('PATCH', `/users/${encodeURIComponent(id)}`, { csrfToken, body }),
      delete: (id: string) => call<void>('DELETE', `/users/${encodeURIComponent(id)}`, { csrfToken }),
    },
    keys: {
      list: () => call<Page<ApiKey>>('GET', '/keys'),
      create: (body: { name?: string; permissions: string[] }) =>
        call<CreatedApiKey>('POST', '/keys', { csrfToken, body }),
      revoke: (id: string) => call<ApiKey>('POST', `/keys/${encodeURIComponent(id)}/revoke`, { csrfToken }),
    },
    changePassword: (body: { currentPassword?: string; newPassword: string }) => changePassword(csrfToken, body),
  };
}
export type DashboardEndpoints = ReturnType<typeof dashboardEndpoints>;
