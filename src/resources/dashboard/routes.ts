import type { FastifyReply, FastifyRequest } from 'fastify';
import { KEY_MANAGEMENT, USER_MANAGEMENT } from '../../auth/accounts.js';
import { authOf, ownOrigin, SESSION_COOKIE } from '../../http/auth.js';
import type { PatronApp, PlatformServices, SessionLookup } from '../../core/types.js';
import { IdParams } from '../../records/common.js';
import { ApiKey, CreatedApiKey } from '../../records/api-key.js';
import { User } from '../../records/user.js';
import {
  ApiKeyPage,
  ChangePasswordBody,
  PasswordResetAccepted,
  PasswordResetBody,
  CreateKeyBody,
  CreatedUser,
  CreateUserBody,
  Session,
  SignInBody,
  UpdateSessionBody,
  UpdateUserBody,
  UserPage,
} from './schemas.js';
import {
  addKey,
  addUser,
  allKeys,
  allUsers,
  changePassword,
  changeUser,
  checkSignInBody,
  removeUser,
  requestPasswordReset,
  revokeKey,
  sessionAnswer,
  attributeToLive,
  setTestMode,
  signIn,
  signOut,
} from './service.js';

const TAGS = ['dashboard'];

/** A "forgot password" request's mail, made after its answer has left. */
const afterAnswers = new WeakMap<FastifyRequest, () => Promise<void>>();

/** The session of a session-only route (the access check let nothing else through). */
function sessionOf(request: FastifyRequest): SessionLookup {
  const session = authOf(request).session;
  if (!session) throw new Error(`Route ${request.routeOptions.url} is session-only but has no session`);
  return session;
}

/**
 * The organization whose users a session manages: its user's own (live) organization, in test mode too: users belong
 * to the live organization, and so do the audit entries of their changes (docs/api.md#test-mode).
 */
function usersOrganization(request: FastifyRequest): string {
  const session = sessionOf(request);
  attributeToLive(session);
  return session.session.organization_id;
}

/** The cookie's attributes (docs/api.md#dashboard-sessions): Secure whenever the client came over https. */
const cookieOptions = (request: FastifyRequest) =>
  ({ httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https' }) as const;

function endCookie(request: FastifyRequest, reply: FastifyReply) {
  void reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/** Sign-in, the session, the organization's users and its secret keys: what the dashboard manages. */
export function dashboardRoutes(app: PatronApp, { db, permissionCatalog, config }: PlatformServices): void {
  app.post(
    '/session',
    {
      config: { access: 'public', checkBody: checkSignInBody },
      schema: {
        operationId: 'createSession',
        summary: 'Sign in to the dashboard with an email and password, or a one-time sign-in link',
        description:
          'Answers the session and sets the `patron_session` cookie (HttpOnly, SameSite=Lax, Secure over https). ' +
          'Five failed sign-ins for one email within 15 minutes make the next attempts 429 until the oldest of them ' +
          'is 15 minutes old.',
        tags: TAGS,
        body: SignInBody,
        response: { 201: Session },
      },
    },
    async (request, reply) => {
      const { token, answer } = await signIn(db, permissionCatalog, request.body);
      void reply.setCookie(SESSION_COOKIE, token, cookieOptions(request));
      return reply.code(201).send(answer);
    },
  );

  app.post(
    '/session/password-reset',
    {
      config: {
        access: 'public',
        refusals: { 429: 'too many requests from this address within the hour; see Retry-After' },
      },
      // The mail is made once the answer has left, so a known email's answer takes as long as an unknown one's
      // (docs/api.md#forgotten-passwords). A failure is logged; the person can ask again.
      onResponse: (request, _reply, done) => {
        const work = afterAnswers.get(request);
        afterAnswers.delete(request);
        work?.().catch((error: unknown) => request.log.error({ err: error }, 'could not queue a password reset mail'));
        done();
      },
      schema: {
        operationId: 'requestPasswordReset',
        summary: 'Forgot password: mail a one-time sign-in link, valid 1 hour, to this email if a user has it',
        description:
          'Answers 202 with the same body whether the email has an account or not. At most 3 mails per email and ' +
          '10 requests per client address within an hour; past the first limit nothing more is sent (the answer is ' +
          'the same), past the second the answer is 429 with Retry-After.',
        tags: TAGS,
        body: PasswordResetBody,
        response: { 202: PasswordResetAccepted },
      },
    },
    async (request, reply) => {
      // Links in mail are built on PUBLIC_URL when it is set, never on a Host header a caller chose.
      const baseUrl = config.publicUrl ?? ownOrigin(request) ?? '';
      const { answer, afterAnswer } = await requestPasswordReset(db, request.body, { ip: request.ip, baseUrl });
      if (afterAnswer) afterAnswers.set(request, afterAnswer);
      return reply.code(202).send(answer);
    },
  );

  app.get(
    '/session',
    {
      config: { access: 'session', permission: 'any' },
      schema: {
        operationId: 'getSession',
        summary: 'The signed-in user, organization, permissions and CSRF token',
        tags: TAGS,
        response: { 200: Session },
      },
    },
    async (request) => sessionAnswer(sessionOf(request), permissionCatalog),
  );

  app.patch(
    '/session',
    {
      config: { access: 'session', permission: 'any' },
      schema: {
        operationId: 'updateSession',
        summary: "Switch the session into or out of test mode, or change the signed-in user's locale",
        description:
          "In test mode every resource and settings endpoint reads and writes the organization's test data (its " +
          "test twin: the data test keys, `sk_test_…`, act on); the users and the session stay the organization's. " +
          "The mode is kept with the session, so it survives a reload. `locale` is the signed-in user's own, stored " +
          'with the user: the dashboard formats numbers and dates in it.',
        tags: TAGS,
        body: UpdateSessionBody,
        response: { 200: Session },
      },
    },
    async (request) => setTestMode(db, permissionCatalog, sessionOf(request), request.body),
  );

  app.delete(
    '/session',
    {
      config: { access: 'session', permission: 'any' },
      schema: {
        operationId: 'deleteSession',
        summary: 'Sign out: the session ends everywhere its cookie was copied',
        tags: TAGS,
        response: { 204: { type: 'null', description: 'Signed out; the cookie is cleared.' } },
      },
    },
    async (request, reply) => {
      attributeToLive(sessionOf(request));
      await signOut(db, sessionOf(request));
      endCookie(request, reply);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/session/password',
    {
      config: {
        access: 'session',
        permission: 'any',
        refusals: { 429: 'too many wrong current passwords for this email; see Retry-After' },
      },
      schema: {
        operationId: 'changeSessionPassword',
        summary: "Set the signed-in user's password; the user's other sessions end",
        description:
          'currentPassword is required when the user has a password; a wrong one is 403 and counts as a failed sign-in.',
        tags: TAGS,
        body: ChangePasswordBody,
        response: { 204: { type: 'null', description: 'The password is set.' } },
      },
    },
    async (request, reply) => {
      attributeToLive(sessionOf(request));
      await changePassword(db, sessionOf(request), request.body);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/users',
    {
      config: { access: 'session', permission: USER_MANAGEMENT },
      schema: {
        operationId: 'listUsers',
        summary: "The organization's dashboard users (owners only)",
        tags: TAGS,
        response: { 200: UserPage },
      },
    },
    async (request) => ({ data: await allUsers(db, usersOrganization(request)), nextCursor: null }),
  );

  app.post(
    '/users',
    {
      config: {
        access: 'session',
        permission: USER_MANAGEMENT,
        refusals: { 409: 'a user already has this email (emails are unique across the deployment)' },
      },
      schema: {
        operationId: 'createUser',
        summary: 'Add a dashboard user and make a one-time sign-in link, valid 24 hours (owners only)',
        tags: TAGS,
        body: CreateUserBody,
        response: { 201: CreatedUser },
      },
    },
    async (request, reply) => {
      const baseUrl = ownOrigin(request) ?? '';
      return reply.code(201).send(await addUser(db, usersOrganization(request), request.body, baseUrl));
    },
  );

  app.patch(
    '/users/:id',
    {
      config: {
        access: 'session',
        permission: USER_MANAGEMENT,
        refusals: { 409: 'the change would leave the organization without an owner' },
      },
      schema: {
        operationId: 'updateUser',
        summary: "Change a user's name or role (owners only)",
        tags: TAGS,
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: User },
      },
    },
    async (request) => changeUser(db, usersOrganization(request), request.params.id, request.body),
  );

  app.delete(
    '/users/:id',
    {
      config: {
        access: 'session',
        permission: USER_MANAGEMENT,
        refusals: { 409: "the user is the organization's last owner" },
      },
      schema: {
        operationId: 'deleteUser',
        summary: "Delete a user; the user's sessions end (owners only)",
        tags: TAGS,
        params: IdParams,
        response: { 204: { type: 'null', description: 'The user is deleted.' } },
      },
    },
    async (request, reply) => {
      await removeUser(db, usersOrganization(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/keys',
    {
      config: { access: 'session', permission: KEY_MANAGEMENT },
      schema: {
        operationId: 'listApiKeys',
        summary: "The organization's secret keys, revoked ones included, never the secrets (owners and admins)",
        tags: TAGS,
        response: { 200: ApiKeyPage },
      },
    },
    async (request) => ({ data: await allKeys(db, authOf(request).organizationId), nextCursor: null }),
  );

  app.post(
    '/keys',
    {
      config: { access: 'session', permission: KEY_MANAGEMENT },
      schema: {
        operationId: 'createApiKey',
        summary:
          'Make a secret key with the chosen permissions; the key is shown only in this answer (owners and admins)',
        tags: TAGS,
        body: CreateKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await addKey(db, authOf(request).organizationId, permissionCatalog, request.body)),
  );

  app.post(
    '/keys/:id/revoke',
    {
      config: { access: 'session', permission: KEY_MANAGEMENT },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke a secret key: it is refused from its next request (owners and admins)',
        tags: TAGS,
        params: IdParams,
        response: { 200: ApiKey },
      },
    },
    async (request) => revokeKey(db, authOf(request).organizationId, request.params.id),
  );
}
