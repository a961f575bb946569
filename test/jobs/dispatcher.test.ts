import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/jobs/dispatcher/dispatcher.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  bodyOf,
  createEndpoint,
  dispatcherFor,
  expectSignedBy,
  until,
} from '../support/webhooks.js';

const SECRET = 'a-receiver-secret-0123456789';
const TIMEOUT_MS = 1_000;

let t: TestApp;
let receiver: WebhookReceiver;
const running: Dispatcher[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { webhookAllowPrivateHosts: true, webhookTimeoutMs: TIMEOUT_MS } });
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((dispatcher) => dispatcher.stop()));
  receiver.answer = () => ({ status: 200 });
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const db = () => t.testDatabase.database.db;
const start = (options: Parameters<typeof dispatcherFor>[2] = {}) => {
  const dispatcher = dispatcherFor(t, receiver, options);
  running.push(dispatcher);
  return dispatcher;
};
const deliveriesOf = (webhookId: string) =>
  db()
    .selectFrom('webhook_delivery_records')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('sequence')
    .execute();
/**
 * Resolves once the endpoint's queue is empty and no dispatcher holds it: its cursor (settled_through) has reached its
 * last delivery and the worker that found nothing left gave the lease back. Only a new delivery could make it send
 * again, so a test may then check that nothing more was received.
 */
const drained = (webhookId: string) =>
  until(async () => {
    const endpoint = await db()
      .selectFrom('webhook_endpoints')
      .select(['last_sequence', 'settled_through', 'lease_owner'])
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    return Number(endpoint.settled_through) >= Number(endpoint.last_sequence) && endpoint.lease_owner === null;
  });
const settled = (webhookId: string, count: number) =>
  until(async () => {
    const rows = await deliveriesOf(webhookId);
    return rows.length >= count && rows.every((row) => row.status === 'succeeded' || row.status === 'failed') && rows;
  });

let siteCounter = 0;
const createSite = async (tenant: Tenant) => {
  const response = await t.request({
    method: 'POST',
    url: '/v1/sites',
    key: tenant.key,
    body: { name: `Shop ${++siteCounter}`, domain: `shop${siteCounter}-${Date.now()}.example.com` },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string; name: string }>();
};

describe('webhook dispatcher', () => {
  it('POSTs the envelope with the record exactly as the API returns it, signed both ways', async () => {
    const tenant = await t.tenant();
    const endpoint = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/envelope`,
      events: ['site.created', 'site.updated'],
      hmacSecret: SECRET,
    });
    start();
    const site = await createSite(tenant);
    const [request] = await receiver.waitFor(1, '/envelope');
    const envelope = bodyOf(request!);
    expect(Object.keys(envelope)).toEqual(['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data']);
    expect(envelope.event).toBe('site.created');
    expect(envelope.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key });
    // Byte-identical: the data member is the GET body's text.
    expect(request!.body.toString('utf8')).toContain(`"data":${got.body}}`);
    const [event] = await db()
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'site.created')
      .execute();
    expect(envelope.idempotencyKey).toBe(event!.id);
    expect(request!.headers['webhook-id']).toBe(envelope.idempotencyKey);
    expect(request!.headers['content-type']).toBe('application/json');
    expectSignedBy(request!, SECRET);
    const [row] = await settled(endpoint.id, 1);
    expect(row).toMatchObject({ status: 'succeeded', error: null, response_status: 200, idempotency_key: event!.id });
  });

  it('sends unsigned deliveries without signature headers when the endpoint has no secret', async () => {
    const tenant = await t.tenant();
    await createEndpoint(t, tenant, { url: `${receiver.origin}/unsigned`, events: ['site.created'] });
    start();
    await createSite(tenant);
    const [request] = await receiver.waitFor(1, '/unsigned');
    expect(request!.headers['x-webhook-signature']).toBeUndefined();
    expect(request!.headers['webhook-signature']).toBeUndefined();
    expect(request!.headers['webhook-id']).toBe(bodyOf(request!).idempotencyKey);
  });

  it('records non-2xx, time-outs and refused connections as failed with their error, and does not retry', async () => {
    const tenant = await t.tenant();
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const rejecting = await createEndpoint(t, tenant, { url: `${receiver.origin}/500`, events: ['site.created'] });
    const slow = await createEndpoint(t, tenant, { url: `${receiver.origin}/slow`, events: ['site.created'] });
    const refused = await createEndpoint(t, tenant, {
      url: `https://127.0.0.1:${closedPort}/x`,
      events: ['site.created'],
    });
    const redirecting = await createEndpoint(t, tenant, { url: `${receiver.origin}/302`, events: ['site.created'] });
    receiver.answer = ({ path }) =>
      path === '/500'
        ? { status: 500 }
        : path === '/slow'
          ? { status: 200, delayMs: TIMEOUT_MS + 500 }
          : path === '/302'
            ? { status: 302 }
            : {};
    start();
    await createSite(tenant);
    expect((await settled(rejecting.id, 1))[0]).toMatchObject({
      status: 'failed',
      error: 'receiver answered HTTP 500',
      response_status: 500,
    });
    expect((await settled(slow.id, 1))[0]).toMatchObject({
      status: 'failed',
      error: `timed out after ${TIMEOUT_MS} ms`,
      response_status: null,
    });
    expect((await settled(refused.id, 1))[0]).toMatchObject({ status: 'failed', error: 'connection refused' });
    expect((await settled(redirecting.id, 1))[0]).toMatchObject({
      status: 'failed',
      error: 'receiver answered HTTP 302',
    });
    // The failed payload is kept: it is what was sent.
    const [failed] = await deliveriesOf(rejecting.id);
    expect((failed!.payload as { event: string }).event).toBe('site.created');
    await drained(rejecting.id);
    expect(receiver.received.filter((request) => request.path === '/500')).toHaveLength(1);
  });

  it('delivers per endpoint in commit order under concurrent writes', async () => {
    const tenant = await t.tenant();
    const endpoint = await createEndpoint(t, tenant, { url: `${receiver.origin}/order`, events: ['site.updated'] });
    const site = await createSite(tenant);
    start();
    const names = Array.from({ length: 40 }, (_, index) => `name-${index}`);
    await Promise.all(
      names.map((name) => t.request({ method: 'PATCH', url: `/v1/sites/${site.id}`, key: tenant.key, body: { name } })),
    );
    const received = await receiver.waitFor(names.length, '/order');
    const rows = await settled(endpoint.id, names.length);
    expect(rows.map((row) => Number(row.sequence))).toEqual(names.map((_, index) => index + 1));
    // Received in sequence order, and the last one received is the state that committed last.
    const sequenceOf = new Map(rows.map((row) => [row.idempotency_key, Number(row.sequence)]));
    const receivedSequences = received.map((request) => sequenceOf.get(bodyOf(request).idempotencyKey));
    expect(receivedSequences).toEqual([...receivedSequences].sort((a, b) => a! - b!));
    const final = (await t.request({ url: `/v1/sites/${site.id}`, key: tenant.key })).json<{ name: string }>();
    expect(bodyOf(received.at(-1)!).data.name).toBe(final.name);
  });

  it('does not let a slow endpoint delay another', async () => {
    const tenant = await t.tenant();
    await createEndpoint(t, tenant, { url: `${receiver.origin}/tortoise`, events: ['site.created'] });
    await createEndpoint(t, tenant, { url: `${receiver.origin}/hare`, events: ['site.created'] });
    receiver.answer = ({ path }) => (path === '/tortoise' ? { delayMs: 600 } : {});
    start();
    for (let index = 0; index < 5; index++) await createSite(tenant);
    const hare = await receiver.waitFor(5, '/hare');
    const tortoise = receiver.received.filter((request) => request.path === '/tortoise');
    expect(tortoise.length).toBeLessThan(3);
    expect(hare.at(-1)!.receivedAt).toBeLessThan(tortoise[0]!.receivedAt + 600);
  });

  it('sends nothing to an inactive or deleted endpoint', async () => {
    const tenant = await t.tenant();
    const paused = await createEndpoint(t, tenant, { url: `${receiver.origin}/paused`, events: ['site.created'] });
    const deleted = await createEndpoint(t, tenant, { url: `${receiver.origin}/deleted`, events: ['site.created'] });
    const inactive = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/inactive`,
      events: ['site.created'],
      isActive: false,
    });
    // Queued while active, then paused or deleted before the dispatcher runs.
    await createSite(tenant);
    expect(await deliveriesOf(paused.id)).toHaveLength(1);
    expect(await deliveriesOf(inactive.id)).toHaveLength(0);
    expect(
      (await t.request({ method: 'PUT', url: `/v1/webhooks/${paused.id}`, key: tenant.key, body: { isActive: false } }))
        .statusCode,
    ).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/v1/webhooks/${deleted.id}`, key: tenant.key })).statusCode).toBe(
      200,
    );
    await createSite(tenant);
    start();
    const [row] = await settled(paused.id, 1);
    expect(row).toMatchObject({ status: 'failed', error: 'endpoint inactive' });
    expect(await deliveriesOf(paused.id)).toHaveLength(1);
    expect(await deliveriesOf(deleted.id)).toHaveLength(0);
    // The deleted endpoint has no queue left, the inactive one never had one: the paused one is the last to drain.
    await drained(paused.id);
    await drained(inactive.id);
    expect(receiver.received.filter((request) => ['/paused', '/deleted', '/inactive'].includes(request.path))).toEqual(
      [],
    );
  });

  it('stops a window between POSTs when the endpoint is deactivated, recording the rest inactive', async () => {
    const tenant = await t.tenant();
    const endpoint = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/paused-mid-window`,
      events: ['site.created'],
    });
    for (let index = 0; index < 6; index++) await createSite(tenant);
    receiver.answer = () => ({ delayMs: 150 });
    // The endpoint is read again before every POST of the window.
    start();
    await receiver.waitFor(1, '/paused-mid-window');
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/v1/webhooks/${endpoint.id}`,
          key: tenant.key,
          body: { isActive: false },
        })
      ).statusCode,
    ).toBe(200);
    const rows = await settled(endpoint.id, 6);
    const sent = receiver.received.filter((request) => request.path === '/paused-mid-window').length;
    // The POST in flight when the PUT committed completes; nothing starts after it.
    expect(sent).toBeLessThanOrEqual(2);
    expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(sent);
    expect(rows.filter((row) => row.status === 'failed').map((row) => row.error)).toEqual(
      Array(6 - sent).fill('endpoint inactive'),
    );
  });

  it('gives the unsent rest of a window back on stop, for the next dispatcher to send once', async () => {
    const tenant = await t.tenant();
    const endpoint = await createEndpoint(t, tenant, { url: `${receiver.origin}/handover`, events: ['site.created'] });
    for (let index = 0; index < 5; index++) await createSite(tenant);
    receiver.answer = () => ({ delayMs: 100 });
    const first = start({ stopGraceMs: 2_000 });
    await receiver.waitFor(1, '/handover');
    await first.stop();
    const between = await deliveriesOf(endpoint.id);
    // The POST in flight finished within the grace period; the rest waits, claimed by no one.
    expect(between.filter((row) => row.status === 'succeeded').length).toBeGreaterThanOrEqual(1);
    expect(between.filter((row) => row.status !== 'succeeded').map((row) => row.status)).toEqual(
      Array(between.filter((row) => row.status !== 'succeeded').length).fill('pending'),
    );
    receiver.answer = () => ({});
    start();
    const rows = await settled(endpoint.id, 5);
    expect(rows.map((row) => row.status)).toEqual(Array(5).fill('succeeded'));
    const keys = receiver.received
      .filter((request) => request.path === '/handover')
      .map((request) => bodyOf(request).idempotencyKey);
    expect(keys).toEqual(rows.map((row) => row.idempotency_key));
  });

  it('sends a backlog in several windows, in order, without a stored envelope copy', async () => {
    const tenant = await t.tenant();
    const endpoint = await createEndpoint(t, tenant, { url: `${receiver.origin}/windows`, events: ['site.created'] });
    for (let index = 0; index < 12; index++) await createSite(tenant);
    const stored = await db()
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('webhook_id', '=', endpoint.id)
      .execute();
    expect(stored.map((row) => row.payload)).toEqual(Array(12).fill(null));
    start({ windowSize: 5 });
    const received = await receiver.waitFor(12, '/windows');
    const rows = await settled(endpoint.id, 12);
    expect(received.map((request) => bodyOf(request).idempotencyKey)).toEqual(rows.map((row) => row.idempotency_key));
    expect(received.map((request) => request.body.toString('utf8'))).toEqual(
      rows.map((row) => JSON.stringify(row.payload)),
    );
  });

  it('refuses at send a host that resolves to a private address when the policy forbids it', async () => {
    const tenant = await t.tenant();
    // Created while private hosts were allowed; the dispatcher runs under the default policy.
    const byName = await createEndpoint(t, tenant, {
      url: `${receiver.origin.replace('127.0.0.1', 'localhost')}/ssrf-name`,
      events: ['site.created'],
    });
    const byAddress = await createEndpoint(t, tenant, { url: `${receiver.origin}/ssrf-ip`, events: ['site.created'] });
    start({ config: { ...t.config, webhookAllowPrivateHosts: false } });
    await createSite(tenant);
    const [nameRow] = await settled(byName.id, 1);
    const [addressRow] = await settled(byAddress.id, 1);
    expect(nameRow!.status).toBe('failed');
    // The internal address the name resolved to is not disclosed.
    expect(nameRow!.error).toBe('forbidden address (localhost is not a public host)');
    expect(addressRow).toMatchObject({ status: 'failed', error: 'forbidden address (127.0.0.1)' });
    expect(receiver.received.filter((request) => request.path.startsWith('/ssrf'))).toEqual([]);
  });

  it('shares the work between two dispatchers without sending anything twice', async () => {
    const tenant = await t.tenant();
    const endpoints = await Promise.all(
      ['/pair-a', '/pair-b', '/pair-c'].map((path) =>
        createEndpoint(t, tenant, { url: `${receiver.origin}${path}`, events: ['site.created'] }),
      ),
    );
    start();
    start();
    await Promise.all(Array.from({ length: 10 }, () => createSite(tenant)));
    for (const endpoint of endpoints) await settled(endpoint.id, 10);
    for (const path of ['/pair-a', '/pair-b', '/pair-c']) {
      const keys = receiver.received
        .filter((request) => request.path === path)
        .map((request) => bodyOf(request).idempotencyKey);
      expect(keys).toHaveLength(10);
      expect(new Set(keys).size).toBe(10);
    }
  });
});
