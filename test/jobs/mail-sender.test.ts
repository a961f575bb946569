/**
 * The mail outbox, its sender and the mail log (docs/api.md#mail), against a real SMTP server on 127.0.0.1.
 *
 * The tests queue mail the way the features that send it do (reward notices, survey requests): through the
 * resource's exported queueMail, inside a transaction; test/resources/reward-mail.test.ts and surveys.test.ts cover
 * those features themselves.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { openDatabase } from '../../src/db/engine.js';
import type { MailKind } from '../../src/db/schema.js';
import { queueMail, startMailSender, type MailSender } from '../../src/resources/mail/index.js';
import { claimDueMail, INTERRUPTED, MAX_SEND_ATTEMPTS } from '../../src/resources/mail/queries.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { quietLogger, until } from '../support/webhooks.js';

const MAIL_FROM = 'Patron Test <mail@example.com>';

let t: TestApp;
let smtp: SmtpReceiver;
const running: MailSender[] = [];

beforeAll(async () => {
  t = await startTestApp();
  smtp = await startSmtpReceiver();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((sender) => sender.stop()));
  smtp.rejectRecipient = () => false;
  smtp.stallData = () => false;
});
afterAll(async () => {
  await smtp?.close();
  await t?.close();
});

const db = () => t.testDatabase.database.db;

const start = (options: Partial<Parameters<typeof startMailSender>[0]> = {}) => {
  const sender = startMailSender({
    db: db(),
    smtpUrl: smtp.url,
    mailFrom: MAIL_FROM,
    logger: quietLogger,
    pollMs: 50,
    sweepMs: 50,
    ...options,
  });
  running.push(sender);
  return sender;
};

let counter = 0;
const queue = (
  tenant: Tenant,
  fields: { kind?: MailKind; recipient?: string; customerId?: string; subject?: string } = {},
) => {
  const n = ++counter;
  return db()
    .transaction()
    .execute((trx) =>
      queueMail(trx, {
        organizationId: tenant.organization.id,
        kind: fields.kind ?? 'rewardIssued',
        recipient: fields.recipient ?? `customer${n}@example.com`,
        customerId: fields.customerId,
        subject: fields.subject ?? `Your reward ${n}`,
        html: `<p>Hello <b>${n}</b></p>`,
        text: `Hello ${n}`,
      }),
    );
};

interface Entry {
  id: string;
  kind: string;
  marketing: boolean;
  recipient: string;
  customerId: string | null;
  status: string;
  error: string | null;
  smtpResponse: string | null;
  messageId: string | null;
  attempts: number;
  sentAt: string | null;
}

const entry = async (tenant: Tenant, id: string) => {
  const response = await t.request({ url: `/v1/mail-log/${id}`, key: tenant.key });
  expect(response.statusCode).toBe(200);
  return response.json<Entry>();
};
const settled = (tenant: Tenant, id: string, timeoutMs?: number) =>
  until(async () => {
    const found = await entry(tenant, id);
    return found.status !== 'queued' && found.status !== 'sending' && found;
  }, timeoutMs);

/**
 * Queues one more mail and waits until it is sent and none of the tenant's other mail (apart from `except`) is queued
 * or in flight: the sender has claimed again after everything before, and each of those claims has run its course, so
 * a test may then check what the sender did not do.
 */
const sentinelSent = async (tenant: Tenant, except: string[] = []) => {
  const sentinel = await queue(tenant, { recipient: 'sentinel@example.com' });
  await until(async () => (await entry(tenant, sentinel)).status === 'sent');
  await until(async () => {
    const rows = await db()
      .selectFrom('mail')
      .select(['id', 'status'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    return rows.every((row) => except.includes(row.id) || (row.status !== 'queued' && row.status !== 'sending'));
  });
};

const customer = async (tenant: Tenant, email: string, emailOptOut: boolean) => {
  const response = await t.request({
    method: 'POST',
    url: '/v1/customers/import',
    key: tenant.key,
    body: { data: [{ email, emailOptOut }] },
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ data: { id: string }[] }>().data[0]!;
};

describe('the mail sender', () => {
  it('delivers queued mail with From, To, Subject, Message-ID and both parts, and logs it sent', async () => {
    const tenant = await t.tenant();
    const id = await queue(tenant, { recipient: 'ada@example.com', subject: 'Your reward is ready' });
    start();
    const sent = await settled(tenant, id);
    expect(sent).toMatchObject({ status: 'sent', error: null, recipient: 'ada@example.com', kind: 'rewardIssued' });
    expect(sent.messageId).toBe(`<${id}@example.com>`);
    expect(sent.smtpResponse).toMatch(/^250 /);
    expect(Date.parse(sent.sentAt!)).not.toBeNaN();
    expect(sent.attempts).toBe(1);

    const [mail] = smtp.withMessageId(`<${id}@example.com>`);
    expect(mail).toBeDefined();
    expect(mail!.envelopeFrom).toBe('mail@example.com');
    expect(mail!.envelopeTo).toEqual(['ada@example.com']);
    expect(mail!.parsed.from?.value).toEqual([{ address: 'mail@example.com', name: 'Patron Test' }]);
    const to = [mail!.parsed.to ?? []].flat().flatMap((address) => address.value);
    expect(to.map((address) => address.address)).toEqual(['ada@example.com']);
    expect(mail!.parsed.subject).toBe('Your reward is ready');
    expect(mail!.parsed.text?.trim()).toBe(`Hello ${counter}`);
    expect(String(mail!.parsed.html).trim()).toBe(`<p>Hello <b>${counter}</b></p>`);
    expect(mail!.raw).toMatch(/Content-Type: multipart\/alternative/i);

    const list = await t.request({
      url: `/v1/mail-log?filter=${encodeURIComponent(JSON.stringify({ status: 'sent' }))}`,
      key: tenant.key,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((e: Entry) => e.id)).toEqual([id]);
  });

  it('only logs mail when no SMTP server is configured', async () => {
    const tenant = await t.tenant();
    const before = smtp.received.length;
    const id = await queue(tenant);
    start({ smtpUrl: undefined });
    const logged = await settled(tenant, id);
    expect(logged).toMatchObject({ status: 'logged', error: null, sentAt: null, messageId: null });
    expect(smtp.received.length).toBe(before);
  });

  it('never sends marketing mail to an opted-out customer, by id or by address: suppressed', async () => {
    const tenant = await t.tenant();
    const optedOut = await customer(tenant, 'out@example.com', true);
    const byId = await queue(tenant, { kind: 'surveyRequest', recipient: 'out@example.com', customerId: optedOut.id });
    const byAddress = await queue(tenant, { kind: 'surveyRequest', recipient: 'OUT@example.com' });
    start();
    for (const id of [byId, byAddress]) {
      const suppressed = await settled(tenant, id);
      expect(suppressed).toMatchObject({ status: 'suppressed', marketing: true, sentAt: null });
      expect(suppressed.error).toMatch(/opted out/);
      expect(smtp.withMessageId(`<${id}@example.com>`)).toEqual([]);
    }
    expect(smtp.received.filter((mail) => mail.envelopeTo.includes('out@example.com'))).toEqual([]);
  });

  it('sends marketing mail to a subscribed customer and asked-for mail to an opted-out one', async () => {
    const tenant = await t.tenant();
    const subscribed = await customer(tenant, 'in@example.com', false);
    const optedOut = await customer(tenant, 'asked@example.com', true);
    const survey = await queue(tenant, {
      kind: 'surveyRequest',
      recipient: 'in@example.com',
      customerId: subscribed.id,
    });
    const expiring = await queue(tenant, {
      kind: 'pointsExpiringSoon',
      recipient: 'asked@example.com',
      customerId: optedOut.id,
    });
    start();
    expect(await settled(tenant, survey)).toMatchObject({ status: 'sent', marketing: true });
    expect(await settled(tenant, expiring)).toMatchObject({ status: 'sent', marketing: false });
    expect(smtp.withMessageId(`<${expiring}@example.com>`)).toHaveLength(1);
  });

  it("records a refused recipient as failed with the server's answer, and does not retry", async () => {
    const tenant = await t.tenant();
    smtp.rejectRecipient = (address) => address === 'nobody@example.invalid';
    const id = await queue(tenant, { recipient: 'nobody@example.invalid' });
    start();
    const failed = await settled(tenant, id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('550');
    expect(failed.error).toContain('Recipient address rejected');
    expect(failed.sentAt).toBeNull();
    await sentinelSent(tenant);
    expect((await entry(tenant, id)).attempts).toBe(1);
  });

  it('records a send the server never answers as interrupted, not failed, and replaces the pool', async () => {
    const tenant = await t.tenant();
    smtp.stallData = (address) => address === 'silent@example.com';
    const silent = await queue(tenant, { recipient: 'silent@example.com' });
    start({ sendTimeoutMs: 500, batchSize: 1 });
    const interrupted = await settled(tenant, silent);
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.error).toMatch(/no answer from the SMTP server within 500 ms/);
    // The sender goes on with a fresh pool.
    const next = await queue(tenant);
    expect((await settled(tenant, next)).status).toBe('sent');
  });

  it('queues a send still in flight when the sender stops again, and the next sender resends it with the same Message-ID', async () => {
    const tenant = await t.tenant();
    smtp.stallData = (address) => address === 'stopping@example.com';
    const id = await queue(tenant, { recipient: 'stopping@example.com' });
    const sender = startMailSender({
      db: db(),
      smtpUrl: smtp.url,
      mailFrom: MAIL_FROM,
      logger: quietLogger,
      pollMs: 50,
      stopGraceMs: 200,
    });
    await until(async () => (await entry(tenant, id)).status === 'sending');
    await sender.stop();
    const stopped = await entry(tenant, id);
    expect(stopped).toMatchObject({ status: 'queued', error: null, messageId: `<${id}@example.com>`, attempts: 1 });
    smtp.stallData = () => false;
    start();
    const resent = await settled(tenant, id);
    expect(resent).toMatchObject({ status: 'sent', messageId: `<${id}@example.com>`, attempts: 2 });
    expect(smtp.withMessageId(`<${id}@example.com>`)).toHaveLength(1);
  });

  it('delivers N mails exactly once with two senders on one database', async () => {
    const tenant = await t.tenant();
    const ids = await Promise.all(Array.from({ length: 24 }, () => queue(tenant)));
    // On PostgreSQL the second sender has a connection pool of its own, as a second process would.
    const second = t.testDatabase.url
      ? await openDatabase({ databaseUrl: t.testDatabase.url, dataDir: '' })
      : undefined;
    onTestFinished(() => second?.close());
    start({ batchSize: 3 });
    start({ batchSize: 3, ...(second ? { db: second.db } : {}) });
    await until(async () => {
      const rows = await db()
        .selectFrom('mail')
        .select('status')
        .where('organization_id', '=', tenant.organization.id)
        .execute();
      return rows.every((row) => row.status === 'sent');
    }, 20_000);
    const owners = await db()
      .selectFrom('mail')
      .select(['claimed_by', 'attempts'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(owners.every((row) => row.attempts === 1)).toBe(true);
    for (const id of ids) expect(smtp.withMessageId(`<${id}@example.com>`)).toHaveLength(1);
  });

  it('resends mail left sending past its lease with the Message-ID of its first send, and gives up after the last attempt', async () => {
    const tenant = await t.tenant();
    const dead = await queue(tenant);
    const live = await queue(tenant);
    const hopeless = await queue(tenant);
    // One a dead process was sending (its lease ran out), one a live process is sending right now, one that has
    // already been handed to SMTP as often as a mail is.
    const firstMessageId = '<first-claim@elsewhere.example>';
    await sql`update mail set status = 'sending', claimed_by = 'dead-host:1:x', attempts = 1,
      message_id = ${firstMessageId}, claimed_until = now() - interval '1 minute' where id = ${dead}`.execute(db());
    await sql`update mail set status = 'sending', claimed_by = 'live-host:2:y', attempts = 1,
      claimed_until = now() + interval '1 hour' where id = ${live}`.execute(db());
    await sql`update mail set status = 'sending', claimed_by = 'dead-host:1:x', attempts = ${MAX_SEND_ATTEMPTS},
      claimed_until = now() - interval '1 minute' where id = ${hopeless}`.execute(db());
    start();
    const resent = await settled(tenant, dead);
    expect(resent).toMatchObject({ status: 'sent', messageId: firstMessageId, attempts: 2 });
    expect(smtp.withMessageId(firstMessageId)).toHaveLength(1);
    const givenUp = await settled(tenant, hopeless);
    expect(givenUp).toMatchObject({ status: 'interrupted', error: INTERRUPTED, attempts: MAX_SEND_ATTEMPTS });
    await sentinelSent(tenant, [live]);
    expect((await entry(tenant, live)).status).toBe('sending');
    expect(smtp.withMessageId(`<${live}@example.com>`)).toEqual([]);
    expect(smtp.withMessageId(`<${hopeless}@example.com>`)).toEqual([]);
  });

  it("takes every organization's oldest due mail before a second one of any organization", async () => {
    const busy = await t.tenant();
    const quiet = await t.tenant();
    for (let i = 0; i < 6; i++) await queue(busy);
    const waiting = await queue(quiet);
    const claimed = await claimDueMail(db(), {
      owner: 'fairness-test',
      limit: 2,
      leaseMs: 60_000,
      smtpConfigured: false,
      messageIdDomain: 'example.com',
    });
    expect(claimed.map((mail) => mail.organizationId).sort()).toEqual(
      [busy.organization.id, quiet.organization.id].sort(),
    );
    expect(claimed.find((mail) => mail.organizationId === quiet.organization.id)?.id).toBe(waiting);
    // Settle the rest so no later test's sender meets them.
    await sql`update mail set status = 'logged' where organization_id in (${busy.organization.id}, ${quiet.organization.id}) and status = 'queued'`.execute(
      db(),
    );
  });

  it('does not send mail before it is due', async () => {
    const tenant = await t.tenant();
    const id = await db()
      .transaction()
      .execute((trx) =>
        queueMail(trx, {
          organizationId: tenant.organization.id,
          kind: 'rewardExpiringSoon',
          recipient: 'later@example.com',
          subject: 'Later',
          html: '<p>Later</p>',
          text: 'Later',
          dueAt: new Date(Date.now() + 3_600_000),
        }),
      );
    start();
    await sentinelSent(tenant, [id]);
    expect((await entry(tenant, id)).status).toBe('queued');
    await sql`update mail set status = 'logged' where id = ${id}`.execute(db());
  });

  it('queues nothing when the transaction that queued the mail rolls back', async () => {
    const tenant = await t.tenant();
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await queueMail(trx, {
            organizationId: tenant.organization.id,
            kind: 'rewardIssued',
            recipient: 'rolled@example.com',
            subject: 'x',
            html: 'x',
            text: 'x',
          });
          throw new Error('the change failed');
        }),
    ).rejects.toThrow('the change failed');
    const list = await t.request({ url: '/v1/mail-log', key: tenant.key });
    expect(list.json().data).toEqual([]);
  });
});

describe('GET /v1/mail-log', () => {
  it('lists newest first and filters on kind, recipient and customerId', async () => {
    const tenant = await t.tenant();
    const buyer = await customer(tenant, 'buyer@example.com', false);
    const first = await queue(tenant, { kind: 'rewardIssued', recipient: 'buyer@example.com', customerId: buyer.id });
    const second = await queue(tenant, { kind: 'surveyRequest', recipient: 'other@example.com' });
    const all = await t.request({ url: '/v1/mail-log', key: tenant.key });
    expect(all.json().data.map((e: Entry) => e.id)).toEqual([second, first]);
    for (const [filter, expected] of [
      [{ kind: 'surveyRequest' }, [second]],
      [{ recipient: 'buyer@example.com' }, [first]],
      [{ customerId: buyer.id }, [first]],
      [{ status: 'queued' }, [second, first]],
    ] as const) {
      const response = await t.request({
        url: `/v1/mail-log?filter=${encodeURIComponent(JSON.stringify(filter))}`,
        key: tenant.key,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.map((e: Entry) => e.id)).toEqual(expected);
    }
    await sql`update mail set status = 'logged' where organization_id = ${tenant.organization.id}`.execute(db());
  });

  it('answers 400 for a filter on a field it does not have', async () => {
    const tenant = await t.tenant();
    const response = await t.request({
      url: `/v1/mail-log?filter=${encodeURIComponent(JSON.stringify({ html: 'x' }))}`,
      key: tenant.key,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBeDefined();
  });

  it('needs mail:read', async () => {
    const tenant = await t.tenant({ permissions: ['customers:read'] });
    const denied = await t.request({ url: '/v1/mail-log', key: tenant.key });
    expect(denied.statusCode).toBe(403);
    const reader = await t.key(tenant.organization.id, ['mail:read']);
    expect((await t.request({ url: '/v1/mail-log', key: reader })).statusCode).toBe(200);
  });
});

describe('GET /v1/mail-log/{id}', () => {
  it("answers another organization's entry exactly like a missing one", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const id = await queue(owner);
    await sql`update mail set status = 'logged' where id = ${id}`.execute(db());
    const foreign = await t.request({ url: `/v1/mail-log/${id}`, key: stranger.key });
    const missing = await t.request({ url: '/v1/mail-log/01900000-0000-7000-8000-000000000000', key: stranger.key });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
    const list = await t.request({ url: '/v1/mail-log', key: stranger.key });
    expect(list.json().data).toEqual([]);
  });

  it('needs mail:read', async () => {
    const tenant = await t.tenant({ permissions: ['customers:read'] });
    const id = await queue(tenant);
    await sql`update mail set status = 'logged' where id = ${id}`.execute(db());
    const denied = await t.request({ url: `/v1/mail-log/${id}`, key: tenant.key });
    expect(denied.statusCode).toBe(403);
  });
});

describe('mail configuration', () => {
  it('needs MAIL_FROM with SMTP_URL, and never prints the SMTP URL', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://user:secret@127.0.0.1:2525' })).toThrow(/MAIL_FROM/);
    expect(() => loadConfig({ SMTP_URL: 'http://127.0.0.1', MAIL_FROM: MAIL_FROM })).toThrow(
      /SMTP_URL \(value not shown\)/,
    );
    const config = loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: MAIL_FROM });
    expect(config).toMatchObject({ smtpUrl: 'smtp://127.0.0.1:2525', mailFrom: MAIL_FROM });
    expect(loadConfig({}).smtpUrl).toBeUndefined();
  });
});
