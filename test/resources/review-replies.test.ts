/**
 * Review replies (docs/api.md#review-replies): PUT and DELETE /v1/reviews/{id}/reply, the reply on every read of the
 * review and in its events, who wrote it, and the reviewReplied mail sent through the outbox to a real SMTP server on
 * 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, createUser } from '../../src/auth/accounts.js';
import { startMailSender, type MailSender } from '../../src/resources/mail/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsDuring } from '../support/events.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { quietLogger, until } from '../support/webhooks.js';

let t: TestApp;
let smtp: SmtpReceiver;
const running: MailSender[] = [];

beforeAll(async () => {
  t = await startTestApp();
  smtp = await startSmtpReceiver();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((sender) => sender.stop()));
});
afterAll(async () => {
  await smtp?.close();
  await t?.close();
});

const db = () => t.testDatabase.database.db;

type Caller = { key: string } | { headers: Record<string, string> };
const as = (caller: Caller) => ('key' in caller ? { key: caller.key } : { headers: caller.headers });

async function call(caller: Caller, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return t.request({ method, url: `/v1${url}`, ...as(caller), ...(body !== undefined ? { body } : {}) });
}
async function ok(caller: Caller, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  const response = await call(caller, method, url, body);
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json();
}

const setReply = (caller: Caller, id: string, body: unknown) => call(caller, 'PUT', `/reviews/${id}/reply`, body);
const deleteReply = (caller: Caller, id: string) => call(caller, 'DELETE', `/reviews/${id}/reply`);

interface Store {
  tenant: Tenant;
  org: string;
  /** The id and prefix of the tenant's key, as a reply names it. */
  keyAuthor: { type: 'apiKey'; id: string; label: string };
  reviews: { ada: string; otto: string; german: string; unlinked: string };
}

/**
 * An organization with a shirt, a reviewer who takes email, one who opted out of it (emailOptOut), and their reviews;
 * one review is German, and one lost its product.
 */
async function store(): Promise<Store> {
  const tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  const org = tenant.organization.id;
  await ok(tenant, 'POST', '/customers/import', {
    data: [
      { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      { email: 'otto@example.com', firstName: 'Otto', emailOptOut: true },
    ],
  });
  await ok(tenant, 'POST', '/products/import', {
    data: [
      { slug: 'shirt', title: 'Linen Shirt', url: 'https://shop.invalid/shirt' },
      { slug: 'mug', title: 'Mug' },
    ],
  });
  const { data } = await ok(tenant, 'POST', '/reviews/import', {
    data: [
      { product: 'shirt', customer: 'ada@example.com', remoteId: 'r1', rating: 5, title: 'Lovely', body: 'So soft.' },
      { product: 'shirt', customer: 'otto@example.com', remoteId: 'r2', rating: 2, body: 'Shrank.', language: 'de' },
      { product: 'shirt', customer: 'ada@example.com', remoteId: 'r3', rating: 4, language: 'de-AT' },
      { product: 'mug', customer: 'ada@example.com', remoteId: 'r4', rating: 3 },
    ],
  });
  // The mug goes: its review stays, unlinked.
  await ok(tenant, 'DELETE', `/products/${data[3].productId}`);
  const key = await db()
    .selectFrom('api_keys')
    .select(['id', 'prefix'])
    .where('organization_id', '=', org)
    .executeTakeFirstOrThrow();
  return {
    tenant,
    org,
    keyAuthor: { type: 'apiKey', id: key.id, label: key.prefix },
    reviews: { ada: data[0].id, otto: data[1].id, german: data[2].id, unlinked: data[3].id },
  };
}

/** A dashboard user of the organization, signed in (its session cookie and CSRF token). */
async function signedIn(org: string, email: string): Promise<{ headers: Record<string, string>; userId: string }> {
  const user = await createUser(db(), { organizationId: org, email, name: 'Grace Hopper', role: 'admin' });
  const { token, session } = await createSession(db(), user);
  return { headers: { cookie: `patron_session=${token}`, 'x-csrf-token': session.csrf_token }, userId: user.id };
}

const REPLY_TEMPLATE = {
  kind: 'reviewReplied',
  name: 'We replied',
  subject: '{{ organization.name }} replied to your review of {{ product.title }}',
  html: '<p>Hi {{ customer.firstName }} {{ customer.lastName }},</p><p>{{ reply.body }}</p><p>You wrote: {{ review.title }} ({{ review.rating }}/5)</p>',
  text: '{{ customer.email }}|{{ review.id }}|{{ review.body }}|{{ review.createdAt }}|{{ reply.body }}|{{ reply.updatedAt }}|{{ product.url }}',
};

interface MailEntry {
  id: string;
  kind: string;
  recipient: string;
  customerId: string | null;
  subject: string;
  status: string;
  marketing: boolean;
}
const mailLog = async (tenant: Tenant): Promise<MailEntry[]> => (await ok(tenant, 'GET', '/mail-log')).data;
const bodyOf = (id: string) =>
  db().selectFrom('mail').select(['html', 'text']).where('id', '=', id).executeTakeFirstOrThrow();

describe('PUT /v1/reviews/{id}/reply', () => {
  it('sets the reply, named after the key that wrote it, on every read of the review and in review.replied', async () => {
    const s = await store();
    const before = await ok(s.tenant, 'GET', `/reviews/${s.reviews.ada}`);
    expect(before.reply).toBeNull();

    const { result, events } = await eventsDuring(t, s.org, () =>
      setReply(s.tenant, s.reviews.ada, { body: 'Thank you, Ada!' }),
    );
    expect(result.statusCode, result.body).toBe(200);
    const review = result.json();
    expect(review.reply).toEqual({
      body: 'Thank you, Ada!',
      createdAt: review.reply.updatedAt,
      updatedAt: review.updatedAt,
      author: s.keyAuthor,
    });
    expect(Date.parse(review.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect({ ...review, reply: null, updatedAt: before.updatedAt }).toEqual(before);
    expect(events).toEqual([{ name: 'review.replied', payload: review }]);

    // GET, the list (with its includes) and the review's later events all carry it.
    expect(await ok(s.tenant, 'GET', `/reviews/${s.reviews.ada}`)).toEqual(review);
    const list = await ok(s.tenant, 'GET', '/reviews?include=customer,product&limit=10');
    expect(list.data.find((each: { id: string }) => each.id === s.reviews.ada).reply).toEqual(review.reply);
    expect(list.data.filter((each: { reply: unknown }) => each.reply === null)).toHaveLength(3);
    const flagged = await eventsDuring(t, s.org, () =>
      ok(s.tenant, 'PATCH', `/reviews/${s.reviews.ada}`, { flagged: true }),
    );
    expect(flagged.events).toEqual([{ name: 'review.updated', payload: flagged.result }]);
    expect(flagged.result.reply).toEqual(review.reply);
  });

  it('replaces the text: reply.createdAt stays, updatedAt moves; the same text again writes and sends nothing', async () => {
    const s = await store();
    const first = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Thanks!' });
    const { result, events } = await eventsDuring(t, s.org, () =>
      ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Thank you for the kind words.' }),
    );
    expect(result.reply.body).toBe('Thank you for the kind words.');
    expect(result.reply.createdAt).toBe(first.reply.createdAt);
    expect(Date.parse(result.reply.updatedAt)).toBeGreaterThan(Date.parse(first.reply.updatedAt));
    expect(result.updatedAt).toBe(result.reply.updatedAt);
    expect(events).toEqual([{ name: 'review.replied', payload: result }]);

    const again = await eventsDuring(t, s.org, () =>
      ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Thank you for the kind words.' }),
    );
    expect(again.result).toEqual(result);
    expect(again.events).toEqual([]);
  });

  it('names a dashboard user by id and email, as the audit log does, and a later key takes over the authorship', async () => {
    const s = await store();
    const grace = await signedIn(s.org, 'grace@shop.invalid');
    const review = await ok(grace, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'From the dashboard.' });
    expect(review.reply.author).toEqual({ type: 'user', id: grace.userId, label: 'grace@shop.invalid' });
    const [entry] = (await ok(s.tenant, 'GET', `/audit-log?resourceType=reviews&resourceId=${s.reviews.ada}&limit=1`))
      .data;
    expect(entry).toMatchObject({ method: 'PUT', status: 200, actor: review.reply.author });

    const byKey = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Edited by the key.' });
    expect(byKey.reply.author).toEqual(s.keyAuthor);
    expect(byKey.reply.createdAt).toBe(review.reply.createdAt);
  });

  it('takes 1..5000 characters, not only spaces, stored as sent; anything else is a 400 naming body.body', async () => {
    const s = await store();
    const longest = 'é'.repeat(5000);
    expect((await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: longest })).reply.body).toBe(longest);
    const padded = '  Thanks!\n';
    expect((await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: padded })).reply.body).toBe(padded);

    const cases: [unknown, string][] = [
      [{}, 'body.body'],
      [{ body: '' }, 'body.body'],
      [{ body: ' \n\t ' }, 'body.body'],
      [{ body: 'x'.repeat(5001) }, 'body.body'],
      [{ body: 42 }, 'body.body'],
      [{ body: null }, 'body.body'],
      [{ body: 'Hi', author: 'me' }, 'body.author'],
      [[], 'body'],
    ];
    for (const [body, path] of cases) {
      const response = await setReply(s.tenant, s.reviews.ada, body);
      expect(response.statusCode, `${JSON.stringify(body)}: ${response.body}`).toBe(400);
      const { error } = response.json();
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
    const noBody = await t.request({ method: 'PUT', url: `/v1/reviews/${s.reviews.ada}/reply`, key: s.tenant.key });
    expect(noBody.statusCode, noBody.body).toBe(400);
    const badId = await setReply(s.tenant, 'not-a-uuid', { body: 'Hi' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().error.details[0].path).toBe('path.id');
    // Nothing refused was written.
    expect((await ok(s.tenant, 'GET', `/reviews/${s.reviews.ada}`)).reply.body).toBe(padded);
  });
});

describe('listing by reply', () => {
  it('filters on reply.createdAt (null: not replied to), reply.updatedAt and the author', async () => {
    const s = await store();
    const grace = await signedIn(s.org, 'grace.list@shop.invalid');
    const replied = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'By key.' });
    await ok(grace, 'PUT', `/reviews/${s.reviews.otto}/reply`, { body: 'By user.' });
    const ids = async (filter: object) =>
      (
        await ok(
          s.tenant,
          'GET',
          `/reviews?${new URLSearchParams({ filter: JSON.stringify(filter), sort: 'createdAt' })}`,
        )
      ).data.map((review: { id: string }) => review.id);
    expect(await ids({ 'reply.createdAt': null })).toEqual([s.reviews.german, s.reviews.unlinked]);
    expect(await ids({ 'reply.createdAt': { $exists: true } })).toEqual([s.reviews.ada, s.reviews.otto]);
    expect(await ids({ 'reply.author.type': 'user' })).toEqual([s.reviews.otto]);
    expect(await ids({ 'reply.author.id': s.keyAuthor.id })).toEqual([s.reviews.ada]);
    // The database keeps microseconds, the record shows milliseconds: the time shown is at or before the stored one.
    expect(await ids({ 'reply.updatedAt': { $gte: replied.reply.updatedAt } })).toEqual([
      s.reviews.ada,
      s.reviews.otto,
    ]);
    expect(await ids({ 'reply.updatedAt': { $lt: replied.reply.updatedAt } })).toEqual([]);
    const bad = await call(s.tenant, 'GET', `/reviews?filter=${encodeURIComponent('{"reply.author.type":"cli"}')}`);
    expect(bad.statusCode, bad.body).toBe(400);
  });
});

describe('DELETE /v1/reviews/{id}/reply', () => {
  it('removes the reply, answers the review and sends review.replyDeleted; a review without a reply is 404', async () => {
    const s = await store();
    const replied = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Thanks!' });
    const { result, events } = await eventsDuring(t, s.org, () => deleteReply(s.tenant, s.reviews.ada));
    expect(result.statusCode, result.body).toBe(200);
    const review = result.json();
    expect(review.reply).toBeNull();
    expect(Date.parse(review.updatedAt)).toBeGreaterThan(Date.parse(replied.updatedAt));
    expect(events).toEqual([{ name: 'review.replyDeleted', payload: review }]);
    expect(await ok(s.tenant, 'GET', `/reviews/${s.reviews.ada}`)).toEqual(review);

    const none = await eventsDuring(t, s.org, () => deleteReply(s.tenant, s.reviews.ada));
    expect(none.result.statusCode).toBe(404);
    expect(none.result.json().error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'The review has no reply to delete.',
    });
    expect(none.events).toEqual([]);

    // A new reply after a deletion is a first reply again.
    const fresh = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Once more.' });
    expect(fresh.reply.createdAt).toBe(fresh.reply.updatedAt);
    expect(Date.parse(fresh.reply.createdAt)).toBeGreaterThan(Date.parse(replied.reply.createdAt));
  });

  it('a deleted review takes its reply with it, in review.deleted', async () => {
    const s = await store();
    const replied = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.otto}/reply`, { body: 'Sorry to hear it.' });
    const { result, events } = await eventsDuring(t, s.org, () => ok(s.tenant, 'DELETE', `/reviews/${s.reviews.otto}`));
    expect(result.reply).toEqual(replied.reply);
    expect(events).toEqual([{ name: 'review.deleted', payload: result }]);
  });
});

describe('who may reply', () => {
  it("answers 404 for a missing review and for another organization's, and changes nothing there", async () => {
    const s = await store();
    const other = await store();
    await ok(other.tenant, 'PUT', `/reviews/${other.reviews.ada}/reply`, { body: 'Ours.' });
    const missing = '0196a1c0-5e00-7000-8000-00000000dead';
    for (const id of [missing, other.reviews.ada]) {
      const put = await setReply(s.tenant, id, { body: 'Theirs?' });
      expect(put.statusCode, put.body).toBe(404);
      expect(put.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'The review was not found.' });
      const del = await deleteReply(s.tenant, id);
      expect(del.statusCode, del.body).toBe(404);
      expect(del.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'The review was not found.' });
    }
    expect((await ok(other.tenant, 'GET', `/reviews/${other.reviews.ada}`)).reply.body).toBe('Ours.');
  });

  it('needs reviews:write: a read-only key is 403 and writes nothing', async () => {
    const s = await store();
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Kept.' });
    const reader = { key: await t.key(s.org, ['reviews:read']) };
    const { result, events } = await eventsDuring(t, s.org, async () => [
      await setReply(reader, s.reviews.ada, { body: 'Changed?' }),
      await deleteReply(reader, s.reviews.ada),
    ]);
    for (const response of result) {
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json().error.code).toBe('FORBIDDEN');
    }
    expect(events).toEqual([]);
    expect((await ok(reader, 'GET', `/reviews/${s.reviews.ada}`)).reply.body).toBe('Kept.');
  });
});

describe('the reviewReplied mail', () => {
  it('is queued with the reply when an active template exists, rendered for the reviewer, and sent through SMTP', async () => {
    const s = await store();
    await ok(s.tenant, 'POST', '/email-templates', REPLY_TEMPLATE);
    const review = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Thank you, <Ada>!' });
    const [mail] = await mailLog(s.tenant);
    expect(mail).toMatchObject({
      kind: 'reviewReplied',
      marketing: false,
      status: 'queued',
      recipient: 'ada@example.com',
      customerId: review.customerId,
      subject: `${s.tenant.organization.name} replied to your review of Linen Shirt`,
    });
    const body = await bodyOf(mail!.id);
    expect(body.html).toBe('<p>Hi Ada Lovelace,</p><p>Thank you, &lt;Ada&gt;!</p><p>You wrote: Lovely (5/5)</p>');
    expect(body.text).toBe(
      `ada@example.com|${review.id}|So soft.|${review.createdAt}|Thank you, <Ada>!|${review.reply.updatedAt}|https://shop.invalid/shirt`,
    );

    startSender();
    const [received] = await until(async () => {
      const found = smtp.received.filter((each) => each.parsed.text?.includes(review.id));
      return found.length > 0 && found;
    });
    expect(received!.envelopeTo).toEqual(['ada@example.com']);
    expect(received!.parsed.subject).toBe(mail!.subject);
    await until(async () => (await mailLog(s.tenant))[0]?.status === 'sent');
  });

  it('goes to a reviewer who opted out of email (mail they asked for), again for a new text, not for the same', async () => {
    const s = await store();
    await ok(s.tenant, 'POST', '/email-templates', REPLY_TEMPLATE);
    const first = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.otto}/reply`, { body: 'Sorry about that.' });
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.otto}/reply`, { body: 'Sorry about that.' });
    const second = await ok(s.tenant, 'PUT', `/reviews/${s.reviews.otto}/reply`, { body: 'We sent a new one.' });
    const log = await mailLog(s.tenant);
    expect(log.map((mail) => [mail.recipient, mail.kind, mail.marketing])).toEqual([
      ['otto@example.com', 'reviewReplied', false],
      ['otto@example.com', 'reviewReplied', false],
    ]);
    // Newest first: the second text, then the first.
    expect((await bodyOf(log[0]!.id)).text).toContain(`|We sent a new one.|${second.reply.updatedAt}|`);
    expect((await bodyOf(log[1]!.id)).text).toContain(`|Sorry about that.|${first.reply.updatedAt}|`);
    // A deletion mails nothing.
    await ok(s.tenant, 'DELETE', `/reviews/${s.reviews.otto}/reply`);
    expect(await mailLog(s.tenant)).toHaveLength(2);

    startSender();
    await until(async () => {
      const statuses = (await mailLog(s.tenant)).map((mail) => mail.status);
      return statuses.every((status) => status === 'sent') && statuses;
    });
    const received = smtp.received.filter((each) => each.parsed.text?.includes(s.reviews.otto));
    expect(received.map((each) => each.envelopeTo)).toEqual([['otto@example.com'], ['otto@example.com']]);
  });

  it('queues nothing without a template, or with only an inactive one or one of another kind', async () => {
    const s = await store();
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'One.' });
    await ok(s.tenant, 'POST', '/email-templates', { ...REPLY_TEMPLATE, isActive: false });
    await ok(s.tenant, 'POST', '/email-templates', {
      kind: 'rewardIssued',
      name: 'Reward',
      subject: 'A reward',
      html: '<p>{{ reward.code }}</p>',
    });
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.ada}/reply`, { body: 'Two.' });
    expect(await mailLog(s.tenant)).toEqual([]);
  });

  it("is written with the template of the review's language, and names an unlinked product with empty fields", async () => {
    const s = await store();
    await ok(s.tenant, 'POST', '/email-templates', REPLY_TEMPLATE);
    await ok(s.tenant, 'POST', '/email-templates', {
      ...REPLY_TEMPLATE,
      name: 'Wir haben geantwortet',
      locale: 'de',
      subject: 'Antwort zu {{ product.title }}',
    });
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.german}/reply`, { body: 'Danke!' });
    await ok(s.tenant, 'PUT', `/reviews/${s.reviews.unlinked}/reply`, { body: 'Thanks!' });
    const [unlinked, german] = await mailLog(s.tenant);
    expect(german!.subject).toBe('Antwort zu Linen Shirt');
    // A subject is one trimmed line.
    expect(unlinked!.subject).toBe(`${s.tenant.organization.name} replied to your review of`);
    expect((await bodyOf(unlinked!.id)).text).toMatch(/\|Thanks!\|[^|]+\|$/);
  });
});

function startSender(): MailSender {
  const sender = startMailSender({
    db: db(),
    smtpUrl: smtp.url,
    mailFrom: 'Shop <mail@example.com>',
    logger: quietLogger,
    pollMs: 50,
    sweepMs: 50,
  });
  running.push(sender);
  return sender;
}
