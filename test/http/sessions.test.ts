/**
 * Dashboard sessions through HTTP (docs/api.md#dashboard-sessions): signing in and out, links, throttling, CSRF and
 * Origin, roles, users and keys, and that sessions are never charged to the organization's bucket.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink, createUser, setPasswordHash, type UserRow } from '../../src/auth/accounts.js';
import { hashPassword } from '../../src/auth/passwords.js';
import type { UserRole } from '../../src/db/schema.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

let t: TestApp;
let tenant: Tenant;
const PASSWORD = 'correct horse battery';
const db = () => t.testDatabase.database.db;
let counter = 0;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

interface Member {
  user: UserRow;
  email: string;
}

/** A user of the organization, with the shared password unless told otherwise. */
async function member(organizationId: string, role: UserRole, password: string | null = PASSWORD): Promise<Member> {
  const email = `user${++counter}-${Date.now()}@Example.com`;
  const user = await createUser(db(), { organizationId, email, role });
  if (password) await setPasswordHash(db(), user, await hashPassword(password), undefined);
  return { user, email };
}

interface SignedIn {
  cookie: string;
  csrfToken: string;
  body: any;
}

const cookieFrom = (setCookie: string | string[] | undefined) => {
  const line = [setCookie ?? []].flat().find((value) => value.startsWith('patron_session='));
  return line?.split(';')[0];
};

async function signIn(body: object, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/v1/session', body, headers });
}

async function signedIn(email: string, password = PASSWORD): Promise<SignedIn> {
  const response = await signIn({ email, password });
  expect(response.statusCode, response.body).toBe(201);
  return {
    cookie: cookieFrom(response.headers['set-cookie'])!,
    csrfToken: response.json().csrfToken,
    body: response.json(),
  };
}

/** A request with the session: its cookie, and its CSRF token on every method but GET. */
function as(
  session: SignedIn,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return t.request({
    method,
    url,
    body,
    headers: {
      cookie: session.cookie,
      ...(method === 'GET' ? {} : { 'x-csrf-token': session.csrfToken }),
      ...headers,
    },
  });
}

describe('POST /v1/session', () => {
  it('signs in with email and password (any case): the session, and an HttpOnly SameSite=Lax cookie', async () => {
    const owner = await member(tenant.organization.id, 'owner');
    const response = await signIn({ email: owner.email.toUpperCase(), password: PASSWORD });
    expect(response.statusCode, response.body).toBe(201);
    const setCookie = [response.headers['set-cookie']].flat().join('\n');
    expect(setCookie).toMatch(/^patron_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    const body = response.json();
    expect(body).toEqual({
      user: {
        id: owner.user.id,
        organizationId: tenant.organization.id,
        email: owner.email,
        name: null,
        role: 'owner',
        hasPassword: true,
        createdAt: expect.any(String),
        lastSignedInAt: expect.any(String),
        locale: 'en',
      },
      organization: { id: tenant.organization.id, name: tenant.organization.name },
      testMode: false,
      passwordResetUntil: null,
      permissions: expect.arrayContaining(['orders:write', 'keys:manage', 'users:manage']),
      grantablePermissions: expect.arrayContaining(['orders:read', 'organization:write']),
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
    });
    expect(body.grantablePermissions).not.toContain('users:manage');
    // The token is stored only as its hash.
    const token = cookieFrom(response.headers['set-cookie'])!.split('=')[1]!;
    const stored = JSON.stringify(await db().selectFrom('sessions').selectAll().execute());
    expect(stored).not.toContain(token);
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const proxied = await startTestApp({ config: { trustProxy: '127.0.0.1' } });
    try {
      const organization = (await proxied.tenant()).organization;
      const email = `proxied-${Date.now()}@example.com`;
      const user = await createUser(proxied.testDatabase.database.db, {
        organizationId: organization.id,
        email,
        role: 'viewer',
      });
      await setPasswordHash(proxied.testDatabase.database.db, user, await hashPassword(PASSWORD), undefined);
      const response = await proxied.request({
        method: 'POST',
        url: '/v1/session',
        body: { email, password: PASSWORD },
        headers: {
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'patron.example',
          origin: 'https://patron.example',
        },
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(String(response.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await proxied.close();
    }
  });

  it('answers the same 401 for a wrong password and an unknown email', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const wrong = await signIn({ email: viewer.email, password: 'not the password' });
    const unknown = await signIn({ email: `nobody-${Date.now()}@example.com`, password: PASSWORD });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: { code: 'UNAUTHORIZED', message: 'The email or password is not right.' },
      });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers 429 after 5 failures within 15 minutes, even with the right password, and counts unknown emails too', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    for (let i = 0; i < 5; i++) {
      expect((await signIn({ email: viewer.email, password: `wrong ${i} password` })).statusCode).toBe(401);
    }
    const throttled = await signIn({ email: viewer.email, password: 'wrong again' });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json().error.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(800);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(900);
    const right = await signIn({ email: viewer.email.toLowerCase(), password: PASSWORD });
    expect(right.statusCode).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();

    const ghost = `ghost-${Date.now()}@example.com`;
    for (let i = 0; i < 5; i++) await signIn({ email: ghost, password: 'whatever it is' });
    expect((await signIn({ email: ghost, password: 'whatever it is' })).statusCode).toBe(429);

    // Once the failures are older than the window, the right password signs in again.
    await db()
      .updateTable('sign_in_failures')
      .set({ failed_at: sql<Date>`now() - interval '16 minutes'` })
      .where('email', '=', viewer.email.toLowerCase())
      .execute();
    expect((await signIn({ email: viewer.email, password: PASSWORD })).statusCode).toBe(201);
  });

  it('counts concurrent wrong passwords atomically: of 40 at once, at most 5 answer 401 and the rest 429', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signIn({ email: viewer.email, password: `wrong guess ${i}` })),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(35);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect((await signIn({ email: viewer.email, password: PASSWORD })).statusCode).toBe(429);
  });

  it('counts concurrent wrong current passwords on PUT /v1/session/password with the sign-ins', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        as(session, 'PUT', '/v1/session/password', {
          currentPassword: `wrong guess ${i}`,
          newPassword: 'a much longer new password',
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 403).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(15);
  });

  it('signs in once with a link token; a used or expired link is 401', async () => {
    const viewer = await member(tenant.organization.id, 'viewer', null);
    const link = await createSignInLink(db(), viewer.user);
    const first = await signIn({ signInToken: link.token });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().user).toMatchObject({ id: viewer.user.id, hasPassword: false });
    const again = await signIn({ signInToken: link.token });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.message).toMatch(/used or has expired/);

    const expiring = await createSignInLink(db(), viewer.user);
    await db()
      .updateTable('sign_in_links')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('user_id', '=', viewer.user.id)
      .where('used_at', 'is', null)
      .execute();
    expect((await signIn({ signInToken: expiring.token })).statusCode).toBe(401);
    expect((await signIn({ signInToken: 'made-up' })).statusCode).toBe(401);
  });

  it('refuses a body that is neither email and password nor a token (400), and another site (403)', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    expect((await signIn({ email: viewer.email })).statusCode).toBe(400);
    expect((await signIn({ signInToken: 'x', email: viewer.email, password: PASSWORD })).statusCode).toBe(400);
    expect((await signIn({ email: viewer.email, password: PASSWORD, extra: 1 })).statusCode).toBe(400);
    const crossSite = await signIn({ email: viewer.email, password: PASSWORD }, { origin: 'https://evil.example' });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.headers['set-cookie']).toBeUndefined();
    const sameSite = await signIn({ email: viewer.email, password: PASSWORD }, { origin: 'http://localhost:80' });
    expect(sameSite.statusCode, sameSite.body).toBe(201);
  });
});

describe('GET and DELETE /v1/session', () => {
  it('answers the session (with its CSRF token) to its cookie, 401 without one', async () => {
    const admin = await member(tenant.organization.id, 'admin');
    const session = await signedIn(admin.email);
    const response = await as(session, 'GET', '/v1/session');
    expect(response.statusCode).toBe(200);
    expect(response.json().csrfToken).toBe(session.csrfToken);
    expect(response.json().permissions).toContain('keys:manage');
    expect(response.json().permissions).not.toContain('users:manage');
    expect((await t.request({ url: '/v1/session' })).statusCode).toBe(401);
    expect((await t.request({ url: '/v1/session', headers: { cookie: 'patron_session=nonsense' } })).statusCode).toBe(
      401,
    );
  });

  it('signs out: the copied cookie is dead too, and the cookie is cleared', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    const copy = { ...session };
    const out = await as(session, 'DELETE', '/v1/session');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^patron_session=; .*Expires=Thu, 01 Jan 1970/);
    const afterwards = await as(copy, 'GET', '/v1/organization');
    expect(afterwards.statusCode).toBe(401);
  });

  it('ends a session 12 hours after its last use', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    await db()
      .updateTable('sessions')
      .set({ last_used_at: sql<Date>`now() - interval '12 hours 1 second'` })
      .where('user_id', '=', viewer.user.id)
      .execute();
    expect((await as(session, 'GET', '/v1/session')).statusCode).toBe(401);
  });

  it('ends a session 7 days after sign-in whatever its use', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    await db()
      .updateTable('sessions')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('user_id', '=', viewer.user.id)
      .execute();
    expect((await as(session, 'GET', '/v1/session')).statusCode).toBe(401);
  });
});

describe('PUT /v1/session/password', () => {
  it('sets a first password without the current one, then needs it; other sessions end', async () => {
    const viewer = await member(tenant.organization.id, 'viewer', null);
    const link = await createSignInLink(db(), viewer.user);
    const first = await signIn({ signInToken: link.token });
    const session = {
      cookie: cookieFrom(first.headers['set-cookie'])!,
      csrfToken: first.json().csrfToken,
      body: first.json(),
    };
    expect((await as(session, 'PUT', '/v1/session/password', { newPassword: 'short' })).statusCode).toBe(400);
    expect((await as(session, 'PUT', '/v1/session/password', { newPassword: PASSWORD })).statusCode).toBe(204);
    const other = await signedIn(viewer.email);
    const missing = await as(session, 'PUT', '/v1/session/password', { newPassword: 'another long one' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([{ path: 'body.currentPassword', message: expect.any(String) }]);
    const wrong = await as(session, 'PUT', '/v1/session/password', {
      currentPassword: 'not it at all',
      newPassword: 'another long one',
    });
    expect(wrong.statusCode).toBe(403);
    const changed = await as(session, 'PUT', '/v1/session/password', {
      currentPassword: PASSWORD,
      newPassword: 'another long one',
    });
    expect(changed.statusCode).toBe(204);
    expect((await as(session, 'GET', '/v1/session')).statusCode).toBe(200);
    expect((await as(other, 'GET', '/v1/session')).statusCode).toBe(401);
    expect((await signIn({ email: viewer.email, password: 'another long one' })).statusCode).toBe(201);
  });

  it('refuses a new password that is easy to guess (400 saying why), and keeps the old one', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    const weak = [
      ['aaaaaaaaaa', /repeats one character/],
      ['password123', /commonly used password|most used passwords/],
      ['qwertyuiop', /most used passwords|keyboard|row of keys/],
      [viewer.email, /too easy to guess/],
    ] as const;
    for (const [newPassword, reason] of weak) {
      const refused = await as(session, 'PUT', '/v1/session/password', { currentPassword: PASSWORD, newPassword });
      expect(refused.statusCode, newPassword).toBe(400);
      const { error } = refused.json();
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual([{ path: 'body.newPassword', message: expect.stringMatching(reason) }]);
      expect(error.details[0].message).toMatch(/too easy to guess: .* \(strength [0-2] of 4, at least 3 needed\)/);
      expect(error.message).toContain('The new password is too easy to guess');
    }
    // Nothing changed, and the refusals were not counted as wrong current passwords.
    expect((await signIn({ email: viewer.email, password: PASSWORD })).statusCode).toBe(201);
    const strong = await as(session, 'PUT', '/v1/session/password', {
      currentPassword: PASSWORD,
      newPassword: 'violet tractor seventeen',
    });
    expect(strong.statusCode, strong.body).toBe(204);
  });
});

describe('session requests on the API', () => {
  it('refuses a write without the CSRF token, or with a wrong one (403), and changes nothing', async () => {
    const owner = await member(tenant.organization.id, 'owner');
    const session = await signedIn(owner.email);
    const before = (await t.request({ url: '/v1/organization', key: tenant.key })).json();
    for (const headers of [
      { 'x-csrf-token': '' },
      { 'x-csrf-token': 'wrong' },
      { 'x-csrf-token': `${session.csrfToken}x` },
    ]) {
      const response = await as(session, 'PATCH', '/v1/organization', { name: 'Changed by a forged form' }, headers);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.message).toMatch(/X-CSRF-Token/);
    }
    const noHeader = await t.request({
      method: 'PATCH',
      url: '/v1/organization',
      body: { name: 'Changed by a forged form' },
      headers: { cookie: session.cookie },
    });
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json().error.message).toMatch(/Missing X-CSRF-Token/);
    expect((await t.request({ url: '/v1/organization', key: tenant.key })).json()).toEqual(before);
  });

  it('refuses a write from another Origin (403) even with the right token', async () => {
    const owner = await member(tenant.organization.id, 'owner');
    const session = await signedIn(owner.email);
    const response = await as(
      session,
      'POST',
      '/v1/keys',
      { permissions: ['all'] },
      { origin: 'https://evil.example' },
    );
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toMatch(/Origin/);
    expect((await as(session, 'GET', '/v1/keys')).json().data).toHaveLength(1);
  });

  it('lets a viewer read but not write (403 naming the role)', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    expect((await as(session, 'GET', '/v1/products')).statusCode).toBe(200);
    const write = await as(session, 'POST', '/v1/sites', {
      data: { name: 'Viewer shop', domain: 'viewer.example', platform: 'custom', currencyCode: 'EUR' },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.message).toMatch(/role "viewer"/);
    expect((await as(session, 'GET', '/v1/keys')).statusCode).toBe(403);
  });

  it('lets an admin write through the API', async () => {
    const admin = await member(tenant.organization.id, 'admin');
    const session = await signedIn(admin.email);
    const response = await as(session, 'POST', '/v1/sites', {
      data: { name: 'Admin shop', domain: `admin-${counter}.example`, platform: 'custom', currencyCode: 'EUR' },
    });
    expect(response.statusCode, response.body).toBe(201);
  });

  it('uses the key, not the cookie, when an Authorization header is present', async () => {
    const viewer = await member(tenant.organization.id, 'viewer');
    const session = await signedIn(viewer.email);
    const withKey = await t.request({
      url: '/v1/organization',
      key: tenant.key,
      headers: { cookie: session.cookie },
    });
    expect(withKey.headers['ratelimit']).toBeDefined();
    const badKey = await t.request({
      url: '/v1/organization',
      headers: { cookie: session.cookie, authorization: 'Bearer nonsense' },
    });
    expect(badKey.statusCode).toBe(401);
  });

  it('refuses a secret key on every session-only endpoint (403), before charging it', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/v1/session'],
      ['DELETE', '/v1/session'],
      ['PUT', '/v1/session/password', { newPassword: 'long enough password' }],
      ['GET', '/v1/users'],
      ['POST', '/v1/users', { email: 'k@example.com', role: 'viewer' }],
      ['PATCH', `/v1/users/${crypto.randomUUID()}`, { name: 'x' }],
      ['DELETE', `/v1/users/${crypto.randomUUID()}`],
      ['GET', '/v1/keys'],
      ['POST', '/v1/keys', { permissions: ['all'] }],
      ['POST', `/v1/keys/${crypto.randomUUID()}/revoke`],
    ];
    for (const [method, url, body] of calls) {
      const response = await t.request({ method: method as 'GET', url, key: tenant.key, body });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().error.message).toBe(
        'This endpoint answers only to a signed-in dashboard session, not to an API key.',
      );
      expect(response.headers['ratelimit']).toBeUndefined();
    }
  });
});

describe('the rate limit and sessions', () => {
  it('charges 700 dashboard requests in a burst to no bucket, and answers them without RateLimit headers', async () => {
    const own = await t.tenant();
    const owner = await member(own.organization.id, 'owner');
    const session = await signedIn(owner.email);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 700; i++) {
      const response = await as(session, 'GET', '/v1/organization');
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (i % 100 === 0) {
        expect(response.headers['ratelimit']).toBeUndefined();
        expect(response.headers['ratelimit-policy']).toBeUndefined();
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 700 });
    const keyed = await t.request({ url: '/v1/organization', key: own.key });
    expect(keyed.statusCode).toBe(200);
    // Full (600) before this request, which cost one token.
    expect(keyed.headers['ratelimit']).toBe('"org";r=599;t=1');
    expect(keyed.headers['ratelimit-policy']).toBe('"org";q=600;w=60');
  });
});

describe('users (owners only)', () => {
  it('lets an owner create, list, change and delete users; the link signs the new user in once', async () => {
    const own = await t.tenant();
    const owner = await member(own.organization.id, 'owner');
    const session = await signedIn(owner.email);
    const created = await as(session, 'POST', '/v1/users', {
      email: 'New.Person@Example.com',
      name: ' New ',
      role: 'viewer',
    });
    expect(created.statusCode, created.body).toBe(201);
    const { user, signInLink } = created.json();
    expect(user).toMatchObject({ email: 'New.Person@Example.com', name: 'New', role: 'viewer', hasPassword: false });
    expect(signInLink).toMatch(/^http:\/\/localhost\/dashboard\/sign-in#token=[A-Za-z0-9_-]{43}$/);
    const token = signInLink.split('#token=')[1];
    expect((await signIn({ signInToken: token })).statusCode).toBe(201);
    expect((await signIn({ signInToken: token })).statusCode).toBe(401);

    const duplicate = await as(session, 'POST', '/v1/users', { email: 'new.person@example.COM', role: 'admin' });
    expect(duplicate.statusCode).toBe(409);

    const list = await as(session, 'GET', '/v1/users');
    expect(list.json()).toEqual({
      data: [expect.objectContaining({ id: owner.user.id }), expect.objectContaining({ id: user.id })],
      nextCursor: null,
    });

    const changed = await as(session, 'PATCH', `/v1/users/${user.id}`, { role: 'admin', name: null });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ role: 'admin', name: null });

    const deleted = await as(session, 'DELETE', `/v1/users/${user.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await as(session, 'DELETE', `/v1/users/${user.id}`)).statusCode).toBe(404);
  });

  it("ends a deleted user's sessions", async () => {
    const own = await t.tenant();
    const owner = await signedIn((await member(own.organization.id, 'owner')).email);
    const leaver = await member(own.organization.id, 'admin');
    const leaving = await signedIn(leaver.email);
    expect((await as(owner, 'DELETE', `/v1/users/${leaver.user.id}`)).statusCode).toBe(204);
    expect((await as(leaving, 'GET', '/v1/organization')).statusCode).toBe(401);
  });

  it('refuses admins and viewers (403)', async () => {
    for (const role of ['admin', 'viewer'] as const) {
      const session = await signedIn((await member(tenant.organization.id, role)).email);
      expect((await as(session, 'GET', '/v1/users')).statusCode).toBe(403);
      const create = await as(session, 'POST', '/v1/users', { email: `${role}-made@example.com`, role: 'owner' });
      expect(create.statusCode).toBe(403);
      expect(create.json().error.message).toMatch(/users:manage/);
    }
  });

  it('keeps the last owner: no demotion or deletion (409), until another owner exists', async () => {
    const own = await t.tenant();
    const owner = await member(own.organization.id, 'owner');
    const session = await signedIn(owner.email);
    const demote = await as(session, 'PATCH', `/v1/users/${owner.user.id}`, { role: 'admin' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().error.code).toBe('CONFLICT');
    expect((await as(session, 'DELETE', `/v1/users/${owner.user.id}`)).statusCode).toBe(409);
    expect((await as(session, 'GET', '/v1/session')).json().user.role).toBe('owner');

    const second = await member(own.organization.id, 'admin');
    expect((await as(session, 'PATCH', `/v1/users/${second.user.id}`, { role: 'owner' })).statusCode).toBe(200);
    expect((await as(session, 'PATCH', `/v1/users/${owner.user.id}`, { role: 'viewer' })).statusCode).toBe(200);
  });

  it("answers another organization's user like a missing one (404)", async () => {
    const own = await t.tenant();
    const session = await signedIn((await member(own.organization.id, 'owner')).email);
    const stranger = await member(tenant.organization.id, 'viewer');
    for (const response of [
      await as(session, 'PATCH', `/v1/users/${stranger.user.id}`, { name: 'Taken over' }),
      await as(session, 'DELETE', `/v1/users/${stranger.user.id}`),
      await as(session, 'PATCH', `/v1/users/${crypto.randomUUID()}`, { name: 'Nobody' }),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'The user was not found.' } });
    }
    const untouched = await db().selectFrom('users').selectAll().where('id', '=', stranger.user.id).executeTakeFirst();
    expect(untouched?.name).toBeNull();
  });
});

describe('keys (owners and admins)', () => {
  it('creates a key shown once, lists it without the secret, revokes it, and the key then 401s', async () => {
    const own = await t.tenant();
    const admin = await member(own.organization.id, 'admin');
    const session = await signedIn(admin.email);
    const created = await as(session, 'POST', '/v1/keys', {
      name: 'Storefront',
      permissions: ['products:read', 'orders:read', 'products:read'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json();
    expect(key).toEqual({
      id: expect.any(String),
      name: 'Storefront',
      prefix: key.key.slice(0, 11),
      permissions: ['orders:read', 'products:read'],
      createdAt: expect.any(String),
      revokedAt: null,
      key: expect.stringMatching(/^sk_[0-9A-Za-z]{40}$/),
    });
    expect((await t.request({ url: '/v1/products', key: key.key })).statusCode).toBe(200);

    const list = await as(session, 'GET', '/v1/keys');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.key);
    expect(list.json().data.map((k: { id: string }) => k.id)).toContain(key.id);

    const revoked = await as(session, 'POST', `/v1/keys/${key.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    const again = await as(session, 'POST', `/v1/keys/${key.id}/revoke`);
    expect(again.json().revokedAt).toBe(revoked.json().revokedAt);
    expect((await t.request({ url: '/v1/products', key: key.key })).statusCode).toBe(401);
  });

  it('refuses unknown permissions and an empty list (400), and makes nothing', async () => {
    const own = await t.tenant();
    const session = await signedIn((await member(own.organization.id, 'owner')).email);
    const unknown = await as(session, 'POST', '/v1/keys', { permissions: ['orders:read', 'users:manage'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([{ path: 'body.permissions.1', message: expect.any(String) }]);
    expect((await as(session, 'POST', '/v1/keys', { permissions: [] })).statusCode).toBe(400);
    expect((await as(session, 'GET', '/v1/keys')).json().data).toHaveLength(1);
  });

  it("answers another organization's key like a missing one (404), and leaves it working", async () => {
    const own = await t.tenant();
    const session = await signedIn((await member(own.organization.id, 'owner')).email);
    const [foreign] = await db()
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    const response = await as(session, 'POST', `/v1/keys/${foreign!.id}/revoke`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'The API key was not found.' } });
    expect((await t.request({ url: '/v1/organization', key: tenant.key })).statusCode).toBe(200);
  });
});
