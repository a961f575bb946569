/**
 * A dashboard user's locale through HTTP (docs/api.md#users-and-roles): stored with the user, changed by the user's own
 * `PATCH /v1/session`, refused on its field when it is not a supported locale, and shown wherever the user is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, createUser, type UserRow } from '../../src/auth/accounts.js';
import type { UserRole } from '../../src/db/schema.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

let t: TestApp;
let tenant: Tenant;
const db = () => t.testDatabase.database.db;
let counter = 0;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

/** A signed-in user of the organization: the session's cookie, CSRF token and a request helper. */
async function signedIn(role: UserRole) {
  const user: UserRow = await createUser(db(), {
    organizationId: tenant.organization.id,
    email: `locale${++counter}-${Date.now()}@example.com`,
    role,
  });
  const { token, session } = await createSession(db(), user);
  const cookie = `patron_session=${token}`;
  const as = (method: 'GET' | 'PATCH', url: string, body?: unknown) =>
    t.request({
      method,
      url,
      body,
      headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': session.csrf_token }) },
    });
  return { user, as };
}

describe('a user’s locale', () => {
  it('is en until the user picks another, and the choice is stored with the user', async () => {
    const { user, as } = await signedIn('viewer');
    expect((await as('GET', '/v1/session')).json().user.locale).toBe('en');

    const changed = await as('PATCH', '/v1/session', { locale: 'de' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ user: { id: user.id, locale: 'de' }, testMode: false });
    // Stored with the user: a later read of the session and the owners' list of users show it.
    expect((await as('GET', '/v1/session')).json().user.locale).toBe('de');
    const stored = await db()
      .selectFrom('users')
      .select('locale')
      .where('organization_id', '=', tenant.organization.id)
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.locale).toBe('de');
    const owner = await signedIn('owner');
    const users = (await owner.as('GET', '/v1/users')).json().data as { id: string; locale: string }[];
    expect(users.find((listed) => listed.id === user.id)?.locale).toBe('de');
    expect(users.find((listed) => listed.id === owner.user.id)?.locale).toBe('en');

    // The same value again changes nothing and still answers the session.
    const again = await as('PATCH', '/v1/session', { locale: 'de' });
    expect(again.statusCode).toBe(200);
    expect(again.json().user.locale).toBe('de');
    expect((await as('PATCH', '/v1/session', { locale: 'en' })).json().user.locale).toBe('en');
  });

  it('is refused on its field when it is not a supported locale, and nothing changes', async () => {
    const { as } = await signedIn('admin');
    for (const locale of ['fr', 'DE', 'de-DE', '', 7, null]) {
      const refused = await as('PATCH', '/v1/session', { locale });
      expect(refused.statusCode, `${JSON.stringify(locale)}: ${refused.body}`).toBe(400);
      const error = refused.json().error as { code: string; details: { path: string; message: string }[] };
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.map((detail) => detail.path)).toContain('body.locale');
    }
    // A refused locale beside a valid test-mode switch changes neither.
    expect((await as('PATCH', '/v1/session', { locale: 'xx', testMode: true })).statusCode).toBe(400);
    const session = (await as('GET', '/v1/session')).json();
    expect(session).toMatchObject({ testMode: false, user: { locale: 'en' } });
    // An empty body names nothing to change.
    expect((await as('PATCH', '/v1/session', {})).statusCode).toBe(400);
  });

  it('changes with the test mode in one request, and a key cannot set it', async () => {
    const { as } = await signedIn('owner');
    const both = await as('PATCH', '/v1/session', { locale: 'de', testMode: true });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json()).toMatchObject({ testMode: true, user: { locale: 'de' } });
    // In test mode the user is still the live organization's, and so is the locale.
    expect((await as('PATCH', '/v1/session', { testMode: false })).json()).toMatchObject({
      testMode: false,
      user: { locale: 'de' },
    });
    const byKey = await t.request({
      method: 'PATCH',
      url: '/v1/session',
      body: { locale: 'de' },
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(byKey.statusCode).toBe(403);
  });
});
