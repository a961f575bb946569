/**
 * Survey flows and surveys (docs/api.md#surveys): flows scheduled by orders gaining their fulfilment dates (import,
 * PATCH, import job), once per order and flow, their requests sent through the mail outbox to a real SMTP server on
 * 127.0.0.1, deleted and answered.
 */
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import type { DB } from '../../src/db/schema.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { IMPORT_JOB_NAME } from '../../src/resources/import-jobs/index.js';
import { startMailSender, type MailSender } from '../../src/resources/mail/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { quietLogger, until } from '../support/webhooks.js';
import { eventsOf } from '../support/events.js';

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

const db = (): Kysely<DB> => t.testDatabase.database.db;
const silent = { info() {}, warn() {}, error() {} };

async function send(
  tenant: Tenant,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  status = 200,
) {
  const response = await t.request({ method, url, key: tenant.key, body });
  expect(response.statusCode, response.body).toBe(status);
  return response.json();
}

const TEMPLATE = {
  kind: 'surveyRequest',
  name: 'How was your order?',
  subject: 'How was order {{ order.number }}, {{ customer.firstName }}?',
  html: '<p>Tell {{ organization.name }}: <a href="{{ survey.url }}">answer</a></p>',
  text: 'Answer at {{ survey.url }}',
};
const QUESTIONS = [
  { id: 'overall', text: 'How was it overall?', kind: 'rating' },
  { id: 'speed', text: 'How was delivery?', kind: 'choice', choices: ['fast', 'ok', 'slow'] },
  { id: 'comment', text: 'Anything else?', kind: 'text' },
];

interface Setup {
  tenant: Tenant;
  templateId: string;
}

/** An organization with a store, two customers (one opted out of marketing email) and a survey template. */
async function organization(): Promise<Setup> {
  const tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  await send(
    tenant,
    'POST',
    '/v1/sites',
    { data: { name: 'Shop', domain: 'shop.example', platform: 'custom', currencyCode: 'EUR' } },
    201,
  );
  await send(tenant, 'POST', '/v1/customers/import', {
    data: [
      { email: 'ada@example.com', firstName: 'Ada' },
      { email: 'out@example.com', firstName: 'Otto', emailOptOut: true },
    ],
  });
  const template = await send(tenant, 'POST', '/v1/email-templates', TEMPLATE, 201);
  return { tenant, templateId: template.id };
}

const flow = (setup: Setup, fields: Record<string, unknown> = {}) =>
  send(
    setup.tenant,
    'POST',
    '/v1/survey-flows',
    {
      name: 'After shipping',
      trigger: 'orderShipped',
      emailTemplateId: setup.templateId,
      questions: QUESTIONS,
      ...fields,
    },
    201,
  );

const importOrders = (setup: Setup, rows: Record<string, unknown>[]) =>
  send(setup.tenant, 'POST', '/v1/orders/import', {
    data: rows.map((row) => ({
      site: 'shop.example',
      customer: 'ada@example.com',
      number: `#${row['remoteId']}`,
      ...row,
    })),
  });

const surveysOf = async (setup: Setup, filter?: Record<string, unknown>) =>
  (
    await send(
      setup.tenant,
      'GET',
      `/v1/surveys?limit=100${filter ? `&filter=${encodeURIComponent(JSON.stringify(filter))}` : ''}`,
    )
  ).data as SurveyRecord[];

interface SurveyRecord {
  id: string;
  surveyFlowId: string;
  customerId: string;
  orderId: string;
  status: string;
  scheduledFor: string;
  sentAt: string | null;
  answeredAt: string | null;
  answers: unknown[];
  mailId: string | null;
}

const sender = (smtpUrl: string | null = smtp.url) => {
  const started = startMailSender({
    db: db(),
    smtpUrl: smtpUrl ?? undefined,
    mailFrom: 'Shop <mail@example.com>',
    logger: quietLogger,
    pollMs: 50,
    sweepMs: 50,
  });
  running.push(started);
  return started;
};

const shippedNow = () => new Date(Date.now() - 60_000).toISOString();

describe('POST /v1/survey-flows', () => {
  it('creates a flow with its defaults and sends surveyFlow.created', async () => {
    const setup = await organization();
    const created = await flow(setup);
    expect(created).toMatchObject({
      name: 'After shipping',
      trigger: 'orderShipped',
      delayDays: 7,
      emailTemplateId: setup.templateId,
      questions: QUESTIONS,
      isActive: true,
      metadata: {},
    });
    const events = await eventsOf(t, setup.tenant.organization.id, { namePrefix: 'surveyFlow.' });
    expect(events.map((event) => event.name)).toEqual(['surveyFlow.created']);
    expect(events[0]!.payload).toEqual(created);
    expect(await send(setup.tenant, 'GET', `/v1/survey-flows/${created.id}`)).toEqual(created);
  });

  it.each([
    ['a missing name and questions', { name: undefined, questions: undefined }, 'body.name'],
    ['delayDays over 365', { delayDays: 366 }, 'body.delayDays'],
    ['an unknown trigger', { trigger: 'orderPaid' }, 'body.trigger'],
    [
      'a repeated question id',
      { questions: [QUESTIONS[0], { ...QUESTIONS[0], text: 'Again?' }] },
      'body.questions[1].id',
    ],
    [
      'a choice question without choices',
      { questions: [{ id: 'q', text: 'Pick', kind: 'choice' }] },
      'body.questions[0].choices',
    ],
    [
      'choices on a rating question',
      { questions: [{ id: 'q', text: 'Rate', kind: 'rating', choices: ['a', 'b'] }] },
      'body.questions[0].choices',
    ],
    ['no questions', { questions: [] }, 'body.questions'],
    ['an unknown field', { channel: 'sms' }, 'body.channel'],
  ])('refuses %s with 400 naming the field, and writes nothing', async (_name, fields, path) => {
    const setup = await organization();
    const response = await t.request({
      method: 'POST',
      url: '/v1/survey-flows',
      key: setup.tenant.key,
      body: { name: 'F', trigger: 'orderShipped', emailTemplateId: setup.templateId, questions: QUESTIONS, ...fields },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(response.json().error.details)).toContain(path);
    expect((await send(setup.tenant, 'GET', '/v1/survey-flows')).data).toEqual([]);
  });

  it('refuses a template of another kind, or of another organization, with 422', async () => {
    const setup = await organization();
    const other = await organization();
    const reward = await send(
      setup.tenant,
      'POST',
      '/v1/email-templates',
      { ...TEMPLATE, kind: 'rewardIssued', subject: 'Reward', html: '<p>{{ reward.code }}</p>', text: '' },
      201,
    );
    for (const emailTemplateId of [reward.id, other.templateId]) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/survey-flows',
        key: setup.tenant.key,
        body: { name: 'F', trigger: 'orderShipped', emailTemplateId, questions: QUESTIONS },
      });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().error.details[0].path).toBe('body.emailTemplateId');
    }
  });
});

describe('PATCH and DELETE /v1/survey-flows/{id}', () => {
  it('changes a flow (surveyFlow.updated), writes nothing for no change, and deletes it with its surveys', async () => {
    const setup = await organization();
    const created = await flow(setup);
    const updated = await send(setup.tenant, 'PATCH', `/v1/survey-flows/${created.id}`, {
      delayDays: 0,
      metadata: { team: 'cx' },
    });
    expect(updated).toMatchObject({ delayDays: 0, metadata: { team: 'cx' } });
    const same = await send(setup.tenant, 'PATCH', `/v1/survey-flows/${created.id}`, { questions: QUESTIONS });
    expect(same.updatedAt).toBe(updated.updatedAt);
    await importOrders(setup, [{ remoteId: 'd1', shippedAt: shippedNow() }]);
    const [survey] = await surveysOf(setup);
    expect(survey!.status).toBe('scheduled');

    // The template cannot go while the flow writes with it.
    const refused = await t.request({
      method: 'DELETE',
      url: `/v1/email-templates/${setup.templateId}`,
      key: setup.tenant.key,
    });
    expect(refused.statusCode, refused.body).toBe(409);

    const deleted = await send(setup.tenant, 'DELETE', `/v1/survey-flows/${created.id}`);
    expect(deleted.id).toBe(created.id);
    expect(await surveysOf(setup)).toEqual([]);
    // Its request, not sent yet, is withdrawn from the outbox.
    expect((await send(setup.tenant, 'GET', '/v1/mail-log')).data).toEqual([]);
    const events = await eventsOf(t, setup.tenant.organization.id, { namePrefix: 'survey' });
    expect(events.map((event) => event.name)).toEqual([
      'surveyFlow.created',
      'surveyFlow.updated',
      'survey.deleted',
      'surveyFlow.deleted',
    ]);
    expect((events[2]!.payload as { id: string }).id).toBe(survey!.id);
    expect((await t.request({ url: `/v1/survey-flows/${created.id}`, key: setup.tenant.key })).statusCode).toBe(404);
    await send(setup.tenant, 'DELETE', `/v1/email-templates/${setup.templateId}`);
  });
});

describe('scheduling surveys', () => {
  it('schedules one survey per active flow when an imported order gains its shipped date, never twice', async () => {
    const setup = await organization();
    const shipped = await flow(setup, { delayDays: 3 });
    const delivered = await flow(setup, { name: 'After delivery', trigger: 'orderDelivered', delayDays: 0 });
    await flow(setup, { name: 'Paused', isActive: false, delayDays: 0 });
    const shippedAt = shippedNow();
    const [order] = (await importOrders(setup, [{ remoteId: 'o1', shippedAt }])).data;
    let surveys = await surveysOf(setup);
    expect(surveys).toHaveLength(1);
    expect(surveys[0]).toMatchObject({
      surveyFlowId: shipped.id,
      orderId: order.id,
      customerId: order.customerId,
      status: 'scheduled',
      sentAt: null,
      answers: [],
    });
    expect(Date.parse(surveys[0]!.scheduledFor)).toBe(Date.parse(shippedAt) + 3 * 86_400_000);
    // Its request waits in the outbox until then, written with the template now.
    const mail = await send(setup.tenant, 'GET', `/v1/mail-log/${surveys[0]!.mailId}`);
    expect(mail).toMatchObject({
      kind: 'surveyRequest',
      marketing: true,
      status: 'queued',
      recipient: 'ada@example.com',
      subject: 'How was order #o1, Ada?',
      dueAt: surveys[0]!.scheduledFor,
    });

    // The same import again, and a later one that adds the delivery date: the shipped flow does not repeat, the
    // delivered flow schedules now (its moment has passed).
    await importOrders(setup, [{ remoteId: 'o1', shippedAt }]);
    await importOrders(setup, [{ remoteId: 'o1', shippedAt, deliveredAt: shippedNow() }]);
    surveys = await surveysOf(setup);
    expect(surveys.map((survey) => survey.surveyFlowId).sort()).toEqual([shipped.id, delivered.id].sort());
    const now = surveys.find((survey) => survey.surveyFlowId === delivered.id)!;
    expect(Math.abs(Date.parse(now.scheduledFor) - Date.now())).toBeLessThan(60_000);

    // Clearing the date and setting it again is no second gain for the same flow.
    await importOrders(setup, [{ remoteId: 'o1', shippedAt: null }]);
    await importOrders(setup, [{ remoteId: 'o1', shippedAt: shippedNow() }]);
    expect(await surveysOf(setup)).toHaveLength(2);
  });

  it('schedules nothing for an order without the date, or one that had it before the flow existed', async () => {
    const setup = await organization();
    await importOrders(setup, [{ remoteId: 'early', shippedAt: shippedNow() }, { remoteId: 'open' }]);
    await flow(setup);
    // Re-importing the already-shipped order changes it (a note in metadata) but it gains nothing.
    await importOrders(setup, [
      { remoteId: 'early', shippedAt: shippedNow(), metadata: { gift: 'yes' } },
      { remoteId: 'open', metadata: { gift: 'no' } },
    ]);
    expect(await surveysOf(setup)).toEqual([]);
  });

  it('schedules through PATCH /v1/orders/{id} setting shippedAt, in the same transaction as the change', async () => {
    const setup = await organization();
    const created = await flow(setup, { delayDays: 0 });
    const [order] = (await importOrders(setup, [{ remoteId: 'p1' }])).data;
    const patched = await send(setup.tenant, 'PATCH', `/v1/orders/${order.id}`, { shippedAt: '2026-01-02T03:04:05Z' });
    expect(patched.shippedAt).toBe('2026-01-02T03:04:05.000Z');
    const [survey] = await surveysOf(setup, { orderId: order.id });
    expect(survey).toMatchObject({ surveyFlowId: created.id, status: 'scheduled' });
    await send(setup.tenant, 'PATCH', `/v1/orders/${order.id}`, { shippedAt: '2026-01-03T00:00:00Z' });
    expect(await surveysOf(setup)).toHaveLength(1);
    // A bad date is 400 and changes nothing.
    const bad = await t.request({
      method: 'PATCH',
      url: `/v1/orders/${order.id}`,
      key: setup.tenant.key,
      body: { deliveredAt: 'tomorrow' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].path).toBe('body.deliveredAt');
  });

  it('schedules through an import job', async () => {
    const setup = await organization();
    await flow(setup, { delayDays: 0 });
    const csv = `site,customer,remoteId,number,shippedAt\nshop.example,ada@example.com,j1,#j1,${shippedNow()}\n`;
    const job = await t.request({
      method: 'POST',
      url: '/v1/import-jobs?resource=orders',
      key: setup.tenant.key,
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
    expect(job.statusCode, job.body).toBe(202);
    const runner = createJobRunner({
      db: db(),
      jobs: scheduledJobs(t.config).filter((each) => each.name === IMPORT_JOB_NAME),
      logger: silent,
    });
    while ((await runner.tick()) > 0);
    const surveys = await surveysOf(setup);
    expect(surveys).toHaveLength(1);
  });

  it('schedules one survey when the same order is imported by many writers at once', async () => {
    const setup = await organization();
    await flow(setup, { delayDays: 0 });
    const shippedAt = shippedNow();
    await Promise.all(
      Array.from({ length: 6 }, () =>
        t.request({
          method: 'POST',
          url: '/v1/orders/import',
          key: setup.tenant.key,
          body: {
            data: [{ site: 'shop.example', customer: 'ada@example.com', remoteId: 'race', number: '#r', shippedAt }],
          },
        }),
      ),
    );
    expect(await surveysOf(setup)).toHaveLength(1);
    expect((await send(setup.tenant, 'GET', '/v1/mail-log')).data).toHaveLength(1);
  });
});

describe('sending survey requests', () => {
  it('sends the request when due, marks the survey sent, and suppresses it for an opted-out customer', async () => {
    const setup = await organization();
    await flow(setup, { delayDays: 0 });
    await importOrders(setup, [
      { remoteId: 's1', shippedAt: shippedNow() },
      { remoteId: 's2', customer: 'out@example.com', shippedAt: shippedNow() },
    ]);
    sender();
    const settled = await until(async () => {
      const surveys = await surveysOf(setup);
      return surveys.every((survey) => survey.status !== 'scheduled') && surveys;
    });
    const byStatus = Object.fromEntries(settled.map((survey) => [survey.status, survey]));
    expect(Object.keys(byStatus).sort()).toEqual(['sent', 'suppressed']);
    expect(byStatus['sent']!.sentAt).not.toBeNull();
    expect(byStatus['suppressed']!.sentAt).toBeNull();
    const [received] = smtp.withMessageId(`<${byStatus['sent']!.mailId}@example.com>`);
    expect(received!.envelopeTo).toEqual(['ada@example.com']);
    expect(received!.parsed.subject).toBe('How was order #s1, Ada?');
    expect(received!.parsed.text).toContain(`https://shop.example/survey/${byStatus['sent']!.id}`);
    expect(smtp.received.filter((mail) => mail.envelopeTo.includes('out@example.com'))).toEqual([]);
  });

  it('counts a request only logged (no SMTP server) as sent', async () => {
    const setup = await organization();
    await flow(setup, { delayDays: 0 });
    await importOrders(setup, [{ remoteId: 'l1', shippedAt: shippedNow() }]);
    sender(null);
    const [survey] = await until(async () => {
      const surveys = await surveysOf(setup);
      return surveys[0]?.status === 'sent' && surveys;
    });
    expect((await send(setup.tenant, 'GET', `/v1/mail-log/${survey!.mailId}`)).status).toBe('logged');
  });
});

describe('POST /v1/surveys/{id}/answers', () => {
  it('records valid answers once, withdrawing a request not sent yet', async () => {
    const setup = await organization();
    await flow(setup, { delayDays: 30 });
    await importOrders(setup, [{ remoteId: 'a1', shippedAt: shippedNow() }]);
    const [survey] = await surveysOf(setup);
    const answers = [
      { questionId: 'overall', step: 5 },
      { questionId: 'speed', choice: 'fast' },
      { questionId: 'comment', text: 'Lovely.' },
    ];
    const answered = await send(setup.tenant, 'POST', `/v1/surveys/${survey!.id}/answers`, { answers });
    expect(answered).toMatchObject({ status: 'answered', answers, mailId: null });
    expect(answered.answeredAt).not.toBeNull();
    expect(await send(setup.tenant, 'GET', `/v1/surveys/${survey!.id}`)).toEqual(answered);
    expect((await send(setup.tenant, 'GET', '/v1/mail-log')).data).toEqual([]);
    const again = await t.request({
      method: 'POST',
      url: `/v1/surveys/${survey!.id}/answers`,
      key: setup.tenant.key,
      body: { answers: [{ questionId: 'overall', step: 1 }] },
    });
    expect(again.statusCode).toBe(409);
    expect((await surveysOf(setup, { status: 'answered' })).map((each) => each.id)).toEqual([survey!.id]);
  });

  it.each([
    ['an unknown question', [{ questionId: 'nope', step: 3 }], 'body.answers[0].questionId'],
    ['a step on a choice question', [{ questionId: 'speed', step: 3 }], 'body.answers[0].step'],
    ['a rating without its step', [{ questionId: 'overall', text: 'good' }], 'body.answers[0].step'],
    ['a choice not offered', [{ questionId: 'speed', choice: 'teleported' }], 'body.answers[0].choice'],
    ['a step out of 1..5', [{ questionId: 'overall', step: 6 }], 'body.answers[0].step'],
    [
      'a question answered twice',
      [
        { questionId: 'comment', text: 'a' },
        { questionId: 'comment', text: 'b' },
      ],
      'body.answers[1].questionId',
    ],
  ])('refuses %s with 400 naming it, and records nothing', async (_name, answers, path) => {
    const setup = await organization();
    await flow(setup);
    await importOrders(setup, [{ remoteId: 'v1', shippedAt: shippedNow() }]);
    const [survey] = await surveysOf(setup);
    const response = await t.request({
      method: 'POST',
      url: `/v1/surveys/${survey!.id}/answers`,
      key: setup.tenant.key,
      body: { answers },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(JSON.stringify(response.json().error.details)).toContain(path);
    expect((await send(setup.tenant, 'GET', `/v1/surveys/${survey!.id}`)).status).toBe('scheduled');
  });
});

describe('DELETE /v1/surveys/{id} and deleting orders', () => {
  it('deletes a survey with survey.deleted, and answers like a missing one to another organization', async () => {
    const setup = await organization();
    const other = await organization();
    await flow(setup);
    await importOrders(setup, [{ remoteId: 'x1', shippedAt: shippedNow() }]);
    const [survey] = await surveysOf(setup);
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await t.request({ method, url: `/v1/surveys/${survey!.id}`, key: other.tenant.key });
      expect(response.statusCode).toBe(404);
    }
    const deleted = await send(setup.tenant, 'DELETE', `/v1/surveys/${survey!.id}`);
    expect(deleted.id).toBe(survey!.id);
    const [event] = await eventsOf(t, setup.tenant.organization.id, { namePrefix: 'survey.' });
    expect(event!.name).toBe('survey.deleted');
    expect(event!.payload).toEqual(deleted);
    expect((await t.request({ url: `/v1/surveys/${survey!.id}`, key: setup.tenant.key })).statusCode).toBe(404);
    expect((await send(setup.tenant, 'GET', '/v1/mail-log')).data).toEqual([]);
  });

  it("deletes an order's surveys with it, each with survey.deleted before order.deleted", async () => {
    const setup = await organization();
    await flow(setup);
    const [order] = (await importOrders(setup, [{ remoteId: 'y1', shippedAt: shippedNow() }])).data;
    await send(setup.tenant, 'DELETE', `/v1/orders/${order.id}`);
    expect(await surveysOf(setup)).toEqual([]);
    const names = (
      await db()
        .selectFrom('events')
        .select('name')
        .where('organization_id', '=', setup.tenant.organization.id)
        .where('name', 'in', ['survey.deleted', 'order.deleted'])
        .orderBy('position')
        .execute()
    ).map((row) => row.name);
    expect(names).toEqual(['survey.deleted', 'order.deleted']);
  });
});

describe('GET /v1/surveys includes', () => {
  it('embeds the customer and the order on the list and on one survey', async () => {
    const setup = await organization();
    await flow(setup);
    const [order] = (await importOrders(setup, [{ remoteId: 'i1', shippedAt: shippedNow() }])).data;
    const { data } = await send(setup.tenant, 'GET', '/v1/surveys?include=customer,order');
    expect(data[0].customer).toMatchObject({ id: order.customerId, email: 'ada@example.com', firstName: 'Ada' });
    expect(data[0].order).toMatchObject({ id: order.id, number: '#i1' });
    const one = await send(setup.tenant, 'GET', `/v1/surveys/${data[0].id}?include=order`);
    expect(one.order.id).toBe(order.id);
    expect(one.customer).toBeUndefined();
    const bad = await t.request({ url: '/v1/surveys?include=flow', key: setup.tenant.key });
    expect(bad.statusCode).toBe(400);
  });
});
