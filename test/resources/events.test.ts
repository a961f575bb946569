import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, webhookAppOptions, type TestApp, type Tenant } from '../support/app.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  bodyOf,
  createEndpoint,
  dispatcherFor,
  expectSignedBy,
} from '../support/webhooks.js';

const SECRET = 'events-test-secret-0123456789abc';

let t: TestApp;
let receiver: WebhookReceiver;
let tenant: Tenant;
let other: Tenant;
let subscribed: { id: string; url: string };
let unsubscribed: { id: string; url: string };
const sites: { id: string }[] = [];

type Envelope = { id: string; event: string; timestamp: string; idempotencyKey: string; livemode: boolean; data: any };
type Page = { data: Envelope[]; nextCursor: string | null };

const get = (url: string, key = tenant.key) => t.request({ url, key });
const list = async (query = '', key = tenant.key): Promise<Page> => {
  const response = await get(`/v1/events${query}`, key);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Page>();
};
const q = (value: string) => encodeURIComponent(value);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver, { webhookTimeoutMs: 2_000 }));
  tenant = await t.tenant();
  other = await t.tenant();
  subscribed = await createEndpoint(t, tenant, {
    url: `${receiver.origin}/subscribed`,
    events: ['site.created'],
    hmacSecret: SECRET,
  });
  unsubscribed = await createEndpoint(t, tenant, {
    url: `${receiver.origin}/unsubscribed`,
    events: ['order.deleted'],
    hmacSecret: SECRET,
  });
  for (let index = 0; index < 3; index++) {
    const response = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: `Site ${index}`, domain: `s${index}.events.example.com` },
    });
    expect(response.statusCode, response.body).toBe(201);
    sites.push(response.json<{ id: string }>());
  }
  const renamed = await t.request({
    method: 'PATCH',
    url: `/v1/sites/${sites[0]!.id}`,
    key: tenant.key,
    body: { name: 'Renamed' },
  });
  expect(renamed.statusCode, renamed.body).toBe(200);
  // The other organization has events of its own.
  await t.request({
    method: 'POST',
    url: '/v1/sites',
    key: other.key,
    body: { name: 'Theirs', domain: 'theirs.events.example.com' },
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('GET /v1/events', () => {
  it('lists every event of the organization newest first, subscribed to or not', async () => {
    const { data, nextCursor } = await list();
    expect(nextCursor).toBeNull();
    const siteEvents = data.filter((event) => event.event.startsWith('site.'));
    expect(siteEvents.map((event) => [event.event, event.data.id])).toEqual([
      ['site.updated', sites[0]!.id],
      ['site.created', sites[2]!.id],
      ['site.created', sites[1]!.id],
      ['site.created', sites[0]!.id],
    ]);
    // webhook.created for the two endpoints, nobody subscribed to them.
    expect(data.filter((event) => event.event === 'webhook.created')).toHaveLength(2);
    for (const event of data) {
      expect(Object.keys(event)).toEqual(['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data']);
      expect(event.idempotencyKey).toBe(event.id);
      expect(event.livemode).toBe(true);
    }
    const ids = data.map((event) => event.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(JSON.stringify(data)).not.toContain('Theirs');
  });

  it('reads an event byte for byte as its delivery sent it, signatures aside', async () => {
    const dispatcher = dispatcherFor(t, receiver);
    try {
      const delivered = await receiver.waitFor(3, '/subscribed');
      for (const request of delivered) {
        expectSignedBy(request, SECRET);
        const { id } = bodyOf(request) as unknown as Envelope;
        const response = await get(`/v1/events/${id}`);
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.rawPayload.equals(request.body)).toBe(true);
      }
    } finally {
      await dispatcher.stop();
    }
  });

  it('the list carries the same bytes as the single read', async () => {
    const { data } = await list('?limit=1');
    const single = await get(`/v1/events/${data[0]!.id}`);
    const page = (await get('/v1/events?limit=1')).body;
    expect(page).toBe(`{"data":[${single.body}],"nextCursor":${JSON.stringify((await list('?limit=1')).nextCursor)}}`);
  });

  it('filters on an exact type, a prefix, objectId and a createdAt range', async () => {
    const exact = await list(`?type=site.created`);
    expect(exact.data.map((event) => event.data.id)).toEqual([sites[2]!.id, sites[1]!.id, sites[0]!.id]);
    const prefix = await list(`?type=${q('site.*')}`);
    expect(prefix.data.map((event) => event.event)).toEqual([
      'site.updated',
      'site.created',
      'site.created',
      'site.created',
    ]);
    const about = await list(`?objectId=${sites[0]!.id}`);
    expect(about.data.map((event) => event.event)).toEqual(['site.updated', 'site.created']);
    const all = await list();
    const oldest = all.data[all.data.length - 1]!;
    const newest = all.data[0]!;
    const after = await list(`?${q('createdAt[gt]')}=${q(oldest.timestamp)}`);
    expect(after.data.map((event) => event.id)).not.toContain(oldest.id);
    const upTo = await list(`?${q('createdAt[lte]')}=${q(oldest.timestamp)}`);
    expect(upTo.data.map((event) => event.id)).toContain(oldest.id);
    expect(upTo.data.every((event) => event.timestamp <= oldest.timestamp)).toBe(true);
    const between = await list(
      `?${q('createdAt[gte]')}=${q(oldest.timestamp)}&${q('createdAt[lt]')}=${q(new Date(Date.parse(newest.timestamp) + 1).toISOString())}`,
    );
    expect(between.data).toHaveLength(all.data.length);
    // The filter document ANDs with them.
    const both = await list(`?type=${q('site.*')}&filter=${q(JSON.stringify({ objectId: sites[1]!.id }))}`);
    expect(both.data.map((event) => event.event)).toEqual(['site.created']);
  });

  it('pages with a cursor bound to the filters', async () => {
    const all = await list('?type=site.*');
    const first = await list('?type=site.*&limit=3');
    expect(first.nextCursor).not.toBeNull();
    const second = await list(`?type=site.*&limit=3&cursor=${first.nextCursor}`);
    expect(second.nextCursor).toBeNull();
    expect([...first.data, ...second.data].map((event) => event.id)).toEqual(all.data.map((event) => event.id));
    const rebound = await get(`/v1/events?type=site.created&limit=3&cursor=${first.nextCursor}`);
    expect(rebound.statusCode).toBe(400);
  });

  it('keeps paging stable while new events commit: a page never repeats or skips what was listed', async () => {
    const first = await list('?limit=2');
    await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: tenant.key,
      body: { name: 'Concurrent', domain: 'concurrent.events.example.com' },
    });
    const rest = await list(`?limit=250&cursor=${first.nextCursor}`);
    const seen = [...first.data, ...rest.data].map((event) => event.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(rest.data.some((event) => event.data?.name === 'Concurrent')).toBe(false);
    const fresh = await list('?limit=1');
    expect(fresh.data[0]!.data.name).toBe('Concurrent');
  });

  it('answers 400 naming the parameter for a bad type, prefix, objectId, createdAt bound or cursor', async () => {
    const cases: [string, string][] = [
      ['?type=site.renamed', 'query.type'],
      [`?type=${q('nothing.*')}`, 'query.type'],
      [`?type=${q('*')}`, 'query.type'],
      ['?objectId=not-a-uuid', 'objectId'],
      [`?${q('createdAt[gte]')}=yesterday`, 'createdAt[gte]'],
      ['?cursor=%25%25%25', 'query.cursor'],
      [`?filter=${q('{"payload":1}')}`, 'query.filter'],
      ['?sort=name', 'sort'],
    ];
    for (const [query, path] of cases) {
      const response = await get(`/v1/events${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.body, query).toContain(path);
    }
  });
});

describe('GET /v1/events/{id}', () => {
  it("answers another organization's event, or none, exactly like a missing one", async () => {
    const [theirs] = (await list('', other.key)).data;
    const foreign = await get(`/v1/events/${theirs!.id}`);
    const missing = await get('/v1/events/0190b4d1-0000-7000-8000-000000000000');
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json().error.message).toBe(missing.json().error.message);
  });

  it('needs events:read', async () => {
    const reader = await t.tenant({ permissions: ['webhooks:read'] });
    expect((await get('/v1/events', reader.key)).statusCode).toBe(403);
  });
});

describe('POST /v1/events/{id}/deliver', () => {
  it('sends a past event to an endpoint that does not subscribe to it, signed, as a requested delivery', async () => {
    const [updated] = (await list('?type=site.updated')).data;
    const before = receiver.received.length;
    const response = await t.request({
      method: 'POST',
      url: `/v1/events/${updated!.id}/deliver`,
      key: tenant.key,
      body: { webhookEndpointId: unsubscribed.id },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      webhookId: unsubscribed.id,
      eventName: 'site.updated',
      idempotencyKey: updated!.id,
      status: 'succeeded',
      requested: true,
      payload: updated,
    });
    const [sent] = receiver.received.slice(before);
    expect(sent!.path).toBe('/unsubscribed');
    expectSignedBy(sent!, SECRET);
    const read = await get(`/v1/events/${updated!.id}`);
    expect(sent!.body.equals(read.rawPayload)).toBe(true);
    // The endpoint's delivery log shows it, marked requested; fanned-out deliveries are not.
    const log = (await get(`/v1/webhooks/${unsubscribed.id}/events`)).json<{ data: { requested: boolean }[] }>();
    expect(log.data.map((delivery) => delivery.requested)).toEqual([true]);
    const fanned = (await get(`/v1/webhooks/${subscribed.id}/events`)).json<{ data: { requested: boolean }[] }>();
    expect(fanned.data.every((delivery) => !delivery.requested)).toBe(true);
  });

  it("refuses another organization's event (404) and endpoint (422), and an inactive endpoint (409)", async () => {
    const [mine] = (await list()).data;
    const [theirs] = (await list('', other.key)).data;
    const deliver = (eventId: string, webhookEndpointId: string) =>
      t.request({
        method: 'POST',
        url: `/v1/events/${eventId}/deliver`,
        key: tenant.key,
        body: { webhookEndpointId },
      });
    expect((await deliver(theirs!.id, subscribed.id)).statusCode).toBe(404);
    const theirEndpoint = await createEndpoint(t, other, {
      url: `${receiver.origin}/theirs`,
      events: ['site.created'],
    });
    const foreign = await deliver(mine!.id, theirEndpoint.id);
    expect(foreign.statusCode).toBe(422);
    expect(foreign.body).toContain('webhookEndpointId');
    const inactive = await createEndpoint(t, tenant, {
      url: `${receiver.origin}/inactive`,
      events: ['site.created'],
      isActive: false,
    });
    expect((await deliver(mine!.id, inactive.id)).statusCode).toBe(409);
    const bad = await t.request({
      method: 'POST',
      url: `/v1/events/${mine!.id}/deliver`,
      key: tenant.key,
      body: { webhookEndpointId: 'nope' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('needs webhooks:write', async () => {
    const [mine] = (await list()).data;
    const reader = await t.tenant({ permissions: ['events:read', 'webhooks:read'] });
    const response = await t.request({
      method: 'POST',
      url: `/v1/events/${mine!.id}/deliver`,
      key: reader.key,
      body: { webhookEndpointId: subscribed.id },
    });
    expect(response.statusCode).toBe(403);
  });
});
