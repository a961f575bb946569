/**
 * "Forgot password" through HTTP (docs/api.md#forgotten-passwords): POST /v1/session/password-reset answers the same
 * for a known and an unknown email; a known one gets a mail through the outbox to a real SMTP server on 127.0.0.1
 * with a one-time sign-in link valid 1 hour, which signs in once and lets that session choose a new password without
 * the current one; a used or expired link is refused; the per-email and per-address limits; the audit log entry; and
 * the mail's body is blanked once sent, so the link is nowhere in the database.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink, createUser, setPasswordHash, type UserRow } from '../../src/auth/accounts.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { startMailSender, type MailSender } from '../../src/resources/mail/index.js';
import { BLANKED_BODY } from '../../src/resources/mail/queries.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { quietLogger } from '../support/webhooks.js';

const PUBLIC_URL = 'https://patron.example.test';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'violet tractor seventeen';

let t: TestApp;
let tenant: Tenant;
let smtp: SmtpReceiver;
const running: MailSender[] = [];
const db = () => t.testDatabase.database.db;
let counter = 0;
let ipCounter = 0;

beforeAll(async () => {
  t = await startTestApp({ config: { publicUrl: PUBLIC_URL, trustProxy: '127.0.0.1' } });
  tenant = await t.tenant();
  smtp = await startSmtpReceiver();
  const sender = startMailSender({
    db: db(),
    smtpUrl: smtp.url,
    mailFrom: 'Patron <patron@example.com>',
    logger: quietLogger,
    pollMs: 50,
    sweepMs: 50,
  });
  running.push(sender);
});
afterEach(() => {
  smtp.received.splice(0);
});
afterAll(async () => {
  await Promise.all(running.splice(0).map((sender) => sender.stop()));
  await smtp?.close();
  await t?.close();
});

async function member(password: string | null = PASSWORD): Promise<{ user: UserRow; email: string }> {
  const email = `reset${++counter}-${Date.now()}@Example.com`;
  const user = await createUser(db(), { organizationId: tenant.organization.id, email, role: 'owner' });
  if (password) await setPasswordHash(db(), user, await hashPassword(password), undefined);
  return { user, email };
}

/** A client address of its own per test (through the trusted proxy), so the per-address limit is the test's. */
const newIp = () => `198.51.100.${++ipCounter}`;

const requestReset = (email: string, ip: string, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: '/v1/session/password-reset',
    body: { email },
    headers: { 'x-forwarded-for': ip, ...headers },
  });

const cookieFrom = (setCookie: string | string[] | undefined) =>
  [setCookie ?? []]
    .flat()
    .find((value) => value.startsWith('patron_session='))
    ?.split(';')[0];

const signIn = (body: object) => t.request({ method: 'POST', url: '/v1/session', body });

/** The link of the one mail received for `email`. */
async function linkMailedTo(email: string): Promise<{ link: string; token: string; subject: string }> {
  const [mail] = await smtp.waitFor(1);
  expect(mail!.envelopeTo).toEqual([email.toLowerCase()]);
  const link = /(https:\/\/\S+\/dashboard\/sign-in#token=[A-Za-z0-9_-]+)/.exec(mail!.parsed.text ?? '')?.[1];
  expect(link, mail!.parsed.text).toBeDefined();
  return { link: link!, token: link!.split('#token=')[1]!, subject: mail!.parsed.subject ?? '' };
}

const passwordResetRows = (email: string) =>
  db()
    .selectFrom('mail')
    .select(['status', 'html', 'text', 'kind'])
    .where('kind', '=', 'passwordReset')
    .where(sql<string>`lower(recipient)`, '=', email.toLowerCase())
    .execute();

describe('POST /v1/session/password-reset', () => {
  it('mails a known email a one-time link valid 1 hour, built on PUBLIC_URL; the link signs in once', async () => {
    const { user, email } = await member();
    // A Host header of the caller's choosing does not make the link: PUBLIC_URL does.
    const response = await requestReset(email.toUpperCase(), newIp(), { host: 'attacker.example' });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({ message: expect.stringMatching(/If an account uses this email/) });

    const mailed = await linkMailedTo(email);
    expect(mailed.subject).toBe('Reset your Patron password');
    expect(mailed.link.startsWith(`${PUBLIC_URL}/dashboard/sign-in#token=`)).toBe(true);
    const stored = await db()
      .selectFrom('sign_in_links')
      .select(sql<number>`extract(epoch from expires_at - now())`.as('seconds'))
      .where('user_id', '=', user.id)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(stored.seconds)).toBeGreaterThan(3500);
    expect(Number(stored.seconds)).toBeLessThanOrEqual(3600);

    const first = await signIn({ signInToken: mailed.token });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().user.id).toBe(user.id);
    const again = await signIn({ signInToken: mailed.token });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.message).toMatch(/used or has expired: ask for a new one from the sign-in page/);

    // Sent, the mail's body no longer holds the link: only its SHA-256 is stored.
    await expect
      .poll(async () => (await passwordResetRows(email)).map((row) => [row.status, row.text, row.html]))
      .toEqual([['sent', BLANKED_BODY, BLANKED_BODY]]);
    const { rows } = await sql<{ found: number }>`select count(*)::int as found from mail
      where position(${mailed.token} in html || text) > 0`.execute(db());
    expect(rows[0]!.found).toBe(0);
  });

  it('answers an unknown email exactly alike, and sends nothing', async () => {
    const { email } = await member();
    const ip = newIp();
    const unknown = await requestReset(`nobody-${Date.now()}@example.com`, ip);
    const known = await requestReset(email, ip);
    expect(unknown.statusCode).toBe(202);
    expect(unknown.body).toBe(known.body);
    expect(unknown.headers['content-type']).toBe(known.headers['content-type']);
    // The known email's mail arrives; nothing else was sent.
    await linkMailedTo(email);
    const all = await db()
      .selectFrom('mail')
      .select('recipient')
      .where('kind', '=', 'passwordReset')
      .where('recipient', 'like', 'nobody-%')
      .execute();
    expect(all).toEqual([]);
    expect(smtp.received.map((mail) => mail.envelopeTo).flat()).toEqual([email.toLowerCase()]);
  });

  it('refuses an expired link (401)', async () => {
    const { user, email } = await member();
    await requestReset(email, newIp());
    const { token } = await linkMailedTo(email);
    await db()
      .updateTable('sign_in_links')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('user_id', '=', user.id)
      .execute();
    const response = await signIn({ signInToken: token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('UNAUTHORIZED');
  });

  it("lets the link's session choose a new password without the current one, once; the old one stops working", async () => {
    const { email } = await member();
    await requestReset(email, newIp());
    const { token } = await linkMailedTo(email);
    const signedIn = await signIn({ signInToken: token });
    const session = { cookie: cookieFrom(signedIn.headers['set-cookie'])!, csrf: signedIn.json().csrfToken };
    expect(Date.parse(signedIn.json().passwordResetUntil) - Date.now()).toBeGreaterThan(50 * 60_000);
    const put = (body: object) =>
      t.request({
        method: 'PUT',
        url: '/v1/session/password',
        body,
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      });

    const weak = await put({ newPassword: 'password123' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.details).toEqual([
      { path: 'body.newPassword', message: expect.stringMatching(/too easy to guess/) },
    ]);
    expect((await put({ newPassword: NEW_PASSWORD })).statusCode).toBe(204);
    // Once: the next change needs the current password again.
    const later = await put({ newPassword: 'another violet tractor' });
    expect(later.statusCode).toBe(400);
    expect(later.json().error.details[0].path).toBe('body.currentPassword');
    const current = await t.request({
      method: 'GET',
      url: '/v1/session',
      headers: { cookie: session.cookie },
    });
    expect(current.json().passwordResetUntil).toBeNull();

    expect((await signIn({ email, password: PASSWORD })).statusCode).toBe(401);
    expect((await signIn({ email, password: NEW_PASSWORD })).statusCode).toBe(201);
  });

  it("lets an invitation's link skip the current password only for a user who has none", async () => {
    const withPassword = await member();
    const invited = await member(null);
    const plain = await signIn({ signInToken: (await createSignInLink(db(), withPassword.user)).token });
    expect(plain.statusCode).toBe(201);
    expect(plain.json().passwordResetUntil).toBeNull();
    const refused = await t.request({
      method: 'PUT',
      url: '/v1/session/password',
      body: { newPassword: NEW_PASSWORD },
      headers: { cookie: cookieFrom(plain.headers['set-cookie'])!, 'x-csrf-token': plain.json().csrfToken },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details[0].path).toBe('body.currentPassword');

    const first = await signIn({ signInToken: (await createSignInLink(db(), invited.user)).token });
    expect(first.json().passwordResetUntil).not.toBeNull();
  });

  it('mails one email at most 3 times an hour, answering alike after that', async () => {
    const { email } = await member();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await requestReset(email, newIp()));
    expect(new Set(answers.map((answer) => `${answer.statusCode} ${answer.body}`)).size).toBe(1);
    await smtp.waitFor(3);
    expect(await passwordResetRows(email)).toHaveLength(3);
  });

  it('answers 429 with Retry-After after 10 requests from one address within an hour, for any email', async () => {
    const ip = newIp();
    for (let i = 0; i < 10; i++) {
      const response = await requestReset(`flood${i}-${Date.now()}@example.com`, ip);
      expect(response.statusCode).toBe(202);
    }
    const refused = await requestReset(`flood-last-${Date.now()}@example.com`, ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    // Another address is not held back.
    expect((await requestReset(`other-${Date.now()}@example.com`, newIp())).statusCode).toBe(202);
  });

  it('is recorded in the audit log under the named user, never with the link; an unknown email leaves no entry', async () => {
    const { user, email } = await member();
    await requestReset(email, newIp());
    const { token } = await linkMailedTo(email);
    await requestReset(`ghost-${Date.now()}@example.com`, newIp());
    const { rows: entries } = await sql<Record<string, unknown>>`select * from audit_log
      where path = '/v1/session/password-reset' and organization_id = ${tenant.organization.id}
        and actor_id = ${user.id}`.execute(db());
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 202, actor_type: 'user', actor_label: email, resource_type: 'session' });
    const { rows } = await sql<{ found: number }>`select count(*)::int as found from audit_log a
      where position(${token} in a::text) > 0 or a.actor_label like 'ghost-%'`.execute(db());
    expect(rows[0]!.found).toBe(0);
  });

  it('refuses a body without a valid email (400), and sends nothing', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/session/password-reset',
      body: { email: 'not an email' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.email');
  });
});
