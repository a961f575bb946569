import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { DB, SessionsTable, UserRole, UsersTable } from '../db/schema.js';
import { conflict } from '../core/errors.js';
import type { SessionLookup } from '../core/types.js';
import { uuidv7 } from '../util/ids.js';
import { hashKey } from './keys.js';
import { AUDIT_LOG_READ } from './permissions.js';

/*
 * Dashboard accounts (docs/api.md#dashboard-sessions): users with a role, one-time sign-in links, sessions and the
 * failed sign-ins that throttle an email. Every query of a tenant table names the organization, except the three
 * lookups that find it: a user by email at sign-in, a session by its cookie's token, a link by its token.
 */

export const USER_ROLES = ['owner', 'admin', 'viewer'] as const satisfies readonly UserRole[];

/** What only owners may do: manage the organization's users. Not a key permission. */
export const USER_MANAGEMENT = 'users:manage';
/** What owners and admins may do: create, list and revoke secret keys. Not a key permission. */
export const KEY_MANAGEMENT = 'keys:manage';

export const SIGN_IN_LINK_HOURS = 24;
/** A "forgot password" link's lifetime (docs/api.md#forgotten-passwords). */
export const PASSWORD_RESET_LINK_HOURS = 1;
/** How long after a link's sign-in the session may set a new password without the current one. */
export const PASSWORD_RESET_SESSION_MINUTES = 60;
/** "Forgot password" mails per email within the window; further requests are answered alike and send nothing. */
export const PASSWORD_RESET_MAILS_PER_EMAIL = 3;
/** "Forgot password" requests per client address within the window; further ones are 429. */
export const PASSWORD_RESET_REQUESTS_PER_IP = 10;
export const PASSWORD_RESET_WINDOW_MINUTES = 60;
export const SESSION_IDLE_HOURS = 12;
export const SESSION_MAX_DAYS = 7;
export const SIGN_IN_FAILURE_LIMIT = 5;
export const SIGN_IN_FAILURE_WINDOW_MINUTES = 15;
/** A session's last use is written at most this often, so a burst of dashboard requests writes once. */
const TOUCH_AFTER_SECONDS = 60;

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;

/**
 * The permissions a role holds (docs/api.md#dashboard-sessions), written out from the key catalog so the dashboard can
 * test for one by name: owners every permission and both management rights, admins every permission and key
 * management, viewers every `…:read` but the audit log's (docs/api.md#audit-log).
 */
export function rolePermissions(role: UserRole, catalog: readonly string[]): string[] {
  if (role === 'viewer')
    return catalog.filter((permission) => permission.endsWith(':read') && permission !== AUDIT_LOG_READ);
  return [...catalog, KEY_MANAGEMENT, ...(role === 'owner' ? [USER_MANAGEMENT] : [])];
}

/** A random token of 32 bytes, base64url: session cookies, CSRF tokens and sign-in links. */
export const newToken = () => randomBytes(32).toString('base64url');
/** Tokens are stored as their SHA-256, like secret keys: random 256-bit values need no slow hash. */
export const hashToken = hashKey;

/**
 * A one-time sign-in link: the dashboard's sign-in page with the token in the fragment, which browsers never send to
 * a server, write to its logs or put in a Referer (docs/api.md#dashboard-sessions).
 */
export const signInLink = (baseUrl: string, token: string) =>
  `${baseUrl.replace(/\/+$/, '')}/dashboard/sign-in#token=${token}`;

/** Emails are compared case-insensitively; the stored spelling is the one first given. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

// ---------------------------------------------------------------------------------------------------------- users

export async function createUser(
  db: Executor,
  input: { organizationId: string; email: string; name?: string | null | undefined; role: UserRole },
): Promise<UserRow> {
  const row = await db
    .insertInto('users')
    .values({
      organization_id: input.organizationId,
      id: uuidv7(),
      email: input.email.trim(),
      name: input.name?.trim() || null,
      role: input.role,
    })
    // Any unique violation here is the email's (the id is new): answered as a conflict, not an error.
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw conflict('A user with this email already exists (emails are unique across the deployment).');
  return row;
}

export const findUserByEmail = (db: Executor, email: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', normalEmail(email))
    .executeTakeFirst();

export const findUser = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * An email no user has yet: `local@domain`, or `local+<n>@domain` when taken (the demo world seeded more than once
 * on one database).
 */
export async function freeEmail(db: Executor, local: string, domain: string): Promise<string> {
  for (let n = 1; ; n++) {
    const email = n === 1 ? `${local}@${domain}` : `${local}+${n}@${domain}`;
    if (!(await findUserByEmail(db, email))) return email;
  }
}

/** Any user by id, whatever its organization: the operator's CLI. */
export const findUserAnywhere = (db: Executor, id: string) =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const listUsers = (db: Executor, organizationId: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

const LAST_OWNER =
  'An organization keeps at least one owner: make another user owner first, then change or delete this one.';

/**
 * Locks the organization's owners (in id order, so concurrent changes queue rather than deadlock) and the user, and
 * refuses a change that would leave no owner.
 */
async function guardLastOwner(trx: Executor, organizationId: string, id: string, staysOwner: boolean) {
  const owners = await trx
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .orderBy('id')
    .forUpdate()
    .execute();
  const user = await trx
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (user?.role === 'owner' && !staysOwner && owners.length <= 1) throw conflict(LAST_OWNER);
  return user;
}

/** Changes a user's name or role; undefined when the organization has no such user. */
export async function updateUser(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
  changes: { name?: string | null | undefined; role?: UserRole | undefined },
): Promise<UserRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const user = await guardLastOwner(trx, organizationId, id, (changes.role ?? 'owner') === 'owner');
    if (!user) return undefined;
    const name = changes.name === undefined ? user.name : changes.name?.trim() || null;
    const role = changes.role ?? user.role;
    if (name === user.name && role === user.role) return user;
    return trx
      .updateTable('users')
      .set({ name, role })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Deletes a user with its sessions and links; false when the organization has no such user. */
export async function deleteUser(db: Kysely<DB>, organizationId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const user = await guardLastOwner(trx, organizationId, id, false);
    if (!user) return false;
    await trx.deleteFrom('users').where('organization_id', '=', organizationId).where('id', '=', id).execute();
    return true;
  });
}

/**
 * Sets a user's password (already hashed) and ends the user's other sessions; the kept session can no longer set one
 * without the current password (docs/api.md#forgotten-passwords).
 */
export async function setPasswordHash(
  db: Kysely<DB>,
  user: { organization_id: string; id: string },
  passwordHash: string,
  keepSessionId: string | undefined,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('organization_id', '=', user.organization_id)
      .where('id', '=', user.id)
      .execute();
    if (keepSessionId) {
      await trx
        .updateTable('sessions')
        .set({ password_reset_until: null })
        .where('organization_id', '=', user.organization_id)
        .where('id', '=', keepSessionId)
        .execute();
    }
    let others = trx
      .deleteFrom('sessions')
      .where('organization_id', '=', user.organization_id)
      .where('user_id', '=', user.id);
    if (keepSessionId) others = others.where('id', '<>', keepSessionId);
    await others.execute();
  });
}

// ------------------------------------------------------------------------------------------------ sign-in links

/**
 * A one-time sign-in link's token for the user, valid SIGN_IN_LINK_HOURS. The user's used and expired links are
 * deleted on the way; earlier live links stay valid until used or expired.
 */
export async function createSignInLink(
  db: Kysely<DB>,
  user: { organization_id: string; id: string },
): Promise<{ token: string; expiresAt: Date }> {
  return db.transaction().execute((trx) => insertSignInLink(trx, user, { hours: SIGN_IN_LINK_HOURS }));
}

/**
 * createSignInLink in the caller's transaction, valid `hours`; a "forgot password" link (`forPasswordReset`, valid an
 * hour) lets its session set a new password without the current one (docs/api.md#forgotten-passwords).
 */
export async function insertSignInLink(
  trx: Executor,
  user: { organization_id: string; id: string },
  { hours, forPasswordReset = false }: { hours: number; forPasswordReset?: boolean },
): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const row = await (async () => {
    await trx
      .deleteFrom('sign_in_links')
      .where('organization_id', '=', user.organization_id)
      .where('user_id', '=', user.id)
      .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', sql<Date>`now()`)]))
      .execute();
    return trx
      .insertInto('sign_in_links')
      .values({
        organization_id: user.organization_id,
        id: uuidv7(),
        user_id: user.id,
        token_hash: hashToken(token),
        expires_at: sql<Date>`now() + make_interval(hours => ${hours})`,
        for_password_reset: forPasswordReset,
      })
      .returning('expires_at')
      .executeTakeFirstOrThrow();
  })();
  return { token, expiresAt: row.expires_at };
}

/**
 * The link's user when the token is a live link, which it then uses up (in the same statement), and whether it was a
 * "forgot password" link; else undefined.
 */
export async function useSignInLink(
  db: Kysely<DB>,
  token: string,
): Promise<{ user: UserRow; forPasswordReset: boolean } | undefined> {
  const used = await db
    .updateTable('sign_in_links')
    .set({ used_at: sql<Date>`now()` })
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['organization_id', 'user_id', 'for_password_reset'])
    .executeTakeFirst();
  const user = used && (await findUser(db, used.organization_id, used.user_id));
  return user ? { user, forPasswordReset: used.for_password_reset } : undefined;
}

// ----------------------------------------------------------------------------------------------------- sessions

/**
 * Signs the user in: a new session (its cookie token is returned once), and the user's sign-in time. A session that
 * proved the email with a link (`mayResetPassword`: a "forgot password" link, or any link of a user without a
 * password) may set a new password without the current one for PASSWORD_RESET_SESSION_MINUTES
 * (docs/api.md#forgotten-passwords).
 */
export async function createSession(
  db: Kysely<DB>,
  user: { organization_id: string; id: string },
  { mayResetPassword = false }: { mayResetPassword?: boolean } = {},
): Promise<{ token: string; session: SessionRow }> {
  const token = newToken();
  const session = await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('sessions')
      .where('organization_id', '=', user.organization_id)
      .where('user_id', '=', user.id)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', sql<Date>`now()`),
          eb('last_used_at', '<=', sql<Date>`now() - make_interval(hours => ${SESSION_IDLE_HOURS})`),
        ]),
      )
      .execute();
    await trx
      .updateTable('users')
      .set({ last_signed_in_at: sql<Date>`now()` })
      .where('organization_id', '=', user.organization_id)
      .where('id', '=', user.id)
      .execute();
    return trx
      .insertInto('sessions')
      .values({
        organization_id: user.organization_id,
        id: uuidv7(),
        user_id: user.id,
        token_hash: hashToken(token),
        csrf_token: newToken(),
        expires_at: sql<Date>`now() + make_interval(days => ${SESSION_MAX_DAYS})`,
        password_reset_until: mayResetPassword
          ? sql<Date>`now() + make_interval(mins => ${PASSWORD_RESET_SESSION_MINUTES})`
          : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { token, session };
}

/**
 * The live session a cookie's token names, with its user and organization; undefined when it is unknown, ended or
 * expired (12 hours after its last use, 7 days after sign-in at most). Its last use is moved forward at most once a
 * minute.
 */
export async function findSession(db: Kysely<DB>, token: string): Promise<SessionLookup | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (join) =>
      join.onRef('u.organization_id', '=', 's.organization_id').onRef('u.id', '=', 's.user_id'),
    )
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    // Every organization has its twin (createOrganization, migration 0038): a session may act on it in test mode.
    .innerJoin('organizations as t', 't.live_organization_id', 's.organization_id')
    .select([
      't.id as test_organization_id',
      's.test_mode',
      's.password_reset_until',
      's.organization_id',
      's.id',
      's.user_id',
      's.token_hash',
      's.csrf_token',
      's.created_at',
      's.last_used_at',
      's.expires_at',
      'u.email',
      'u.name',
      'u.role',
      'u.password_hash',
      'u.created_at as user_created_at',
      'u.last_signed_in_at',
      'u.locale',
      'o.name as organization_name',
      'o.api_requests_per_minute',
      'o.loyalty_events_per_minute',
      'o.loyalty_stamps_per_minute',
      sql<boolean>`s.last_used_at < now() - make_interval(secs => ${TOUCH_AFTER_SECONDS})`.as('stale'),
    ])
    .where('s.token_hash', '=', hashToken(token))
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('s.last_used_at', '>', sql<Date>`now() - make_interval(hours => ${SESSION_IDLE_HOURS})`)
    .executeTakeFirst();
  if (!row) return undefined;
  let lastUsedAt = row.last_used_at;
  if (row.stale) {
    const touched = await db
      .updateTable('sessions')
      .set({ last_used_at: sql<Date>`now()` })
      .where('organization_id', '=', row.organization_id)
      .where('id', '=', row.id)
      .returning('last_used_at')
      .executeTakeFirst();
    lastUsedAt = touched?.last_used_at ?? lastUsedAt;
  }
  return {
    session: {
      organization_id: row.organization_id,
      id: row.id,
      user_id: row.user_id,
      token_hash: row.token_hash,
      csrf_token: row.csrf_token,
      created_at: row.created_at,
      last_used_at: lastUsedAt,
      expires_at: row.expires_at,
      test_mode: row.test_mode,
      password_reset_until: row.password_reset_until,
    },
    user: {
      organization_id: row.organization_id,
      id: row.user_id,
      email: row.email,
      name: row.name,
      role: row.role,
      password_hash: row.password_hash,
      created_at: row.user_created_at,
      last_signed_in_at: row.last_signed_in_at,
      locale: row.locale,
    },
    organization: {
      id: row.organization_id,
      name: row.organization_name,
      testOrganizationId: row.test_organization_id,
      api_requests_per_minute: row.api_requests_per_minute,
      loyalty_events_per_minute: row.loyalty_events_per_minute,
      loyalty_stamps_per_minute: row.loyalty_stamps_per_minute,
    },
  };
}

/** When a session ends unless it is used again: 12 hours after its last use, capped by its 7-day limit. */
export function sessionExpiry(session: Pick<SessionRow, 'last_used_at' | 'expires_at'>): Date {
  const idle = new Date(session.last_used_at.getTime() + SESSION_IDLE_HOURS * 3_600_000);
  return idle < session.expires_at ? idle : session.expires_at;
}

export async function deleteSession(db: Executor, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

// ------------------------------------------------------------------------------------------- sign-in throttling

export type SignInAttempt = { attemptId: string; retryAfter?: never } | { retryAfter: number; attemptId?: never };

/**
 * Takes one of the email's SIGN_IN_FAILURE_LIMIT attempts within the window before its password is checked, or answers
 * the seconds until one frees up. The attempt is written as a failure at once and forgotten only if the password
 * proves right (`forgetSignInAttempt`), so that concurrent guesses cannot all read "fewer than five" before any of
 * them is counted (docs/api.md#dashboard-sessions). A transaction-scoped advisory lock on the email makes the count
 * and the write one step on every engine, and in every process sharing the database.
 */
export async function reserveSignInAttempt(db: Kysely<DB>, email: string): Promise<SignInAttempt> {
  const normal = normalEmail(email);
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sign-in:${normal}`}, 0))`.execute(trx);
    const recent = await trx
      .selectFrom('sign_in_failures')
      .select(
        sql<number>`ceil(extract(epoch from failed_at + make_interval(mins => ${SIGN_IN_FAILURE_WINDOW_MINUTES}) - now()))`.as(
          'seconds_left',
        ),
      )
      .where('email', '=', normal)
      .where('failed_at', '>', sql<Date>`now() - make_interval(mins => ${SIGN_IN_FAILURE_WINDOW_MINUTES})`)
      .orderBy('failed_at', 'desc')
      .limit(SIGN_IN_FAILURE_LIMIT)
      .execute();
    if (recent.length >= SIGN_IN_FAILURE_LIMIT) {
      // The attempts free up when the oldest of the last LIMIT failures leaves the window.
      return { retryAfter: Math.max(1, Number(recent[recent.length - 1]!.seconds_left)) };
    }
    const attemptId = uuidv7();
    await trx.insertInto('sign_in_failures').values({ email: normal, id: attemptId }).execute();
    // Forget every failure older than the window (for any email), so the table holds only what still counts.
    await trx
      .deleteFrom('sign_in_failures')
      .where('failed_at', '<=', sql<Date>`now() - make_interval(mins => ${SIGN_IN_FAILURE_WINDOW_MINUTES})`)
      .execute();
    return { attemptId };
  });
}

/**
 * Counts one "forgot password" request (docs/api.md#forgotten-passwords), known email or not, and answers what it may
 * do: `retryAfter` (seconds) when the client's address has made PASSWORD_RESET_REQUESTS_PER_IP requests within the
 * window (a 429, which says nothing about the email); else whether a mail may go to this email, which at most
 * PASSWORD_RESET_MAILS_PER_EMAIL requests within the window may do (the others are answered alike and send nothing).
 * Under a transaction-scoped advisory lock on the email, so concurrent requests cannot all read "under the limit".
 */
export async function reservePasswordReset(
  db: Kysely<DB>,
  email: string,
  ip: string,
): Promise<{ retryAfter: number; mayMail?: never } | { mayMail: boolean; retryAfter?: never }> {
  const normal = normalEmail(email);
  const windowStart = sql<Date>`now() - make_interval(mins => ${PASSWORD_RESET_WINDOW_MINUTES})`;
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`password-reset-ip:${ip}`}, 0))`.execute(trx);
    const fromIp = await trx
      .selectFrom('password_reset_requests')
      .select(
        sql<number>`ceil(extract(epoch from requested_at + make_interval(mins => ${PASSWORD_RESET_WINDOW_MINUTES}) - now()))`.as(
          'seconds_left',
        ),
      )
      .where('ip', '=', ip)
      .where('requested_at', '>', windowStart)
      .orderBy('requested_at', 'desc')
      .limit(PASSWORD_RESET_REQUESTS_PER_IP)
      .execute();
    if (fromIp.length >= PASSWORD_RESET_REQUESTS_PER_IP) {
      return { retryAfter: Math.max(1, Number(fromIp[fromIp.length - 1]!.seconds_left)) };
    }
    await sql`select pg_advisory_xact_lock(hashtextextended(${`password-reset:${normal}`}, 0))`.execute(trx);
    const forEmail = await trx
      .selectFrom('password_reset_requests')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('email', '=', normal)
      .where('requested_at', '>', windowStart)
      .executeTakeFirstOrThrow();
    await trx.insertInto('password_reset_requests').values({ email: normal, id: uuidv7(), ip }).execute();
    // Only requests within the window count: older ones (for any email) are forgotten as new ones come.
    await trx.deleteFrom('password_reset_requests').where('requested_at', '<=', windowStart).execute();
    return { mayMail: Number(forEmail.count) < PASSWORD_RESET_MAILS_PER_EMAIL };
  });
}

/** A reserved attempt whose password was right: it is not a failure. */
export async function forgetSignInAttempt(db: Executor, attemptId: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('id', '=', attemptId).execute();
}

export async function clearSignInFailures(db: Executor, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email', '=', normalEmail(email)).execute();
}

/** Stores a user's locale (docs/api.md#users-and-roles). */
export async function setUserLocale(
  db: Executor,
  organizationId: string,
  userId: string,
  locale: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ locale })
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .where('locale', '<>', locale)
    .execute();
}

/** Puts a session in test mode or takes it out (docs/api.md#test-mode); its next request acts accordingly. */
export async function setSessionTestMode(
  db: Executor,
  organizationId: string,
  sessionId: string,
  testMode: boolean,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ test_mode: testMode })
    .where('organization_id', '=', organizationId)
    .where('id', '=', sessionId)
    .execute();
}
