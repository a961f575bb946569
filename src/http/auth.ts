import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { grants } from '../auth/permissions.js';
import { hashKey, KEY_PATTERN, SECRET_KEY_IN_TEXT } from '../auth/keys.js';
import { prepared } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import { ApiError } from './errors.js';
import type { AuthContext } from './types.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

// Every authenticated request runs this, so it is compiled once. Keys are looked up each time (never cached) so a
// revocation takes effect on the very next request.
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
        'o.api_requests_per_minute',
        'o.loyalty_events_per_minute',
        'o.loyalty_stamps_per_minute',
      ])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null),
  ['key-hash'],
);

/** Resolves a Bearer key to its organization, permissions and plan in one query; null when it is not a live key. */
export async function findKey(db: Kysely<DB>, key: string): Promise<AuthContext | null> {
  const [row] = await selectKey(db, hashKey(key));
  if (!row) return null;
  return {
    keyId: row.keyId,
    keyPrefix: row.keyPrefix,
    organizationId: row.organizationId,
    permissions: row.permissions,
    plan: {
      apiRequestsPerMinute: row.api_requests_per_minute,
      loyaltyEventsPerMinute: row.loyalty_events_per_minute,
      loyaltyStampsPerMinute: row.loyalty_stamps_per_minute,
    },
  };
}

/**
 * First of the checks (docs/api.md#order-of-checks): a missing, malformed, unknown or revoked key is 401 and costs
 * nothing.
 */
export async function authenticate(db: Kysely<DB>, request: FastifyRequest): Promise<AuthContext> {
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
  if (!header) {
    throw new ApiError('UNAUTHORIZED', 'Missing Authorization header: send "Authorization: Bearer <secret key>".');
  }
  const key = BEARER.exec(header)?.[1];
  if (!key || !KEY_PATTERN.test(key)) {
    throw new ApiError(
      'UNAUTHORIZED',
      'Malformed Authorization header: expected "Bearer sk_…" with an organization secret key.',
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
    throw new ApiError('FORBIDDEN', `This API key lacks the permission "${required}" that this endpoint requires.`);
  }
}

/** The caller of an authenticated route; routes without a declared permission have none. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth)
    throw new Error(`Route ${request.routeOptions.url} has no permission declared but needs the caller`);
  return request.auth;
}

/**
 * Who a request's log lines are about: the organization and the key's id and prefix once the key is known, nothing
 * before (docs/security.md).
 */
export function requestLabels(request: FastifyRequest): {
  organizationId?: string;
  keyId?: string;
  keyPrefix?: string;
} {
  const auth = request.auth;
  return auth ? { organizationId: auth.organizationId, keyId: auth.keyId, keyPrefix: auth.keyPrefix } : {};
}
