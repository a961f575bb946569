/**
 * Test mode through HTTP (docs/api.md#test-mode): every organization's test twin, its `sk_test_` keys, `livemode` on
 * the organization, events, deliveries and export jobs, test mail recorded `logged` and never handed to a real SMTP
 * server on loopback, buckets and nightly jobs of its own, test-mode dashboard sessions, and POST /test-data/reset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, createUser, type UserRow } from '../../src/auth/accounts.js';
import { scheduledJobs } from '../../src/compose.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { queueMail, startMailSender } from '../../src/resources/mail/index.js';
import { updateOrganizationPlan } from '../../src/resources/organization/service.js';
import { TEST_DATA_RESET_JOB } from '../../src/resources/test-data/index.js';
import { startTestApp, webhookAppOptions, type Tenant, type TestApp } from '../support/app.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import {
  bodyOf,
  createEndpoint,
  dispatcherFor,
  quietLogger,
  startWebhookReceiver,
  until,
  type WebhookReceiver,
} from '../support/webhooks.js';

let t: TestApp;
let receiver: WebhookReceiver;
let tenant: Tenant;
/** A key of the tenant's test twin, with every permission. */
let testKey: string;
const db = () => t.testDatabase.database.db;
const silent = { info() {}, warn() {}, error() {} };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver, { webhookTimeoutMs: 2_000 }));
  tenant = await t.tenant({ name: 'Twin Coffee', timezone: 'Europe/Berlin' });
  testKey = await t.key(tenant.testOrganizationId);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const request = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, body?: unknown) =>
  t.request({ method, url, key, body });

async function createCustomer(key: string, email: string): Promise<{ id: string }> {
  const response = await request('POST', '/v1/customers/import', key, { data: [{ email }] });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data[0];
}

/** Runs every due job of these names now, on the test app's database. */
async function runJobs(names: string[], now?: Date): Promise<void> {
  const runner = createJobRunner({
    db: db(),
    jobs: scheduledJobs(t.config).filter((job) => names.includes(job.name)),
    logger: silent,
    ...(now ? { now: () => now } : {}),
  });
  while ((await runner.tick()) > 0);
}

describe('the test twin and its keys', () => {
  it('every organization has a twin with its name, time zone and plan; test keys are sk_test_ and act on it', async () => {
    expect(testKey).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(tenant.key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    const live = (await request('GET', '/v1/organization', tenant.key)).json();
    const test = (await request('GET', '/v1/organization', testKey)).json();
    expect(live).toMatchObject({ id: tenant.organization.id, livemode: true });
    expect(test).toEqual({ ...live, id: tenant.testOrganizationId, livemode: false });
    // The key list shows a test key's visible prefix, sk_test_ and 8 characters.
    const prefix = await db()
      .selectFrom('api_keys')
      .select('prefix')
      .where('organization_id', '=', tenant.testOrganizationId)
      .executeTakeFirstOrThrow();
    expect(prefix.prefix).toBe(testKey.slice(0, 16));
  });

  it("the operator's plan change applies to the twin too", async () => {
    const other = await t.tenant();
    await updateOrganizationPlan(db(), other.organization.id, { apiRequestsPerMinute: 900 });
    const test = (await request('GET', '/v1/organization', await t.key(other.testOrganizationId))).json();
    expect(test.plan.apiRequestsPerMinute).toBe(900);
  });

  it('one API version for both modes: the twin starts on it, and a PATCH in either mode moves both', async () => {
    const other = await t.tenant();
    const otherTestKey = await t.key(other.testOrganizationId);
    const versionOf = async (key: string) => (await request('GET', '/v1/organization', key)).json().apiVersion;
    expect(await versionOf(otherTestKey)).toBe(await versionOf(other.key));
    // Both back on the first version, as an organization made before versions is.
    await db()
      .updateTable('organizations')
      .set({ api_version: '2026-11-20' })
      .where('id', 'in', [other.organization.id, other.testOrganizationId])
      .execute();
    const moved = await request('PATCH', '/v1/organization', otherTestKey, { apiVersion: '2026-12-01' });
    expect(moved.statusCode, moved.body).toBe(200);
    expect([await versionOf(other.key), await versionOf(otherTestKey)]).toEqual(['2026-12-01', '2026-12-01']);
    const live = await request('PATCH', '/v1/organization', other.key, { apiVersion: '2026-12-07' });
    expect(live.statusCode, live.body).toBe(200);
    expect([await versionOf(other.key), await versionOf(otherTestKey)]).toEqual(['2026-12-07', '2026-12-07']);
    // Back is refused in either mode, and changes neither.
    expect((await request('PATCH', '/v1/organization', otherTestKey, { apiVersion: '2026-12-01' })).statusCode).toBe(
      400,
    );
    expect(await versionOf(other.key)).toBe('2026-12-07');
  });

  it("a live key asking for a test record's id gets exactly a missing record's 404, and the other way round", async () => {
    const testCustomer = await createCustomer(testKey, 'only.test@example.com');
    const liveCustomer = await createCustomer(tenant.key, 'only.live@example.com');
    const missing = '01900000-0000-7000-8000-000000000000';
    const absent = await request('GET', `/v1/customers/${missing}`, tenant.key);
    expect(absent.statusCode).toBe(404);
    const liveAsksTest = await request('GET', `/v1/customers/${testCustomer.id}`, tenant.key);
    const testAsksLive = await request('GET', `/v1/customers/${liveCustomer.id}`, testKey);
    const testAbsent = await request('GET', `/v1/customers/${missing}`, testKey);
    for (const answer of [liveAsksTest, testAsksLive]) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual(absent.json());
    }
    expect(testAbsent.json()).toEqual(absent.json());
    const liveList = (await request('GET', '/v1/customers?limit=100', tenant.key)).json();
    const testList = (await request('GET', '/v1/customers?limit=100', testKey)).json();
    expect(liveList.data.map((c: { id: string }) => c.id)).not.toContain(testCustomer.id);
    expect(testList.data.map((c: { id: string }) => c.id)).not.toContain(liveCustomer.id);
  });

  it("a test key's requests do not spend the live key's bucket", async () => {
    const small = await t.tenant({ apiRequestsPerMinute: 10 });
    const smallTestKey = await t.key(small.testOrganizationId);
    for (let i = 0; i < 10; i++) expect((await request('GET', '/v1/organization', small.key)).statusCode).toBe(200);
    expect((await request('GET', '/v1/organization', small.key)).statusCode).toBe(429);
    const test = await request('GET', '/v1/organization', smallTestKey);
    expect(test.statusCode).toBe(200);
    expect(test.headers['ratelimit-policy']).toBe('"org";q=10;w=60');
  });
});

describe('livemode on events, deliveries and export jobs', () => {
  it('the twin’s events and deliveries say livemode: false, byte for byte the same in both', async () => {
    const endpoint = await createEndpoint(
      t,
      { ...tenant, key: testKey },
      {
        url: `${receiver.origin}/test-mode`,
        events: ['site.created'],
      },
    );
    const site = await request('POST', '/v1/sites', testKey, { name: 'Test site', domain: 'test.mode.example.com' });
    expect(site.statusCode, site.body).toBe(201);
    const dispatcher = dispatcherFor(t, receiver);
    try {
      const [delivered] = await receiver.waitFor(1, '/test-mode');
      const body = bodyOf(delivered!) as unknown as { id: string; livemode: boolean; data: { id: string } };
      expect(body.livemode).toBe(false);
      expect(body.data.id).toBe(site.json().id);
      const event = await request('GET', `/v1/events/${body.id}`, testKey);
      expect(event.statusCode).toBe(200);
      expect(event.rawPayload.equals(delivered!.body)).toBe(true);
      // The live key does not see it.
      expect((await request('GET', `/v1/events/${body.id}`, tenant.key)).statusCode).toBe(404);
      const listed = await request('GET', `/v1/events?type=site.created`, testKey);
      expect(listed.json().data.map((e: { livemode: boolean }) => e.livemode)).toEqual([false]);
      const log = await request('GET', `/v1/webhooks/${endpoint.id}/events`, testKey);
      expect(log.statusCode, log.body).toBe(200);
      expect(log.json().data[0].payload.livemode).toBe(false);
      // The test ping too.
      const ping = await request('POST', `/v1/webhooks/${endpoint.id}/test`, testKey);
      expect(ping.statusCode, ping.body).toBe(201);
      expect(ping.json().payload.livemode).toBe(false);
    } finally {
      await dispatcher.stop();
    }
    const liveEvents = (await request('GET', '/v1/events', tenant.key)).json();
    expect(liveEvents.data.length).toBeGreaterThan(0);
    for (const event of liveEvents.data) expect(event.livemode).toBe(true);
  });

  it("an export job's record says which data it exported", async () => {
    const body = { data: { resource: 'customers', format: 'jsonl' } };
    const test = await request('POST', '/v1/export-jobs', testKey, body);
    const live = await request('POST', '/v1/export-jobs', tenant.key, body);
    expect(test.statusCode, test.body).toBe(202);
    expect(live.statusCode, live.body).toBe(202);
    expect(test.json().livemode).toBe(false);
    expect(live.json().livemode).toBe(true);
    expect((await request('GET', `/v1/export-jobs/${test.json().id}`, testKey)).json().livemode).toBe(false);
  });
});

describe('mail and nightly jobs', () => {
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
  });
  afterAll(() => smtp?.close());

  it('test mail is recorded logged and never reaches a real SMTP server; live mail does', async () => {
    const queue = (organizationId: string, recipient: string) =>
      db()
        .transaction()
        .execute((trx) =>
          queueMail(trx, {
            organizationId,
            kind: 'rewardIssued',
            recipient,
            subject: 'Your reward',
            html: '<p>Hello</p>',
            text: 'Hello',
          }),
        );
    await queue(tenant.testOrganizationId, 'test.recipient@example.com');
    await queue(tenant.organization.id, 'live.recipient@example.com');
    const sender = startMailSender({
      db: db(),
      smtpUrl: smtp.url,
      mailFrom: 'Patron Test <mail@example.com>',
      logger: quietLogger,
      pollMs: 50,
      sweepMs: 50,
    });
    try {
      const status = async (key: string, recipient: string) =>
        (await request('GET', '/v1/mail-log?limit=100', key))
          .json()
          .data.find((mail: { recipient: string }) => mail.recipient === recipient)?.status as string | undefined;
      await until(async () => (await status(tenant.key, 'live.recipient@example.com')) === 'sent');
      await until(async () => (await status(testKey, 'test.recipient@example.com')) === 'logged');
      // Settled both: the live one arrived, the test one never will (a logged mail is never claimed again).
      expect(smtp.received.flatMap((mail) => mail.envelopeTo)).toContain('live.recipient@example.com');
      expect(smtp.received.flatMap((mail) => mail.envelopeTo)).not.toContain('test.recipient@example.com');
      expect(await status(tenant.key, 'test.recipient@example.com')).toBeUndefined();
    } finally {
      await sender.stop();
    }
  });

  it('a nightly job runs for the twin as for any organization', async () => {
    const berlin = await t.tenant({ timezone: 'Europe/Berlin' });
    // 04:30 in Berlin, after every job's nightly time.
    await runJobs(['loyalty.overnight'], new Date('2031-03-05T03:30:00Z'));
    const runs = await db()
      .selectFrom('jobs')
      .select(['organization_id', 'status'])
      .where('name', '=', 'loyalty.overnight')
      .where('run_key', '=', '2031-03-05')
      .where('organization_id', 'in', [berlin.organization.id, berlin.testOrganizationId])
      .execute();
    expect(runs.map((run) => [run.organization_id, run.status]).sort()).toEqual(
      [
        [berlin.organization.id, 'succeeded'],
        [berlin.testOrganizationId, 'succeeded'],
      ].sort(),
    );
  });
});

describe('POST /v1/test-data/reset', () => {
  it('is refused to a live key, saying to use a test key', async () => {
    const response = await request('POST', '/v1/test-data/reset', tenant.key);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('FORBIDDEN');
    expect(response.json().error.message).toMatch(/test key \(sk_test_…\)/);
  });

  it('is marked test-mode only in /openapi.json, the one operation that is', async () => {
    const document = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const marked = Object.values(document.paths as Record<string, Record<string, Record<string, unknown>>>)
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation['x-test-mode-only'] === true)
      .map((operation) => operation.operationId);
    expect(marked).toEqual(['resetTestData']);
  });

  it('deletes every record of the test data, keeps its keys, endpoints and audit log, and leaves live data alone', async () => {
    const owner = await t.tenant({ name: 'Reset Roasters' });
    const ownerTestKey = await t.key(owner.testOrganizationId);
    for (const key of [owner.key, ownerTestKey]) {
      await createEndpoint(t, { ...owner, key }, { url: `${receiver.origin}/reset`, events: ['site.created'] });
      await createCustomer(key, `ada.${key.startsWith('sk_test_') ? 'test' : 'live'}@example.com`);
      const site = await request('POST', '/v1/sites', key, { name: 'Shop', domain: 'shop.reset.example.com' });
      expect(site.statusCode, site.body).toBe(201);
      const program = await request('POST', '/v1/loyalty-programs', key, { data: { name: 'Second program' } });
      expect(program.statusCode, program.body).toBe(201);
    }
    const counts = async (key: string) => {
      const sizes: Record<string, number> = {};
      for (const path of ['customers', 'sites', 'events', 'webhooks', 'loyalty-programs', 'mail-log']) {
        const response = await request('GET', `/v1/${path}?limit=100`, key);
        expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
        sizes[path] = response.json().data.length;
      }
      return sizes;
    };
    const liveBefore = await counts(owner.key);
    const testBefore = await counts(ownerTestKey);

    const reset = await request('POST', '/v1/test-data/reset', ownerTestKey);
    expect(reset.statusCode, reset.body).toBe(202);
    expect(reset.json()).toMatchObject({ status: 'queued', livemode: false });
    await runJobs([TEST_DATA_RESET_JOB]);

    expect(testBefore).toMatchObject({ customers: 1, sites: 1, webhooks: 1, 'loyalty-programs': 2 });
    expect(testBefore.events).toBeGreaterThan(0);
    // As a new organization's: no records, the default program; the endpoints stay.
    expect(await counts(ownerTestKey)).toEqual({
      customers: 0,
      sites: 0,
      events: 0,
      webhooks: 1,
      'loyalty-programs': 1,
      'mail-log': 0,
    });
    expect(await counts(owner.key)).toEqual(liveBefore);
    // The test key still works, and the audit log still holds the test key's writes, the reset's included.
    const audit = await request('GET', '/v1/audit-log?limit=100', ownerTestKey);
    expect(audit.statusCode).toBe(200);
    expect(audit.json().data.map((entry: { path: string }) => entry.path)).toContain('/v1/test-data/reset');
  });
});

describe('dashboard sessions in test mode', () => {
  let user: UserRow;
  let cookie: string;
  let csrf: string;
  beforeAll(async () => {
    user = await createUser(db(), {
      organizationId: tenant.organization.id,
      email: `owner-${Date.now()}@example.com`,
      role: 'owner',
    });
    const { token, session } = await createSession(db(), user);
    cookie = `patron_session=${token}`;
    csrf = session.csrf_token;
  });
  const as = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    t.request({
      method,
      url,
      body,
      headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }) },
    });

  it('switches into test mode and back: resources and settings are the twin’s, users stay the live organization’s', async () => {
    expect((await as('GET', '/v1/session')).json().testMode).toBe(false);
    expect((await as('POST', '/v1/test-data/reset')).statusCode).toBe(403);

    const switched = await as('PATCH', '/v1/session', { testMode: true });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ testMode: true, organization: { id: tenant.organization.id } });
    expect((await as('GET', '/v1/session')).json().testMode).toBe(true);

    const organization = await as('GET', '/v1/organization');
    expect(organization.json()).toMatchObject({ id: tenant.testOrganizationId, livemode: false });
    // A settings change writes the twin, never the live organization.
    expect((await as('PATCH', '/v1/organization', { data: { settings: { expiringSoonDays: 21 } } })).statusCode).toBe(
      200,
    );
    expect((await request('GET', '/v1/organization', testKey)).json().settings.expiringSoonDays).toBe(21);
    expect((await request('GET', '/v1/organization', tenant.key)).json().settings.expiringSoonDays).toBe(7);

    const imported = await as('POST', '/v1/customers/import', { data: [{ email: 'session.test@example.com' }] });
    expect(imported.statusCode, imported.body).toBe(200);
    const made = imported.json().data[0] as { id: string };
    expect((await request('GET', `/v1/customers/${made.id}`, testKey)).statusCode).toBe(200);
    expect((await request('GET', `/v1/customers/${made.id}`, tenant.key)).statusCode).toBe(404);
    // A key made in test mode is a test key.
    const key = await as('POST', '/v1/keys', { permissions: ['customers:read'] });
    expect(key.statusCode, key.body).toBe(201);
    expect(key.json().key).toMatch(/^sk_test_/);
    // Users are the live organization's.
    const users = await as('GET', '/v1/users');
    expect(users.json().data.map((u: { id: string }) => u.id)).toContain(user.id);
    expect((await as('POST', '/v1/test-data/reset')).statusCode).toBe(202);

    // The session's writes are recorded where they acted: the customer in the twin's log, the switch in the live one's.
    const testAudit = (await request('GET', '/v1/audit-log?limit=100', testKey)).json().data;
    const liveAudit = (await request('GET', '/v1/audit-log?limit=100', tenant.key)).json().data;
    const imports = (entries: { path: string; actor: { type: string } }[]) =>
      entries.filter((entry) => entry.path === '/v1/customers/import' && entry.actor.type === 'user').length;
    expect(imports(testAudit)).toBe(1);
    expect(imports(liveAudit)).toBe(0);
    expect(liveAudit.map((entry: { path: string }) => entry.path)).toContain('/v1/session');

    const back = await as('PATCH', '/v1/session', { testMode: false });
    expect(back.json().testMode).toBe(false);
    expect((await as('GET', '/v1/organization')).json()).toMatchObject({ id: tenant.organization.id, livemode: true });
    expect((await as('GET', `/v1/customers/${made.id}`)).statusCode).toBe(404);
    expect((await as('PATCH', '/v1/session', { testMode: 'yes' })).statusCode).toBe(400);
  });
});
