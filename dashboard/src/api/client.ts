/**
 * The typed client of the API (@patron/client) as the dashboard uses it: same origin, the session cookie instead of a
 * key, the session's CSRF token on every write (docs/dashboard.md#the-api-module). Every page reaches /v1 through the
 * client this module makes (useApi()), never with a fetch of its own.
 */
import './random-uuid';
import { createPatronClient, type PatronClient } from '@patron/client/browser';

/**
 * A client of the signed-in session. Before signing in there is no token yet: the sign-in and session reads need
 * none (they change nothing the cookie could be abused for), so they use a client made with an empty one.
 */
export function createDashboardClient(csrfToken: string): PatronClient {
  return createPatronClient({ baseUrl: window.location.origin, session: { csrfToken } });
}
