/**
 * The typed client of the API (@patron/client) as the dashboard uses it: same origin, the session cookie instead of a
 * key, the session's CSRF token on every write (docs/dashboard.md#the-api-module). Every page reaches /v1 through the
 * client this module makes (useApi()), never with a fetch of its own.
 *
 * This is the one place that changes when the client's session mode lands: the body of createDashboardClient then
 * becomes `createPatronClient({ baseUrl: window.location.origin, session: { csrfToken } })` and sessionFetch goes.
 * Until then the client is given an empty key and a fetch that removes the Authorization header it makes of it (the
 * API authenticates a request with an Authorization header by its key and ignores the cookie), sends cookies
 * same-origin only and adds X-CSRF-Token to every method that can change something.
 */
import './random-uuid';
import { createPatronClient, type PatronClient } from '@patron/client/browser';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sessionFetch(csrfToken: string): (request: Request) => Promise<Response> {
  return (request) => {
    const headers = new Headers(request.headers);
    headers.delete('authorization');
    if (!SAFE_METHODS.has(request.method)) headers.set('x-csrf-token', csrfToken);
    return fetch(new Request(request, { headers, credentials: 'same-origin' }));
  };
}

export function createDashboardClient(csrfToken: string): PatronClient {
  return createPatronClient({ baseUrl: window.location.origin, apiKey: '', fetch: sessionFetch(csrfToken) });
}
