import { attributeAudit } from '../../db/audit.js';
import type { Kysely } from 'kysely';
import {
  clearSignInFailures,
  createSession,
  createSignInLink,
  createUser,
  deleteSession,
  deleteUser,
  findSession,
  findUserByEmail,
  listUsers,
  reserveSignInAttempt,
  forgetSignInAttempt,
  insertSignInLink,
  PASSWORD_RESET_LINK_HOURS,
  reservePasswordReset,
  rolePermissions,
  sessionExpiry,
  setPasswordHash,
  setSessionTestMode,
  setUserLocale,
  signInLink,
  updateUser,
  useSignInLink,
  type UserRow,
} from '../../auth/accounts.js';
import type { SessionLookup } from '../../core/types.js';
import { queueMail } from '../mail/index.js';
import { createKey, listKeys, revokeOrganizationKey } from '../../auth/keys.js';
import { hashPassword, verifyPassword } from '../../auth/passwords.js';
import { passwordWeakness } from '../../auth/password-strength.js';
import { ALL_PERMISSIONS } from '../../auth/permissions.js';
import type { DB } from '../../db/schema.js';
import { ApiError, notFound, validationError } from '../../core/errors.js';
import { toApiKey, type ApiKey, type CreatedApiKey } from '../../records/api-key.js';
import { toUser, type User } from '../../records/user.js';
import type {
  ChangePasswordBody,
  PasswordResetAccepted,
  PasswordResetBody,
  CreateKeyBody,
  CreateUserBody,
  Session,
  SignInBody,
  UpdateSessionBody,
  UpdateUserBody,
} from './schemas.js';

/** The same answer for an unknown email and a wrong password, so sign-in tells nobody which emails exist. */
const WRONG_CREDENTIALS = 'The email or password is not right.';

/** Either an email and a password, or a link's token alone (docs/api.md#dashboard-sessions). */
export function checkSignInBody(body: unknown): void {
  const { email, password, signInToken } = (body ?? {}) as SignInBody;
  if (signInToken !== undefined) {
    if (email !== undefined || password !== undefined) {
      throw validationError('Send either signInToken alone, or email and password.', [
        { path: 'body.signInToken', message: 'cannot be sent with email or password' },
      ]);
    }
    return;
  }
  const missing = [
    ...(email === undefined ? [{ path: 'body.email', message: 'is required (or send signInToken)' }] : []),
    ...(password === undefined ? [{ path: 'body.password', message: 'is required (or send signInToken)' }] : []),
  ];
  if (missing.length) throw validationError('Send email and password, or a sign-in link token.', missing);
}

function throttled(seconds: number): ApiError {
  const minutes = Math.ceil(seconds / 60);
  return new ApiError(
    'TOO_MANY_REQUESTS',
    `Too many failed sign-ins for this email: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

/** Signs in; answers the session and the token its cookie carries. */
export async function signIn(
  db: Kysely<DB>,
  catalog: readonly string[],
  body: SignInBody,
): Promise<{ token: string; answer: Session }> {
  let user: UserRow | undefined;
  let mayResetPassword = false;
  if (body.signInToken !== undefined) {
    const link = await useSignInLink(db, body.signInToken);
    user = link?.user;
    mayResetPassword = link !== undefined && (link.forPasswordReset || link.user.password_hash === null);
    if (user) attributeSignIn(user);
    if (!user) {
      throw new ApiError(
        'UNAUTHORIZED',
        'This sign-in link has been used or has expired: ask for a new one from the sign-in page ("Forgot ' +
          'password?"), or ask an owner of the organization.',
      );
    }
  } else {
    const email = body.email!;
    const attempt = await reserveSignInAttempt(db, email);
    if (attempt.retryAfter !== undefined) throw throttled(attempt.retryAfter);
    user = await findUserByEmail(db, email);
    // A failed sign-in is recorded under the organization of the user it named (docs/api.md#audit-log).
    if (user) attributeSignIn(user);
    // verifyPassword hashes even without a user, so an unknown email costs as long as a wrong password.
    if (!(await verifyPassword(body.password!, user?.password_hash ?? null)) || !user) {
      throw new ApiError('UNAUTHORIZED', WRONG_CREDENTIALS);
    }
    await clearSignInFailures(db, email);
  }
  const { token } = await createSession(db, user, { mayResetPassword });
  const found = await findSession(db, token);
  if (!found) throw new Error('A session just made was not found');
  return { token, answer: sessionAnswer(found, catalog) };
}

/** A sign-in's audit entry is the named user's, in that user's organization, whether it succeeds or not. */
const attributeSignIn = (user: UserRow) =>
  attributeAudit(user.organization_id, { type: 'user', id: user.id, label: user.email });

export function sessionAnswer(found: SessionLookup, catalog: readonly string[]): Session {
  return {
    user: toUser(found.user),
    organization: { id: found.organization.id, name: found.organization.name },
    testMode: found.session.test_mode,
    permissions: rolePermissions(found.user.role, catalog),
    grantablePermissions: [...catalog],
    passwordResetUntil:
      found.session.password_reset_until && found.session.password_reset_until > new Date()
        ? found.session.password_reset_until.toISOString()
        : null,
    csrfToken: found.session.csrf_token,
    expiresAt: sessionExpiry(found.session).toISOString(),
  };
}

/**
 * Switches the session into or out of test mode (docs/api.md#test-mode). The switch is the session's (its user's
 * organization's), so its audit entry is the live organization's whichever mode it leaves.
 */
export async function setTestMode(
  db: Kysely<DB>,
  catalog: readonly string[],
  found: SessionLookup,
  body: UpdateSessionBody,
): Promise<Session> {
  attributeToLive(found);
  const testMode = body.testMode ?? found.session.test_mode;
  const locale = body.locale ?? found.user.locale;
  await db.transaction().execute(async (trx) => {
    if (body.testMode !== undefined)
      await setSessionTestMode(trx, found.session.organization_id, found.session.id, body.testMode);
    if (body.locale !== undefined) await setUserLocale(trx, found.session.organization_id, found.user.id, body.locale);
  });
  return sessionAnswer(
    { ...found, session: { ...found.session, test_mode: testMode }, user: { ...found.user, locale } },
    catalog,
  );
}

/**
 * A user's changes (their session, password, the organization's users) are the live organization's, which the users
 * belong to, also in test mode: their audit entries land there (docs/api.md#test-mode).
 */
export function attributeToLive(found: SessionLookup): void {
  attributeAudit(found.session.organization_id, { type: 'user', id: found.user.id, label: found.user.email });
}

export async function signOut(db: Kysely<DB>, found: SessionLookup): Promise<void> {
  await deleteSession(db, found.session.organization_id, found.session.id);
}

/**
 * Sets the user's password; the current one is needed when there is one (wrong ones count as failed sign-ins, so a
 * stolen session cannot try passwords faster than the sign-in page). Ends the user's other sessions.
 */
export async function changePassword(db: Kysely<DB>, found: SessionLookup, body: ChangePasswordBody): Promise<void> {
  const { user } = found;
  const weakness = await passwordWeakness(body.newPassword, [user.email, user.name ?? '']);
  if (weakness) {
    throw validationError(`The new password ${weakness}.`, [{ path: 'body.newPassword', message: weakness }]);
  }
  // A session signed in with a one-time link within the hour proved the email, as a "forgot password" needs
  // (docs/api.md#forgotten-passwords): it may set a new password without the current one.
  const resetting =
    found.session.password_reset_until !== null &&
    found.session.password_reset_until > new Date() &&
    body.currentPassword === undefined;
  if (user.password_hash !== null && !resetting) {
    if (body.currentPassword === undefined) {
      throw validationError('The current password is needed to change it.', [
        { path: 'body.currentPassword', message: 'is required: the user has a password' },
      ]);
    }
    const attempt = await reserveSignInAttempt(db, user.email);
    if (attempt.retryAfter !== undefined) throw throttled(attempt.retryAfter);
    if (!(await verifyPassword(body.currentPassword, user.password_hash))) {
      throw new ApiError('FORBIDDEN', 'The current password is not right.');
    }
    await forgetSignInAttempt(db, attempt.attemptId);
  }
  await setPasswordHash(db, user, await hashPassword(body.newPassword), found.session.id);
}

/** The one answer of a "forgot password" request, whatever the email (docs/api.md#forgotten-passwords). */
export const PASSWORD_RESET_ANSWER: PasswordResetAccepted = {
  message:
    'If an account uses this email, a sign-in link valid for 1 hour is on its way to it. Check your inbox (and spam ' +
    'folder); the link works once.',
};

/**
 * "Forgot password" (docs/api.md#forgotten-passwords): counts the request, and when the email is a user's and its
 * limit allows, mails the user a one-time sign-in link valid 1 hour, queued in the transaction that makes the link.
 * The answer is the same whatever the email; only a client over its address's limit is told (429).
 */
export async function requestPasswordReset(
  db: Kysely<DB>,
  body: PasswordResetBody,
  { ip, baseUrl }: { ip: string; baseUrl: string },
): Promise<{ answer: PasswordResetAccepted; afterAnswer: (() => Promise<void>) | null }> {
  const user = await findUserByEmail(db, body.email);
  const reserved = await reservePasswordReset(db, body.email, ip);
  // Recorded in the audit log under the user's organization, like a sign-in; an unknown email leaves no entry. Named
  // after the count has committed, so that the entry is not written inside the request's own work for a known email
  // only (its time would tell).
  if (user) attributeSignIn(user);
  if (reserved.retryAfter !== undefined) {
    const minutes = Math.ceil(reserved.retryAfter / 60);
    throw new ApiError(
      'TOO_MANY_REQUESTS',
      `Too many password reset requests from this address: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      undefined,
      { 'retry-after': String(reserved.retryAfter) },
    );
  }
  // The link and its mail are made once the answer has left (the route runs `afterAnswer` then), so the answer's time
  // is the same whether the email has an account or not.
  const afterAnswer = user && reserved.mayMail ? () => mailPasswordReset(db, user, baseUrl) : null;
  return { answer: PASSWORD_RESET_ANSWER, afterAnswer };
}

/** Makes the link and queues its mail in one transaction (the outbox, docs/api.md#mail). */
async function mailPasswordReset(db: Kysely<DB>, user: UserRow, baseUrl: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const link = await insertSignInLink(trx, user, { hours: PASSWORD_RESET_LINK_HOURS, forPasswordReset: true });
    await queueMail(trx, {
      organizationId: user.organization_id,
      kind: 'passwordReset',
      recipient: user.email,
      ...passwordResetMail(signInLink(baseUrl, link.token)),
    });
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The mail: the link, what it does, how long it lasts, and what to do if the reader did not ask for it. */
function passwordResetMail(link: string): { subject: string; text: string; html: string } {
  const lines = [
    'Someone (we hope you) asked to reset the password of your Patron dashboard account.',
    `This link signs you in once, within 1 hour; you can then choose a new password:`,
  ];
  const after =
    'If you did not ask for this, ignore this mail: your password stays as it is, and the link expires unused.';
  return {
    subject: 'Reset your Patron password',
    text: `${lines.join('\n\n')}\n\n${link}\n\n${after}\n`,
    html:
      lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('') +
      `<p><a href="${escapeHtml(link)}">Sign in and choose a new password</a></p>` +
      `<p>${escapeHtml(after)}</p>`,
  };
}

// ------------------------------------------------------------------------------------------------------- users

export async function allUsers(db: Kysely<DB>, organizationId: string): Promise<User[]> {
  return (await listUsers(db, organizationId)).map(toUser);
}

export async function addUser(
  db: Kysely<DB>,
  organizationId: string,
  body: CreateUserBody,
  baseUrl: string,
): Promise<{ user: User; signInLink: string }> {
  const row = await createUser(db, { organizationId, email: body.email, name: body.name, role: body.role });
  const link = await createSignInLink(db, row);
  return { user: toUser(row), signInLink: signInLink(baseUrl, link.token) };
}

export async function changeUser(
  db: Kysely<DB>,
  organizationId: string,
  id: string,
  body: UpdateUserBody,
): Promise<User> {
  const row = await updateUser(db, organizationId, id, body);
  if (!row) throw notFound('The user');
  return toUser(row);
}

export async function removeUser(db: Kysely<DB>, organizationId: string, id: string): Promise<void> {
  if (!(await deleteUser(db, organizationId, id))) throw notFound('The user');
}

// -------------------------------------------------------------------------------------------------------- keys

export async function allKeys(db: Kysely<DB>, organizationId: string): Promise<ApiKey[]> {
  return (await listKeys(db, organizationId)).map(toApiKey);
}

/** A new key with the chosen permissions: "all", or names of the catalog (an unknown one is 400 naming it). */
export async function addKey(
  db: Kysely<DB>,
  organizationId: string,
  catalog: readonly string[],
  body: CreateKeyBody,
): Promise<CreatedApiKey> {
  const unknown = body.permissions
    .map((permission, index) => ({ permission, index }))
    .filter(({ permission }) => permission !== ALL_PERMISSIONS && !catalog.includes(permission));
  if (unknown.length) {
    throw validationError(
      `Unknown permission "${unknown[0]!.permission}": use "all" or permissions of the catalog (grantablePermissions).`,
      unknown.map(({ index }) => ({
        path: `body.permissions.${index}`,
        message: 'is not a permission of the catalog',
      })),
    );
  }
  const permissions = body.permissions.includes(ALL_PERMISSIONS)
    ? [ALL_PERMISSIONS]
    : [...new Set(body.permissions)].sort();
  const { record, key } = await createKey(db, { organizationId, permissions, name: body.name });
  return { ...toApiKey(record), key };
}

export async function revokeKey(db: Kysely<DB>, organizationId: string, id: string): Promise<ApiKey> {
  const record = await revokeOrganizationKey(db, organizationId, id);
  if (!record) throw notFound('The API key');
  return toApiKey(record);
}
