import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/core/secret-box.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** A public address as a literal: the test machine may have no DNS, and a literal needs none. */
const PUBLIC = 'https://93.184.215.14';
const SECRET = 'plain-secret-0123456789abcdef';

interface Endpoint {
  id: string;
  url: string;
  isActive: boolean;
  events: string[];
  hasHmacSecret: boolean;
  createdAt: string;
  updatedAt: string;
}

const rowOf = (organizationId: string, id: string) =>
  db()
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

const countRows = async (organizationId: string) =>
  (await db().selectFrom('webhook_endpoints').select('id').where('organization_id', '=', organizationId).execute())
    .length;

async function create(tenant: Tenant, body: unknown, app: TestApp = t): Promise<Endpoint> {
  const response = await app.request({ method: 'POST', url: '/v1/webhooks', key: tenant.key, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const post = (tenant: Tenant, body: unknown, app: TestApp = t) =>
  app.request({ method: 'POST', url: '/v1/webhooks', key: tenant.key, body });
const put = (tenant: Tenant, id: string, body: unknown) =>
  t.request({ method: 'PUT', url: `/v1/webhooks/${id}`, key: tenant.key, body });

describe('GET /v1/webhook-events', () => {
  it('lists every catalog name once, families expanded, with what fires each and whether anything does yet', async () => {
    const tenant = await t.tenant();
    const response = await t.request({ url: '/v1/webhook-events', key: tenant.key });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json() as { data: { name: string; firesWhen: string; firing: boolean }[] };
    const names = data.map((event) => event.name);
    expect(names).toHaveLength(71);
    expect(new Set(names).size).toBe(names.length);
    for (const event of data) {
      expect(Object.keys(event)).toEqual(['name', 'firesWhen', 'firing']);
      expect(event.name).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
      expect(event.firesWhen.length).toBeGreaterThan(5);
    }
    for (const family of [
      'customerTag',
      'orderTag',
      'productTag',
      'loyaltyProgram',
      'loyaltyRule',
      'loyaltyTier',
      'emailTemplate',
      'quickFilter',
      'webhook',
    ]) {
      for (const action of ['created', 'updated', 'deleted']) expect(names).toContain(`${family}.${action}`);
    }
    for (const name of [
      'customer.updated',
      'order.deleted',
      'productVariant.updated',
      'site.created',
      'review.created',
      'review.replied',
      'review.replyDeleted',
      'productQuestionAnswer.deleted',
      'survey.deleted',
      'loyaltyMembership.tierChanged',
      'loyaltyTransaction.created',
      'loyaltyReward.issued',
      'loyaltyReward.expiringSoon',
      'loyaltyPoints.expiringSoon',
      'stampCard.completed',
      'referral.updated',
      'wishlist.updated',
    ]) {
      expect(names).toContain(name);
    }
    // Not in service.md's table: no customer.created, no productVariant.deleted; the test ping is not subscribable.
    for (const name of ['customer.created', 'productVariant.deleted', 'webhook.test', 'referral.created'])
      expect(names).not.toContain(name);
    expect(names[0]).toBe('customer.updated');
    const firesWhen = (name: string) => data.find((event) => event.name === name)!.firesWhen;
    expect(firesWhen('review.created')).toBe(
      'A review arrives, published or not: each new review of POST /reviews/import.',
    );
    expect(firesWhen('site.deleted')).toBe('DELETE /sites/{id}.');
    expect(firesWhen('loyaltyReward.expiringSoon')).toMatch(/overnight loyalty job/);
    // Every name can fire now that surveys exist (test/events/catalog-walk.test.ts fires each one).
    expect(data.filter((event) => !event.firing)).toEqual([]);
    // The published order first; names published later (review replies) follow it, in module order.
    expect(names.slice(-4)).toEqual([
      'importJob.completed',
      'exportJob.completed',
      'review.replied',
      'review.replyDeleted',
    ]);
    expect(firesWhen('review.replied')).toMatch(/PUT \/reviews\/\{id\}\/reply/);
    expect(firesWhen('survey.deleted')).toMatch(/DELETE \/surveys\/\{id\}/);
    expect(data.find((event) => event.name === 'emailTemplate.updated')!.firing).toBe(true);
    expect(data.find((event) => event.name === 'webhook.created')!.firing).toBe(true);
  });

  it('needs webhooks:read', async () => {
    const tenant = await t.tenant({ permissions: ['orders:read'] });
    const response = await t.request({ url: '/v1/webhook-events', key: tenant.key });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toMatch(/webhooks:read/);
  });
});

describe('POST /v1/webhooks', () => {
  it('creates from the data form: 201, the API shape, the secret sealed and never returned', async () => {
    const tenant = await t.tenant();
    const response = await post(tenant, {
      data: {
        url: `${PUBLIC}/hooks?source=patron`,
        events: ['order.updated', 'customer.updated', 'order.updated'],
        hmacSecret: SECRET,
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.body).not.toContain(SECRET);
    const endpoint: Endpoint = response.json();
    expect(Object.keys(endpoint)).toEqual([
      'id',
      'url',
      'isActive',
      'events',
      'hasHmacSecret',
      'apiVersion',
      'createdAt',
      'updatedAt',
    ]);
    expect(endpoint).toMatchObject({
      url: `${PUBLIC}/hooks?source=patron`,
      isActive: true,
      events: ['order.updated', 'customer.updated'],
      hasHmacSecret: true,
    });
    expect(endpoint.id).toMatch(UUID);
    expect(endpoint.createdAt).toMatch(ISO);
    expect(endpoint.updatedAt).toBe(endpoint.createdAt);

    const row = (await rowOf(tenant.organization.id, endpoint.id))!;
    expect(row.secret_ciphertext).toMatch(/^v1:/);
    expect(row.secret_ciphertext).not.toContain(SECRET);
    expect(createSecretBox(t.config.secretKey!).open(row.secret_ciphertext!)).toBe(SECRET);
  });

  it('creates from the unwrapped form; isActive false and a null secret are kept', async () => {
    const tenant = await t.tenant();
    const endpoint = await create(tenant, {
      url: `${PUBLIC}/a`,
      events: ['site.created'],
      isActive: false,
      hmacSecret: null,
    });
    expect(endpoint).toMatchObject({
      url: `${PUBLIC}/a`,
      isActive: false,
      events: ['site.created'],
      hasHmacSecret: false,
    });
    expect((await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext).toBeNull();
    const plain = await create(tenant, { url: `${PUBLIC}/b`, events: ['site.created'] });
    expect(plain).toMatchObject({ isActive: true, hasHmacSecret: false });
  });

  it('refuses both forms at once, naming the top-level fields', async () => {
    const tenant = await t.tenant();
    const response = await post(tenant, { data: { url: `${PUBLIC}/a`, events: ['site.created'] }, url: `${PUBLIC}/b` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.url', message: 'must not be sent together with body.data' }],
    });
    expect(await countRows(tenant.organization.id)).toBe(0);
  });

  it('refuses unknown event names, naming each, and changes nothing', async () => {
    const tenant = await t.tenant();
    const response = await post(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['order.updated', 'order.shipped', 'Customer.updated'] },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.message).toMatch(/"order\.shipped", "Customer\.updated".*GET \/v1\/webhook-events/);
    expect(error.details).toEqual([
      { path: 'body.data.events[1]', message: '"order.shipped" is not a known event name' },
      { path: 'body.data.events[2]', message: '"Customer.updated" is not a known event name' },
    ]);
    for (const name of ['webhook.test', 'customer.*', '*', 'customer.created']) {
      const refused = await post(tenant, { url: `${PUBLIC}/a`, events: [name] });
      expect(refused.statusCode, name).toBe(400);
      expect(refused.json().error.details[0].path).toBe('body.events[0]');
    }
    expect(await countRows(tenant.organization.id)).toBe(0);
    expect(await eventsOf(t, tenant.organization.id, 'webhook.created')).toHaveLength(0);
  });

  it('refuses missing, unknown and mistyped fields', async () => {
    const tenant = await t.tenant();
    const cases: [unknown, string, RegExp][] = [
      [{ data: {} }, 'body.data.url', /body\.data\.url and body\.data\.events are required/],
      [{ url: `${PUBLIC}/a` }, 'body.events', /body\.events is required/],
      [undefined, 'body', /body must be an object/],
      [{ data: { url: `${PUBLIC}/a`, events: [] } }, 'body.data.events', /fewer than 1/],
      [
        { data: { url: `${PUBLIC}/a`, events: ['site.created'], secret: SECRET } },
        'body.data.secret',
        /not a known field/,
      ],
      [{ url: `${PUBLIC}/a`, events: ['site.created'], extra: 1 }, 'body.extra', /not a known field/],
      [{ data: { url: `${PUBLIC}/a`, events: ['site.created'], isActive: 'true' } }, 'body.data.isActive', /boolean/],
      [{ data: { url: 42, events: ['site.created'] } }, 'body.data.url', /string/],
      [{ data: { url: `${PUBLIC}/a`, events: 'site.created' } }, 'body.data.events', /array/],
      [
        { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: 'x'.repeat(15) } },
        'body.data.hmacSecret',
        /fewer than 16/,
      ],
      [
        { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: 'x'.repeat(257) } },
        'body.data.hmacSecret',
        /more than 256/,
      ],
      [
        { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: 1234567890123456 } },
        'body.data.hmacSecret',
        /string/,
      ],
      [{ data: null }, 'body.data', /object/],
    ];
    for (const [body, path, message] of cases) {
      const response = await post(tenant, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const { error } = response.json();
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(
        error.details.map((detail: { path: string }) => detail.path),
        JSON.stringify(body),
      ).toContain(path);
      expect(`${error.message} ${JSON.stringify(error.details)}`, JSON.stringify(body)).toMatch(message);
    }
    expect(await countRows(tenant.organization.id)).toBe(0);
  });

  it('reports a value that fails a union with null only by what is wrong with it, never "must be null"', async () => {
    const tenant = await t.tenant();
    const short = await post(tenant, { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: 'short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Invalid request: body.data.hmacSecret must NOT have fewer than 16 characters.',
        details: [{ path: 'body.data.hmacSecret', message: 'must NOT have fewer than 16 characters' }],
      },
    });
    // A value of neither type: one detail naming both.
    const number = await post(tenant, { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: 42 } });
    expect(number.json().error.details).toEqual([
      { path: 'body.data.hmacSecret', message: 'must be a string or null' },
    ]);
    expect(await countRows(tenant.organization.id)).toBe(0);
  });

  it('refuses URLs that are not https, carry credentials or a fragment, or reach non-public hosts', async () => {
    const tenant = await t.tenant();
    const cases: [string, RegExp][] = [
      ['http://93.184.215.14/in', /must use https/],
      ['ftp://93.184.215.14/in', /absolute https/],
      ['/relative/path', /absolute https/],
      ['https://user:pw@93.184.215.14/in', /user name or password/],
      ['https://93.184.215.14/in#frag', /fragment/],
      ['https://10.0.0.7/in', /private, loopback, link-local/],
      ['https://192.168.1.10/in', /private/],
      ['https://127.0.0.1:8443/in', /private, loopback/],
      ['https://[::1]/in', /loopback/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://[fe80::1]/in', /link-local/],
      ['https://[fd00::1]/in', /non-public/],
      ['https://100.64.1.1/in', /non-public/],
      ['https://[::ffff:127.0.0.1]/in', /non-public/],
      ['https://[::ffff:a9fe:a9fe]/in', /non-public/],
      ['https://0x7f.1/in', /"127\.0\.0\.1"/],
      ['https://localhost/in', /^(?!.*(127\.0\.0\.1|::1)).*"localhost" is not allowed: it is not a public host/],
      ['https://no-such-host.invalid/in', /could not be resolved/],
    ];
    for (const [url, reason] of cases) {
      const response = await post(tenant, { data: { url, events: ['site.created'] } });
      expect(response.statusCode, url).toBe(400);
      const { error } = response.json();
      expect(error.details, url).toEqual([{ path: 'body.data.url', message: expect.stringMatching(reason) }]);
      expect(error.message, url).toMatch(/^Invalid request: body\.data\.url /);
    }
    expect(await countRows(tenant.organization.id)).toBe(0);
  });

  it('replays an Idempotency-Key without creating a second endpoint', async () => {
    const tenant = await t.tenant();
    const request = {
      method: 'POST' as const,
      url: '/v1/webhooks',
      key: tenant.key,
      headers: { 'idempotency-key': 'create-hook-1' },
      body: { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET } },
    };
    const first = await t.request(request);
    const second = await t.request(request);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await countRows(tenant.organization.id)).toBe(1);
  });

  it('needs webhooks:write', async () => {
    const tenant = await t.tenant({ permissions: ['webhooks:read'] });
    const response = await post(tenant, { data: { url: `${PUBLIC}/a`, events: ['site.created'] } });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.message).toMatch(/webhooks:write/);
  });
});

describe('GET /v1/webhooks/{id}', () => {
  it("answers another organization's endpoint, an unknown id and a malformed id like the other resources", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const endpoint = await create(owner, {
      data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET },
    });
    const own = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: owner.key });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual(endpoint);
    expect(own.body).not.toContain(SECRET);
    const foreign = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: stranger.key });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toEqual({ code: 'NOT_FOUND', message: 'The webhook endpoint was not found.' });
    expect((await t.request({ url: `/v1/webhooks/${uuidv7()}`, key: owner.key })).statusCode).toBe(404);
    const malformed = await t.request({ url: '/v1/webhooks/not-a-uuid', key: owner.key });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details).toEqual([{ path: 'path.id', message: 'must be a UUID' }]);
  });
});

describe('PUT /v1/webhooks/{id}', () => {
  it('replaces the fields sent and keeps the others, the stored secret included', async () => {
    const tenant = await t.tenant();
    const endpoint = await create(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['site.created', 'site.updated'], hmacSecret: SECRET },
    });
    const sealed = (await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext;

    const moved = await put(tenant, endpoint.id, { data: { url: `${PUBLIC}/b` } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({
      id: endpoint.id,
      url: `${PUBLIC}/b`,
      events: ['site.created', 'site.updated'],
      isActive: true,
      hasHmacSecret: true,
      createdAt: endpoint.createdAt,
    });
    expect(Date.parse(moved.json().updatedAt)).toBeGreaterThanOrEqual(Date.parse(endpoint.updatedAt));
    expect((await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext).toBe(sealed);

    // events replaces the subscription wholesale; the unwrapped form works on PUT too.
    const resubscribed = await put(tenant, endpoint.id, { events: ['order.deleted'], isActive: false });
    expect(resubscribed.statusCode, resubscribed.body).toBe(200);
    expect(resubscribed.json()).toMatchObject({
      url: `${PUBLIC}/b`,
      events: ['order.deleted'],
      isActive: false,
      hasHmacSecret: true,
    });
  });

  it('sets a new secret, and null removes it', async () => {
    const tenant = await t.tenant();
    const endpoint = await create(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET },
    });
    const before = (await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext;

    const rotated = await put(tenant, endpoint.id, { data: { hmacSecret: 'another-secret-0123456789' } });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.body).not.toContain('another-secret');
    const after = (await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext!;
    expect(after).not.toBe(before);
    expect(createSecretBox(t.config.secretKey!).open(after)).toBe('another-secret-0123456789');

    const removed = await put(tenant, endpoint.id, { data: { hmacSecret: null } });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ hasHmacSecret: false, url: `${PUBLIC}/a`, events: ['site.created'] });
    expect((await rowOf(tenant.organization.id, endpoint.id))!.secret_ciphertext).toBeNull();
  });

  it('refuses bad input without changing anything', async () => {
    const tenant = await t.tenant();
    const endpoint = await create(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET },
    });
    const cases: [unknown, string][] = [
      [{ data: {} }, 'body.data'],
      [{}, 'body'],
      [{ data: { url: `${PUBLIC}/b` }, events: ['site.created'] }, 'body.events'],
      [{ data: { events: ['site.created', 'nope.nope'] } }, 'body.data.events[1]'],
      [{ data: { events: [] } }, 'body.data.events'],
      [{ data: { url: 'https://127.0.0.1/in' } }, 'body.data.url'],
      [{ data: { url: 'http://93.184.215.14/in' } }, 'body.data.url'],
      [{ data: { hmacSecret: 'short' } }, 'body.data.hmacSecret'],
      [{ data: { isActive: null } }, 'body.data.isActive'],
      [{ data: { id: uuidv7() } }, 'body.data.id'],
    ];
    for (const [body, path] of cases) {
      const response = await put(tenant, endpoint.id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        response.json().error.details.map((detail: { path: string }) => detail.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const unchanged = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(unchanged.json()).toEqual(endpoint);
    expect(await eventsOf(t, tenant.organization.id, 'webhook.updated')).toHaveLength(0);
  });

  it("answers another organization's endpoint and an unknown id with 404, changing nothing", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const endpoint = await create(owner, { data: { url: `${PUBLIC}/a`, events: ['site.created'] } });
    const foreign = await put(stranger, endpoint.id, { data: { isActive: false } });
    expect(foreign.statusCode).toBe(404);
    expect((await put(owner, uuidv7(), { data: { isActive: false } })).statusCode).toBe(404);
    expect((await rowOf(owner.organization.id, endpoint.id))!.is_active).toBe(true);
    expect(await eventsOf(t, stranger.organization.id, 'webhook.updated')).toHaveLength(0);
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('returns the deleted endpoint and takes its delivery log with it', async () => {
    const tenant = await t.tenant();
    const endpoint = await create(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET },
    });
    await db()
      .insertInto('webhook_deliveries')
      .values({
        organization_id: tenant.organization.id,
        id: uuidv7(),
        webhook_id: endpoint.id,
        sequence: 1,
        event_name: 'site.created',
        idempotency_key: uuidv7(),
        url: endpoint.url,
        payload: '{}',
        status: 'failed',
        error: 'test',
      })
      .execute();

    const deleted = await t.request({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual(endpoint);
    expect(deleted.body).not.toContain(SECRET);
    expect((await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: tenant.key })).statusCode).toBe(404);
    const log = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(log).toHaveLength(0);
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, key: tenant.key })).statusCode,
    ).toBe(404);
  });

  it("answers another organization's endpoint with 404 and keeps it", async () => {
    const owner = await t.tenant();
    const stranger = await t.tenant();
    const endpoint = await create(owner, { data: { url: `${PUBLIC}/a`, events: ['site.created'] } });
    const foreign = await t.request({ method: 'DELETE', url: `/v1/webhooks/${endpoint.id}`, key: stranger.key });
    expect(foreign.statusCode).toBe(404);
    expect(await rowOf(owner.organization.id, endpoint.id)).toBeDefined();
  });
});

describe('webhook.* events', () => {
  it('records webhook.created, webhook.updated and webhook.deleted with the endpoint in its API shape', async () => {
    const tenant = await t.tenant();
    const created = await create(tenant, {
      data: { url: `${PUBLIC}/a`, events: ['webhook.updated'], hmacSecret: SECRET },
    });
    const updated = (await put(tenant, created.id, { data: { events: ['site.created', 'webhook.deleted'] } })).json();
    const deleted = (await t.request({ method: 'DELETE', url: `/v1/webhooks/${created.id}`, key: tenant.key })).json();

    for (const [name, record] of [
      ['webhook.created', created],
      ['webhook.updated', updated],
      ['webhook.deleted', deleted],
    ] as const) {
      const events = await eventsOf(t, tenant.organization.id, name);
      expect(events, name).toHaveLength(1);
      const payload = typeof events[0]!.payload === 'string' ? JSON.parse(events[0]!.payload) : events[0]!.payload;
      expect(payload, name).toEqual(record);
      expect(Object.keys(payload), name).toEqual([
        'id',
        'url',
        'isActive',
        'events',
        'hasHmacSecret',
        'apiVersion',
        'createdAt',
        'updatedAt',
      ]);
      expect(JSON.stringify(payload)).not.toContain(SECRET);
    }
  });
});

describe('concurrent changes', () => {
  // On PostgreSQL, changing an endpoint while other requests record events that fan out to it used to be able to
  // deadlock (the endpoint's row lock against the fan-out's ordered locks); every request must succeed.
  it('changes endpoints while events fan out to them, without a deadlock', async () => {
    const tenant = await t.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(
        (await create(tenant, { data: { url: `${PUBLIC}/${i}`, events: ['webhook.updated', 'site.created'] } })).id,
      );
    }
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 2 === 0
          ? put(tenant, ids[i % ids.length]!, { data: { isActive: true } })
          : t.request({
              method: 'POST',
              url: '/v1/sites',
              key: tenant.key,
              body: { data: { name: `s${i}`, domain: `s${i}.example.com` } },
            }),
      ),
    );
    expect(results.filter((response) => response.statusCode >= 300).map((response) => response.body)).toEqual([]);
  });
});

describe('GET /v1/webhooks', () => {
  let tenant: Tenant;
  let endpoints: Endpoint[];
  beforeAll(async () => {
    tenant = await t.tenant();
    endpoints = [];
    for (const [path, isActive] of [
      ['c', true],
      ['a', false],
      ['e', true],
      ['b', true],
      ['d', false],
    ] as const) {
      endpoints.push(await create(tenant, { data: { url: `${PUBLIC}/${path}`, events: ['site.created'], isActive } }));
    }
    // Another organization's endpoints never show.
    await create(await t.tenant(), { data: { url: `${PUBLIC}/z`, events: ['site.created'] } });
  });

  const list = async (query: string) => {
    const response = await t.request({ url: `/v1/webhooks?${query}`, key: tenant.key });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { data: Endpoint[]; nextCursor: string | null };
  };
  const urls = (page: { data: Endpoint[] }) => page.data.map((endpoint) => endpoint.url.slice(PUBLIC.length + 1));

  it('lists newest first by default, in the list envelope', async () => {
    const page = await list('');
    expect(page.data.map((endpoint) => endpoint.id)).toEqual([...endpoints].reverse().map((endpoint) => endpoint.id));
    expect(page.nextCursor).toBeNull();
    expect(page.data[0]).toEqual(endpoints[4]);
  });

  it('sorts by url and createdAt both ways', async () => {
    expect(urls(await list('sort=url'))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(urls(await list('sort=-url'))).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(urls(await list('sort=createdAt'))).toEqual(['c', 'a', 'e', 'b', 'd']);
    const bad = await t.request({ url: '/v1/webhooks?sort=events', key: tenant.key });
    expect(bad.statusCode).toBe(400);
  });

  it('filters on id, url, isActive and createdAt', async () => {
    const filter = (document: unknown) => `filter=${encodeURIComponent(JSON.stringify(document))}`;
    expect(urls(await list(`sort=url&${filter({ isActive: false })}`))).toEqual(['a', 'd']);
    expect(urls(await list(filter({ url: `${PUBLIC}/e` })))).toEqual(['e']);
    expect(urls(await list(`sort=url&${filter({ url: { $in: [`${PUBLIC}/a`, `${PUBLIC}/b`] } })}`))).toEqual([
      'a',
      'b',
    ]);
    expect(urls(await list(filter({ id: endpoints[2]!.id })))).toEqual(['e']);
    expect(
      urls(await list(`sort=createdAt&${filter({ createdAt: { $gte: endpoints[3]!.createdAt }, isActive: true })}`)),
    ).toEqual(['b']);
    for (const document of [{ events: 'site.created' }, { hasHmacSecret: true }, { isActive: 'yes' }]) {
      const bad = await t.request({ url: `/v1/webhooks?${filter(document)}`, key: tenant.key });
      expect(bad.statusCode, JSON.stringify(document)).toBe(400);
    }
  });

  it('pages with limit and cursor, and has no search', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`sort=url&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...urls(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toBe(3);
    for (const query of ['search=a', 'limit=0', 'limit=251', 'include=events']) {
      const bad = await t.request({ url: `/v1/webhooks?${query}`, key: tenant.key });
      expect(bad.statusCode, query).toBe(400);
    }
  });
});

describe('URL policy flags', () => {
  let dev: TestApp;
  let httpOnly: TestApp;
  beforeAll(async () => {
    dev = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
    httpOnly = await startTestApp({ config: { allowHttpWebhooks: true, secretKey: undefined } });
  });
  afterAll(async () => {
    await dev?.close();
    await httpOnly?.close();
  });

  it('accepts http to a loopback host and private hosts when both flags are on', async () => {
    const tenant = await dev.tenant();
    const local = await create(tenant, { data: { url: 'http://localhost:9999/hook', events: ['site.created'] } }, dev);
    expect(local.url).toBe('http://localhost:9999/hook');
    await create(tenant, { data: { url: 'https://10.1.2.3/hook', events: ['site.created'] } }, dev);
    // http stays loopback-only even then.
    const remote = await post(tenant, { data: { url: 'http://93.184.215.14/hook', events: ['site.created'] } }, dev);
    expect(remote.statusCode).toBe(400);
    expect(remote.json().error.message).toMatch(/loopback/);
  });

  it('still refuses a loopback host when only http is allowed, saying which setting is missing', async () => {
    const tenant = await httpOnly.tenant();
    const response = await post(
      tenant,
      { data: { url: 'http://127.0.0.1:9999/hook', events: ['site.created'] } },
      httpOnly,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/WEBHOOK_ALLOW_PRIVATE_HOSTS=1/);
  });

  it('without PATRON_SECRET_KEY, refuses to store a secret with a clear 503 and creates nothing', async () => {
    const tenant = await httpOnly.tenant();
    const refused = await post(
      tenant,
      { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: SECRET } },
      httpOnly,
    );
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringMatching(/PATRON_SECRET_KEY/),
    });
    const rows = await httpOnly.testDatabase.database.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(rows).toHaveLength(0);
    const unsigned = await create(
      tenant,
      { data: { url: `${PUBLIC}/a`, events: ['site.created'], hmacSecret: null } },
      httpOnly,
    );
    expect(unsigned.hasHmacSecret).toBe(false);
  });
});
