import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { timingSafeEqual } from 'node:crypto';
import { findSession, rolePermissions } from '../auth/accounts.js';
import { grants } from '../auth/permissions.js';
import { hashKey, KEY_PATTERN, SECRET_KEY_IN_TEXT } from '../auth/keys.js';
import { cachedRead } from '../db/embedded-cache.js';
import { prepared } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../core/errors.js';
import type { AuthContext, SessionLookup } from '../core/types.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

// Every authenticated request runs this, so it is compiled once. On PostgreSQL keys are looked up each time (never
// cached): several processes share the database, and a revocation takes effect on the very next request. On the
// embedded engine the data is this process's alone and the lookup is cached exactly: any change to a key or an
// organization empties the cache before it runs (src/db/embedded-cache.ts, docs/api.md#embedded-database-and-cli).
const selectKey = prepared(
  (db, keyHash: string) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('organizations as o', 'o.id', 'k.organization_id')
      .select([
        'k.id as keyId',
        'k.prefix as keyPrefix',
        'k.organization_id as organizationId',
        'k.permissions',
        'o.live_organization_id',
        'o.api_requests_per_minute',
        'o.loyalty_events_per_minute',
        'o.loyalty_stamps_per_minute',
        'o.api_version',
      ])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null),
  ['key-hash'],
);

/** Resolves a Bearer key to its organization, permissions and plan in one query; null when it is not a live key. */
export async function findKey(db: Kysely<DB>, key: string): Promise<AuthContext | null> {
  const keyHash = hashKey(key);
  // An unknown key is not cached: random keys would fill the cache, and a key created later must be found.
  return (await cachedRead(db, `api-key:${keyHash}`, () => lookUpKey(db, keyHash))) ?? null;
}

async function lookUpKey(db: Kysely<DB>, keyHash: string): Promise<AuthContext | undefined> {
  const [row] = await selectKey(db, keyHash);
  if (!row) return undefined;
  return {
    keyId: row.keyId,
    keyPrefix: row.keyPrefix,
    organizationId: row.organizationId,
    livemode: row.live_organization_id === null,
    permissions: row.permissions,
    plan: {
      apiRequestsPerMinute: row.api_requests_per_minute,
      loyaltyEventsPerMinute: row.loyalty_events_per_minute,
      loyaltyStampsPerMinute: row.loyalty_stamps_per_minute,
    },
    apiVersion: row.api_version,
  };
}

/**
 * First of the checks (docs/api.md#order-of-checks): a missing, malformed, unknown or revoked key is 401 and costs
 * nothing.
 */
export async function authenticate(
  db: Kysely<DB>,
  request: FastifyRequest,
  catalog: readonly string[],
): Promise<AuthContext> {
  const queryStart = request.url.indexOf('?');
  if (queryStart !== -1 && SECRET_KEY_IN_TEXT.test(request.url.slice(queryStart + 1))) {
    // Refused whether or not the key is valid: a key in a URL is written to access logs, proxies and browser
    // histories, so taking it would teach callers a habit that leaks keys (docs/security.md).
    throw new ApiError(
      'UNAUTHORIZED',
      'A secret key was sent in the URL. Send it in the Authorization header instead ("Authorization: Bearer sk_…"), and revoke a key that was shared in a URL.',
    );
  }
  const header = request.headers.authorization;
  // An Authorization header always means a key, whatever cookie comes with it (docs/api.md#dashboard-sessions).
  if (header === undefined) {
    const token = sessionToken(request);
    if (token !== undefined) return authenticateSession(db, token, catalog);
  }
  if (!header) {
    throw new ApiError('UNAUTHORIZED', 'Missing Authorization header: send "Authorization: Bearer <secret key>".');
  }
  const key = BEARER.exec(header)?.[1];
  if (!key || !KEY_PATTERN.test(key)) {
    throw new ApiError(
      'UNAUTHORIZED',
      'Malformed Authorization header: expected "Bearer sk_…" (or "Bearer sk_test_…") with an organization secret key.',
    );
  }
  const auth = await findKey(db, key);
  if (!auth) throw new ApiError('UNAUTHORIZED', 'The API key is unknown or has been revoked.');
  return auth;
}

/**
 * Third of the checks (docs/api.md#order-of-checks), after the charge: a key without the route's permission is 403 (its
 * tokens stay spent).
 */
export function authorize(auth: AuthContext, required: string): void {
  if (required === 'any') return;
  if (!grants(auth.permissions, required)) {
    throw new ApiError(
      'FORBIDDEN',
      auth.session
        ? `The role "${auth.session.user.role}" does not grant the permission "${required}" that this endpoint requires.`
        : `This API key lacks the permission "${required}" that this endpoint requires.`,
    );
  }
}

/** The dashboard's session cookie (docs/api.md#dashboard-sessions). */
export const SESSION_COOKIE = 'patron_session';
/** A session token is 32 random bytes in base64url; anything else is refused without a lookup. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The 403 of a route that acts only on test data, for a live caller (docs/api.md#test-mode). */
export const TEST_MODE_ONLY =
  'This endpoint acts only on test data: use a test key (sk_test_…) or switch the dashboard to test mode. Live data is never touched.';
export const SESSION_ONLY = 'This endpoint answers only to a signed-in dashboard session, not to an API key.';

/** The session cookie's value, parsed only for requests without an Authorization header. */
function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header || !header.includes(SESSION_COOKIE)) return undefined;
  return request.server.parseCookie(header)[SESSION_COOKIE];
}

async function authenticateSession(db: Kysely<DB>, token: string, catalog: readonly string[]): Promise<AuthContext> {
  const found = SESSION_TOKEN.test(token) ? await findSession(db, token) : undefined;
  if (!found) {
    throw new ApiError('UNAUTHORIZED', 'The dashboard session has ended or is unknown: sign in again.');
  }
  return sessionContext(found, catalog);
}

/**
 * The caller a session makes: the organization and the permissions of the user's role; never charged. In test mode
 * it acts on the test twin of its user's organization (docs/api.md#test-mode), whose plan is the same.
 */
export function sessionContext(found: SessionLookup, catalog: readonly string[]): AuthContext {
  const testMode = found.session.test_mode;
  return {
    session: found,
    organizationId: testMode ? found.organization.testOrganizationId : found.session.organization_id,
    livemode: !testMode,
    permissions: rolePermissions(found.user.role, catalog),
    plan: {
      apiRequestsPerMinute: found.organization.api_requests_per_minute,
      loyaltyEventsPerMinute: found.organization.loyalty_events_per_minute,
      loyaltyStampsPerMinute: found.organization.loyalty_stamps_per_minute,
    },
  };
}

/**
 * A session's write must come from this server's own pages: its Origin, when sent, is this server's origin, and it
 * carries the session's CSRF token in X-CSRF-Token (docs/api.md#dashboard-sessions). Reads are not checked.
 */
export function checkSessionWrite(request: FastifyRequest, session: SessionLookup): void {
  if (SAFE_METHODS.has(request.method)) return;
  checkOrigin(request);
  const sent = request.headers['x-csrf-token'];
  if (typeof sent !== 'string' || sent === '') {
    throw new ApiError(
      'FORBIDDEN',
      "Missing X-CSRF-Token header: a dashboard session's write must send the session's csrfToken (GET /v1/session answers it).",
    );
  }
  if (!sameText(sent, session.session.csrf_token)) {
    throw new ApiError(
      'FORBIDDEN',
      "The X-CSRF-Token header is not this session's csrfToken (GET /v1/session answers the current one).",
    );
  }
}

/** A browser's write from another site is refused: an Origin header, when present, must be this server's own. */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const own = ownOrigin(request);
  if (own === undefined || originOf(origin) !== own) {
    throw new ApiError(
      'FORBIDDEN',
      `The Origin header names another site than this server (${own ?? 'unknown'}): dashboard writes are accepted only from the server's own pages.`,
    );
  }
}

/** This server's origin as the client reached it (behind a trusted proxy, as the proxy forwards it). */
export function ownOrigin(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return undefined;
  }
}

/** An Origin header as a browser would write it (a default port dropped), or undefined when it is no URL ("null"). */
function originOf(header: string): string | undefined {
  try {
    return new URL(header).origin;
  } catch {
    return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The caller of an authenticated route; routes without a declared permission have none. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth)
    throw new Error(`Route ${request.routeOptions.url} has no permission declared but needs the caller`);
  return request.auth;
}

/**
 * Who a request's log lines are about: the organization and the key's id and prefix (or the dashboard user's id) once
 * the caller is known, nothing before (docs/security.md).
 */
export function requestLabels(request: FastifyRequest): {
  organizationId?: string;
  keyId?: string;
  keyPrefix?: string;
  userId?: string;
} {
  const auth = request.auth;
  if (!auth) return {};
  if (auth.session) return { organizationId: auth.organizationId, userId: auth.session.user.id };
  return { organizationId: auth.organizationId, keyId: auth.keyId, keyPrefix: auth.keyPrefix };
}
