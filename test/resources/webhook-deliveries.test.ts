import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, webhookAppOptions, type TestApp, type Tenant } from '../support/app.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  bodyOf,
  createEndpoint,
  dispatcherFor,
  expectSignedBy,
  until,
} from '../support/webhooks.js';

const SECRET = 'resource-test-secret-0123456789';

let t: TestApp;
let receiver: WebhookReceiver;
let tenant: Tenant;
let endpoint: { id: string; url: string };
const deliveryIds: string[] = [];

type Delivery = {
  id: string;
  webhookId: string;
  eventName: string;
  idempotencyKey: string;
  url: string;
  payload: { event: string; timestamp: string; idempotencyKey: string; data: any };
  status: string;
  error: string | null;
  responseStatus: number | null;
  createdAt: string;
  updatedAt: string;
};

const list = (query = '', key = tenant.key, id = endpoint.id) =>
  t.request({ url: `/v1/webhooks/${id}/events${query}`, key });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver, { webhookTimeoutMs: 1_000 }));
  tenant = await t.tenant();
  endpoint = await createEndpoint(t, tenant, {
    url: `${receiver.origin}/log`,
    events: ['site.created', 'site.updated'],
    hmacSecret: SECRET,
  });
  // Three site.created deliveries that succeed, one site.updated that the receiver refuses.
  receiver.answer = ({ body }) => ({ status: bodyOf({ body } as never).event === 'site.updated' ? 503 : 200 });
  const sites = [];
  for (let index = 0; index < 3; index++) {
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: `S${index}`, domain: `s${index}.example.com` },
    });
    sites.push(response.json<{ id: string }>());
  }
  await t.request({ method: 'PATCH', url: `/v1/sites/${sites[0]!.id}`, key: tenant.key, body: { name: 'Renamed' } });
  const dispatcher = dispatcherFor(t, receiver);
  await until(async () => {
    const rows = await t.testDatabase.database.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('webhook_id', '=', endpoint.id)
      .execute();
    return rows.length === 4 && rows.every((row) => row.status === 'succeeded' || row.status === 'failed');
  });
  await dispatcher.stop();
  receiver.answer = () => ({ status: 200 });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('GET /v1/webhooks/{id}/events', () => {
  it('lists the deliveries newest first with payloads, statuses and errors', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const { data, nextCursor } = response.json<{ data: Delivery[]; nextCursor: string | null }>();
    expect(nextCursor).toBeNull();
    expect(data.map((delivery) => delivery.eventName)).toEqual([
      'site.updated',
      'site.created',
      'site.created',
      'site.created',
    ]);
    const [updated, created] = data;
    expect(updated).toMatchObject({
      webhookId: endpoint.id,
      status: 'failed',
      error: 'receiver answered HTTP 503',
      responseStatus: 503,
      url: endpoint.url,
    });
    expect(created).toMatchObject({ status: 'succeeded', error: null, responseStatus: 200 });
    expect(Object.keys(updated!.payload)).toEqual(['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data']);
    expect(updated!.payload.data.name).toBe('Renamed');
    expect(updated!.payload.idempotencyKey).toBe(updated!.idempotencyKey);
    // The payload listed is the body that was sent.
    const sent = receiver.received.find((request) => bodyOf(request).idempotencyKey === updated!.idempotencyKey)!;
    expect(bodyOf(sent)).toEqual(updated!.payload);
    deliveryIds.push(...data.map((delivery) => delivery.id));
  });

  it('pages with a cursor and filters on status and eventName', async () => {
    const first = (await list('?limit=3')).json<{ data: Delivery[]; nextCursor: string }>();
    expect(first.data).toHaveLength(3);
    const second = (await list(`?limit=3&cursor=${first.nextCursor}`)).json<{
      data: Delivery[];
      nextCursor: string | null;
    }>();
    expect([...first.data, ...second.data].map((delivery) => delivery.id)).toEqual(deliveryIds);
    expect(second.nextCursor).toBeNull();

    const failed = (await list(`?filter=${encodeURIComponent('{"status":"failed"}')}`)).json<{ data: Delivery[] }>();
    expect(failed.data.map((delivery) => delivery.id)).toEqual([deliveryIds[0]]);
    const created = (
      await list(`?filter=${encodeURIComponent('{"eventName":"site.created","status":{"$in":["succeeded"]}}')}`)
    ).json<{ data: Delivery[] }>();
    expect(created.data).toHaveLength(3);
  });

  it("answers 400 for an unknown filter field or status, and 404 for a missing or another organization's webhook", async () => {
    const badField = await list(
      `?filter=${encodeURIComponent('{"webhookId":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"}')}`,
    );
    expect(badField.statusCode).toBe(400);
    expect(badField.json().error.details[0].path).toBe('query.filter.webhookId');
    const badStatus = await list(`?filter=${encodeURIComponent('{"status":"lost"}')}`);
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json().error.details[0].path).toBe('query.filter.status');

    const other = await t.tenant();
    expect((await list('', other.key)).statusCode).toBe(404);
    expect((await list('', tenant.key, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).statusCode).toBe(404);
    const readOnly = await t.key(tenant.organization.id, ['sites:read']);
    expect((await list('', readOnly)).statusCode).toBe(403);
  });
});

describe('POST /v1/webhooks/{id}/events/{deliveryId}/resend', () => {
  it('sends the delivery again now as a new record with the same idempotencyKey and payload', async () => {
    const [failedId] = deliveryIds;
    const original = (await list()).json<{ data: Delivery[] }>().data.find((delivery) => delivery.id === failedId)!;
    const response = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/events/${failedId}/resend`,
      key: tenant.key,
    });
    expect(response.statusCode).toBe(201);
    const resent = response.json<Delivery>();
    expect(resent.id).not.toBe(original.id);
    expect(resent).toMatchObject({
      idempotencyKey: original.idempotencyKey,
      eventName: 'site.updated',
      status: 'succeeded',
      error: null,
      responseStatus: 200,
    });
    expect(resent.payload).toEqual(original.payload);
    const request = receiver.received.at(-1)!;
    expect(request.headers['webhook-id']).toBe(original.idempotencyKey);
    expect(bodyOf(request)).toEqual(original.payload);
    expectSignedBy(request, SECRET);
    expect((await list()).json<{ data: Delivery[] }>().data[0]!.id).toBe(resent.id);
  });

  it("answers 404 for an unknown delivery or another organization's, and 409 for an inactive endpoint", async () => {
    const missing = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/events/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/resend`,
      key: tenant.key,
    });
    expect(missing.statusCode).toBe(404);
    const other = await t.tenant();
    const foreign = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/events/${deliveryIds[0]}/resend`,
      key: other.key,
    });
    expect(foreign.statusCode).toBe(404);

    const paused = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/paused`,
      events: ['site.created'],
      isActive: false,
    });
    const before = receiver.received.length;
    expect(
      (await t.request({ method: 'POST', url: `/v1/webhooks/${paused.id}/test`, key: tenant.key })).statusCode,
    ).toBe(409);
    expect(receiver.received.length).toBe(before);
  });
});

describe('POST /v1/webhooks/{id}/test', () => {
  it('sends a signed webhook.test ping whose data is the endpoint, and records it', async () => {
    const response = await t.request({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/test`, key: tenant.key });
    expect(response.statusCode).toBe(201);
    const ping = response.json<Delivery>();
    expect(ping).toMatchObject({ eventName: 'webhook.test', status: 'succeeded', webhookId: endpoint.id });
    const request = receiver.received.at(-1)!;
    const envelope = bodyOf(request);
    expect(envelope.event).toBe('webhook.test');
    expect(envelope.idempotencyKey).toBe(ping.idempotencyKey);
    const got = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(request.body.toString('utf8')).toContain(`"data":${got.body}}`);
    expectSignedBy(request, SECRET);
  });

  it('records a ping the receiver refuses as failed, with the error', async () => {
    receiver.answer = () => ({ status: 404 });
    const response = await t.request({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/test`, key: tenant.key });
    receiver.answer = () => ({ status: 200 });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      status: 'failed',
      error: 'receiver answered HTTP 404',
      responseStatus: 404,
    });
    const readOnly = await t.key(tenant.organization.id, ['webhooks:read']);
    expect(
      (await t.request({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/test`, key: readOnly })).statusCode,
    ).toBe(403);
  });
});
