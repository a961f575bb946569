import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, webhookAppOptions, type TestApp, type Tenant } from '../support/app.js';
import { nextMillisecond } from '../support/clock.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  bodyOf,
  createEndpoint,
  dispatcherFor,
  until,
} from '../support/webhooks.js';

/**
 * POST /v1/webhooks/{id}/recover (docs/api.md#recovering-a-receivers-outage): after a receiver's outage, every
 * failed delivery since a time is queued again, as new records keeping their idempotencyKey, in order.
 */
let t: TestApp;
let receiver: WebhookReceiver;
let tenant: Tenant;

type Delivery = { id: string; idempotencyKey: string; eventName: string; status: string; createdAt: string };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver, { webhookTimeoutMs: 1_000 }));
  tenant = await t.tenant();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const db = () => t.testDatabase.database.db;

async function createSites(count: number, prefix: string) {
  for (let index = 0; index < count; index++) {
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: `${prefix} ${index}`, domain: `${prefix}${index}.example.com` },
    });
    expect(response.statusCode).toBe(201);
  }
}

/** Runs a dispatcher until every delivery of the endpoint has its outcome. */
async function dispatchAll(webhookId: string) {
  const dispatcher = dispatcherFor(t, receiver);
  try {
    await until(async () => {
      const rows = await db()
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('organization_id', '=', tenant.organization.id)
        .where('webhook_id', '=', webhookId)
        .execute();
      return rows.every((row) => row.status === 'succeeded' || row.status === 'failed');
    }, 20_000);
  } finally {
    await dispatcher.stop();
  }
}

async function deliveries(webhookId: string): Promise<Delivery[]> {
  const response = await t.request({
    url: `/v1/webhooks/${webhookId}/events?limit=100&sort=createdAt`,
    key: tenant.key,
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ data: Delivery[] }>().data;
}

const recover = (webhookId: string, body: unknown, key = tenant.key) =>
  t.request({ method: 'POST', url: `/v1/webhooks/${webhookId}/recover`, key, body });

describe('POST /v1/webhooks/{id}/recover', () => {
  it('queues every failed delivery since a time once, in order, with the same idempotencyKey and payload', async () => {
    const path = '/recover-outage';
    const endpoint = await createEndpoint(t, tenant, { url: `${receiver.origin}${path}`, events: ['site.created'] });

    // Before the outage window: one failure that is not recovered (older than `since`).
    receiver.answer = () => ({ status: 500 });
    await createSites(1, 'before');
    await dispatchAll(endpoint.id);
    await nextMillisecond();
    const since = new Date().toISOString();

    // The outage: six deliveries fail.
    await createSites(6, 'outage');
    await dispatchAll(endpoint.id);
    const failed = (await deliveries(endpoint.id)).filter((row) => row.createdAt >= since);
    expect(failed.map((row) => row.status)).toEqual(Array(6).fill('failed'));

    // The receiver is back. One of the six was already resent by hand successfully: it is not sent again.
    receiver.answer = () => ({ status: 200 });
    const resent = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/events/${failed[2]!.id}/resend`,
      key: tenant.key,
    });
    expect(resent.json()).toMatchObject({ status: 'succeeded' });
    // A failed test ping is not an event: it is not recovered.
    receiver.answer = () => ({ status: 500 });
    expect(
      (await t.request({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/test`, key: tenant.key })).json(),
    ).toMatchObject({ status: 'failed' });
    receiver.answer = () => ({ status: 200 });
    const receivedBefore = receiver.received.filter((request) => request.path === path).length;

    const response = await recover(endpoint.id, { since });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({ queued: 5, more: false });
    // Recovering again while they wait queues nothing more.
    expect((await recover(endpoint.id, { since })).json()).toEqual({ queued: 0, more: false });

    await dispatchAll(endpoint.id);
    const sent = receiver.received
      .filter((request) => request.path === path)
      .slice(receivedBefore)
      .map(bodyOf);
    const expected = failed.filter((_, index) => index !== 2);
    expect(sent.map((body) => body.idempotencyKey)).toEqual(expected.map((row) => row.idempotencyKey));
    expect(sent.every((body) => body.event === 'site.created')).toBe(true);
    expect(sent.map((body) => body.data.name)).toEqual(['outage 0', 'outage 1', 'outage 3', 'outage 4', 'outage 5']);

    const log = await deliveries(endpoint.id);
    // The originals stay as they were; the new records succeeded.
    expect(log.filter((row) => failed.some((original) => original.id === row.id)).map((row) => row.status)).toEqual(
      Array(6).fill('failed'),
    );
    const recovered = log.slice(-5);
    expect(recovered.map((row) => row.idempotencyKey)).toEqual(expected.map((row) => row.idempotencyKey));
    expect(recovered.map((row) => row.status)).toEqual(Array(5).fill('succeeded'));

    // From the start of time, only the failure before the outage is left to recover.
    expect((await recover(endpoint.id, { since: '2000-01-01T00:00:00Z' })).json()).toEqual({ queued: 1, more: false });
  });

  it("answers 404 for a missing or another organization's endpoint, 409 for an inactive one, 400 for a bad since, and changes nothing", async () => {
    const endpoint = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/recover-refusals`,
      events: ['site.created'],
    });
    const other = await t.tenant();
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const since = '2000-01-01T00:00:00Z';

    const foreign = await recover(endpoint.id, { since }, other.key);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('NOT_FOUND');
    expect((await recover('00000000-0000-7000-8000-000000000000', { since })).statusCode).toBe(404);

    for (const body of [{}, { since: 'yesterday' }, { since, extra: 1 }]) {
      const refused = await recover(endpoint.id, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code).toBe('VALIDATION_ERROR');
    }

    const readOnly = await t.key(tenant.organization.id, ['webhooks:read']);
    expect((await recover(endpoint.id, { since }, readOnly)).statusCode).toBe(403);

    await t.request({ method: 'PUT', url: `/v1/webhooks/${endpoint.id}`, key: tenant.key, body: { isActive: false } });
    const inactive = await recover(endpoint.id, { since });
    expect(inactive.statusCode).toBe(409);
    expect(inactive.json().error.code).toBe('CONFLICT');
    expect(await count()).toBe(before);
  });

  it('costs 5 tokens', async () => {
    // A small allowance refills 0.2 tokens a second, so the time between the two requests cannot move the count.
    const frugal = await t.tenant({ apiRequestsPerMinute: 12 });
    const endpoint = await createEndpoint(t, frugal, {
      url: `${receiver.origin}/recover-cost`,
      events: ['site.created'],
    });
    const first = await recover(endpoint.id, { since: '2000-01-01T00:00:00Z' }, frugal.key);
    const second = await recover(endpoint.id, { since: '2000-01-01T00:00:00Z' }, frugal.key);
    const remaining = (response: typeof first) => Number(/r=(\d+)/.exec(String(response.headers['ratelimit']))?.[1]);
    expect(remaining(first) - remaining(second)).toBe(5);
  });
});
