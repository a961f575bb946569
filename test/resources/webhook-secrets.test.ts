import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { Dispatcher } from '../../src/jobs/dispatcher/dispatcher.js';
import { startTestApp, webhookAppOptions, type TestApp, type Tenant } from '../support/app.js';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
  bodyOf,
  dispatcherFor,
  expectSignedBy,
  hexSignedBy,
  standardHeadersOf,
  standardSignedBy,
} from '../support/webhooks.js';

/*
 * Standard Webhooks secrets, generated secrets and rotation (docs/api.md#endpoint-records-and-secrets,
 * #rotating-a-secret, #delivery-headers-and-signatures), checked at a real HTTPS receiver with the receivers'
 * libraries (standardwebhooks and svix) and node:crypto, never with Patron's own signing code.
 */

let t: TestApp;
let receiver: WebhookReceiver;
let dispatcher: Dispatcher;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver, { webhookTimeoutMs: 2_000 }));
  dispatcher = dispatcherFor(t, receiver);
});
afterAll(async () => {
  await dispatcher?.stop();
  await t?.close();
  await receiver?.close();
});

const db = () => t.testDatabase.database.db;
const standardSecret = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const PLAIN = 'plain-secret-0123456789abcdef';
const GENERATED = /^whsec_[A-Za-z0-9+/]{43}=$/;
const HOUR = 3600_000;

interface Endpoint {
  id: string;
  url: string;
  hasHmacSecret: boolean;
  updatedAt: string;
  hmacSecret?: string;
  previousSecretExpiresAt?: string | null;
}

let paths = 0;
/** An endpoint of its own path at the receiver, subscribed to site.created. */
async function endpointWith(tenant: Tenant, secret: { hmacSecret?: string | null; generateSecret?: boolean }) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key: tenant.key,
    body: { data: { url: `${receiver.origin}/e${++paths}`, events: ['site.created'], ...secret } },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Endpoint>();
}

let sites = 0;
/** Records a site.created event and waits for its delivery to the endpoint. */
async function deliver(tenant: Tenant, endpoint: Endpoint): Promise<ReceivedWebhook> {
  const path = new URL(endpoint.url).pathname;
  const before = receiver.received.filter((request) => request.path === path).length;
  const created = await t.request({
    method: 'POST',
    url: '/v1/sites',
    key: tenant.key,
    body: { name: `Site ${++sites}`, domain: `site${sites}.example.com` },
  });
  expect(created.statusCode, created.body).toBe(201);
  const received = await receiver.waitFor(before + 1, path);
  return received[before]!;
}

const rotate = (tenant: Tenant, id: string, key = tenant.key) =>
  t.request({ method: 'POST', url: `/v1/webhooks/${id}/rotate-secret`, key });

async function rotated(tenant: Tenant, id: string): Promise<Endpoint> {
  const response = await rotate(tenant, id);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Endpoint>();
}

const signatureCount = (request: ReceivedWebhook) => request.headers['webhook-signature']!.split(' ').length;

/** How a plain secret is given to the libraries: the base64 of its UTF-8 bytes. */
const plainVerifies = (request: ReceivedWebhook, secret: string) => {
  try {
    new Webhook(Buffer.from(secret, 'utf8').toString('base64')).verify(
      request.body.toString('utf8'),
      standardHeadersOf(request),
    );
    return true;
  } catch {
    return false;
  }
};

const rowOf = (tenant: Tenant, id: string) =>
  db()
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', tenant.organization.id)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/** Moves the rotation's end into the past, as if 24 hours had gone by. */
const expireRotation = (tenant: Tenant, id: string) =>
  sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second'
    where organization_id = ${tenant.organization.id} and id = ${id}`.execute(db());

describe('POST /v1/webhooks with a Standard Webhooks secret', () => {
  it('keys webhook-signature with the decoded bytes, so new Webhook(secret) of standardwebhooks and svix verifies the secret as stored', async () => {
    const tenant = await t.tenant();
    for (const bytes of [24, 32, 64]) {
      const secret = standardSecret(bytes);
      const endpoint = await endpointWith(tenant, { hmacSecret: secret });
      expect(endpoint.hasHmacSecret).toBe(true);
      expect(endpoint).not.toHaveProperty('hmacSecret');
      const request = await deliver(tenant, endpoint);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(standardSignedBy(request, secret)).toBe(true);
      // X-Webhook-Signature stays as service.md says: HMAC-SHA256 of the body keyed with the secret string.
      expect(hexSignedBy(request, secret)).toBe(true);
      // Not keyed with the secret's UTF-8 bytes any more.
      expect(plainVerifies(request, secret)).toBe(false);
    }
  });

  it('generateSecret: true stores a new whsec_ secret and answers it once', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { generateSecret: true });
    expect(Object.keys(endpoint)).toEqual([
      'id',
      'url',
      'isActive',
      'events',
      'hasHmacSecret',
      'apiVersion',
      'createdAt',
      'updatedAt',
      'hmacSecret',
    ]);
    expect(endpoint.hmacSecret).toMatch(GENERATED);
    expect(endpoint.hasHmacSecret).toBe(true);
    // Nowhere else: not in GET, the list, or the webhook.created event.
    const got = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(got.json()).not.toHaveProperty('hmacSecret');
    expect(got.body).not.toContain(endpoint.hmacSecret!.slice(6));
    const listed = await t.request({ url: '/v1/webhooks', key: tenant.key });
    expect(listed.body).not.toContain(endpoint.hmacSecret!.slice(6));
    const events = await db()
      .selectFrom('events')
      .select(sql<string>`payload::text`.as('payload'))
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(event.payload).not.toContain(endpoint.hmacSecret!.slice(6));

    const request = await deliver(tenant, endpoint);
    expect(standardSignedBy(request, endpoint.hmacSecret!)).toBe(true);
    expect(hexSignedBy(request, endpoint.hmacSecret!)).toBe(true);
  });

  it('keeps a plain secret as it was: both signatures keyed with its UTF-8 bytes', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { hmacSecret: PLAIN });
    const request = await deliver(tenant, endpoint);
    expectSignedBy(request, PLAIN);
    expect(signatureCount(request)).toBe(1);
    // A plain secret is not a Standard Webhooks secret: the libraries cannot take it as is.
    expect(() => new SvixWebhook(PLAIN)).toThrow();
  });

  it('refuses a whsec_ secret that is not the padded base64 of 24 to 64 bytes, naming the field, and stores nothing', async () => {
    const tenant = await t.tenant();
    const zeros = `whsec_${Buffer.alloc(32).toString('base64')}`;
    expect(zeros).toMatch(/A=$/);
    const bad = [
      'whsec_0123456789abcdef', // 12 bytes
      standardSecret(23),
      standardSecret(65),
      zeros.slice(0, -1), // unpadded
      zeros.replace(/A=$/, 'B='), // stray bits: not the canonical form of any bytes
      `whsec_${Buffer.alloc(33, 0xfb).toString('base64url')}`, // the URL-safe alphabet
      `${standardSecret(24)} `,
    ];
    for (const hmacSecret of bad) {
      for (const [body, path] of [
        [{ data: { url: `${receiver.origin}/x`, events: ['site.created'], hmacSecret } }, 'body.data.hmacSecret'],
        [{ url: `${receiver.origin}/x`, events: ['site.created'], hmacSecret }, 'body.hmacSecret'],
      ] as const) {
        const response = await t.request({ method: 'POST', url: '/v1/webhooks', key: tenant.key, body });
        expect(response.statusCode, hmacSecret).toBe(400);
        const { error } = response.json();
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.details).toEqual([{ path, message: expect.stringMatching(/base64 of 24 to 64 bytes/) }]);
      }
    }
    const rows = await db()
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('refuses generateSecret: true together with hmacSecret', async () => {
    const tenant = await t.tenant();
    for (const hmacSecret of [PLAIN, standardSecret(32), null]) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key: tenant.key,
        body: { data: { url: `${receiver.origin}/x`, events: ['site.created'], hmacSecret, generateSecret: true } },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.details).toEqual([
        { path: 'body.data.hmacSecret', message: 'cannot be sent with generateSecret: true' },
        { path: 'body.data.generateSecret', message: 'cannot be true with hmacSecret' },
      ]);
    }
    // generateSecret: false asks for nothing.
    const unsigned = await endpointWith(tenant, { generateSecret: false });
    expect(unsigned).toMatchObject({ hasHmacSecret: false });
    expect(unsigned).not.toHaveProperty('hmacSecret');
  });
});

describe('PUT /v1/webhooks/{id} with a Standard Webhooks secret', () => {
  it('sets a whsec_ secret or generates one; a bad one changes nothing', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { hmacSecret: PLAIN });
    const put = (body: unknown) =>
      t.request({ method: 'PUT', url: `/v1/webhooks/${endpoint.id}`, key: tenant.key, body });

    const before = (await rowOf(tenant, endpoint.id)).secret_ciphertext;
    const refused = await put({ hmacSecret: standardSecret(16) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details[0].path).toBe('body.hmacSecret');
    expect((await rowOf(tenant, endpoint.id)).secret_ciphertext).toBe(before);
    expect((await put({ data: { generateSecret: false } })).statusCode).toBe(400);

    const secret = standardSecret(32);
    const set = await put({ data: { hmacSecret: secret } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).not.toHaveProperty('hmacSecret');
    expect(standardSignedBy(await deliver(tenant, endpoint), secret)).toBe(true);

    const generated = await put({ data: { generateSecret: true } });
    expect(generated.statusCode, generated.body).toBe(200);
    const { hmacSecret } = generated.json<Endpoint>();
    expect(hmacSecret).toMatch(GENERATED);
    const request = await deliver(tenant, endpoint);
    expect(standardSignedBy(request, hmacSecret!)).toBe(true);
    expect(standardSignedBy(request, secret)).toBe(false);
  });

  it("ends a rotation's overlap when it sets or removes the secret", async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { hmacSecret: standardSecret(32) });
    await rotated(tenant, endpoint.id);
    expect((await rowOf(tenant, endpoint.id)).previous_secret_ciphertext).not.toBeNull();
    const secret = standardSecret(32);
    const set = await t.request({
      method: 'PUT',
      url: `/v1/webhooks/${endpoint.id}`,
      key: tenant.key,
      body: { hmacSecret: secret },
    });
    expect(set.statusCode).toBe(200);
    const row = await rowOf(tenant, endpoint.id);
    expect([row.previous_secret_ciphertext, row.previous_secret_expires_at]).toEqual([null, null]);
    const request = await deliver(tenant, endpoint);
    expect(signatureCount(request)).toBe(1);
    expect(standardSignedBy(request, secret)).toBe(true);
  });
});

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  it('answers the endpoint with a new whsec_ secret once and records webhook.updated', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { hmacSecret: PLAIN });
    const started = Date.now();
    const response = await rotate(tenant, endpoint.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Endpoint>();
    expect(Object.keys(body)).toEqual([
      'id',
      'url',
      'isActive',
      'events',
      'hasHmacSecret',
      'apiVersion',
      'createdAt',
      'updatedAt',
      'hmacSecret',
      'previousSecretExpiresAt',
    ]);
    expect(body).toMatchObject({ id: endpoint.id, hasHmacSecret: true });
    expect(body.hmacSecret).toMatch(GENERATED);
    const expires = Date.parse(body.previousSecretExpiresAt!);
    expect(expires).toBeGreaterThanOrEqual(started + 24 * HOUR - 5_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 5_000);

    const got = await t.request({ url: `/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(got.json()).toEqual({ ...endpoint, updatedAt: body.updatedAt });
    const updated = await db()
      .selectFrom('events')
      .select(['name', sql<string>`payload::text`.as('payload')])
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'webhook.updated')
      .execute();
    expect(updated).toHaveLength(1);
    expect(updated[0]!.payload).not.toContain(body.hmacSecret!.slice(6));
  });

  it('signs deliveries under the old and the new secret for 24 hours, then under the new one only', async () => {
    const tenant = await t.tenant();
    const old = standardSecret(32);
    const endpoint = await endpointWith(tenant, { hmacSecret: old });
    const { hmacSecret: next } = await rotated(tenant, endpoint.id);

    const during = await deliver(tenant, endpoint);
    expect(signatureCount(during)).toBe(2);
    expect(standardSignedBy(during, next!)).toBe(true);
    expect(standardSignedBy(during, old)).toBe(true);
    // X-Webhook-Signature is one value, under the current secret.
    expect(hexSignedBy(during, next!)).toBe(true);
    expect(hexSignedBy(during, old)).toBe(false);

    await expireRotation(tenant, endpoint.id);
    const after = await deliver(tenant, endpoint);
    expect(signatureCount(after)).toBe(1);
    expect(standardSignedBy(after, next!)).toBe(true);
    expect(standardSignedBy(after, old)).toBe(false);
    expect(hexSignedBy(after, next!)).toBe(true);
  });

  it('keeps signing under a plain previous secret as before, beside the new whsec_ one', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, { hmacSecret: PLAIN });
    const { hmacSecret: next } = await rotated(tenant, endpoint.id);
    const request = await deliver(tenant, endpoint);
    expect(plainVerifies(request, PLAIN)).toBe(true);
    expect(standardSignedBy(request, next!)).toBe(true);
    expect(hexSignedBy(request, next!)).toBe(true);
  });

  it('keeps only the latest previous secret when rotated twice within 24 hours', async () => {
    const tenant = await t.tenant();
    const first = standardSecret(32);
    const endpoint = await endpointWith(tenant, { hmacSecret: first });
    const { hmacSecret: second } = await rotated(tenant, endpoint.id);
    const { hmacSecret: third } = await rotated(tenant, endpoint.id);
    const request = await deliver(tenant, endpoint);
    expect(signatureCount(request)).toBe(2);
    expect(standardSignedBy(request, third!)).toBe(true);
    expect(standardSignedBy(request, second!)).toBe(true);
    expect(standardSignedBy(request, first)).toBe(false);
  });

  it('gives an endpoint without a secret its first one, with no previous secret', async () => {
    const tenant = await t.tenant();
    const endpoint = await endpointWith(tenant, {});
    expect(endpoint.hasHmacSecret).toBe(false);
    const body = await rotated(tenant, endpoint.id);
    expect(body).toMatchObject({ hasHmacSecret: true, previousSecretExpiresAt: null });
    const request = await deliver(tenant, endpoint);
    expect(signatureCount(request)).toBe(1);
    expect(standardSignedBy(request, body.hmacSecret!)).toBe(true);
  });

  it('signs a resend and a test ping like the dispatcher: both secrets during the overlap, then the new one', async () => {
    const tenant = await t.tenant();
    const old = standardSecret(24);
    const endpoint = await endpointWith(tenant, { hmacSecret: old });
    await deliver(tenant, endpoint);
    const [delivery] = (await t.request({ url: `/v1/webhooks/${endpoint.id}/events`, key: tenant.key })).json<{
      data: { id: string }[];
    }>().data;
    const { hmacSecret: next } = await rotated(tenant, endpoint.id);

    const byHand = async (url: string) => {
      const path = new URL(endpoint.url).pathname;
      const before = receiver.received.filter((request) => request.path === path).length;
      const response = await t.request({ method: 'POST', url, key: tenant.key });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().status).toBe('succeeded');
      return (await receiver.waitFor(before + 1, path))[before]!;
    };
    const resent = await byHand(`/v1/webhooks/${endpoint.id}/events/${delivery!.id}/resend`);
    const ping = await byHand(`/v1/webhooks/${endpoint.id}/test`);
    expect(bodyOf(ping).event).toBe('webhook.test');
    for (const request of [resent, ping]) {
      expect(signatureCount(request)).toBe(2);
      expect(standardSignedBy(request, next!)).toBe(true);
      expect(standardSignedBy(request, old)).toBe(true);
      expect(hexSignedBy(request, next!)).toBe(true);
    }

    await expireRotation(tenant, endpoint.id);
    const later = await byHand(`/v1/webhooks/${endpoint.id}/test`);
    expect(signatureCount(later)).toBe(1);
    expect(standardSignedBy(later, next!)).toBe(true);
    expect(standardSignedBy(later, old)).toBe(false);
  });

  it("answers 404 for a missing or another organization's endpoint, and needs webhooks:write", async () => {
    const owner = await t.tenant();
    const other = await t.tenant();
    const endpoint = await endpointWith(owner, { hmacSecret: PLAIN });
    const before = await rowOf(owner, endpoint.id);
    const foreign = await rotate(other, endpoint.id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toEqual({ code: 'NOT_FOUND', message: 'The webhook endpoint was not found.' });
    expect((await rotate(owner, uuidv7())).statusCode).toBe(404);
    const reader = await t.key(owner.organization.id, ['webhooks:read']);
    const denied = await rotate(owner, endpoint.id, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toContain('webhooks:write');
    expect(await rowOf(owner, endpoint.id)).toEqual(before);

    const document = (await t.request({ url: '/openapi.json' })).json();
    const operation = document.paths['/webhooks/{id}/rotate-secret'].post;
    expect([operation['x-permission'], operation['x-cost']]).toEqual(['webhooks:write', 1]);
  });
});

describe('Idempotency-Key on answers that carry a secret', () => {
  it('replays the same secret, and stores the answer sealed', async () => {
    const tenant = await t.tenant();
    const send = (url: string, key: string, body?: unknown) =>
      t.request({ method: 'POST', url, key: tenant.key, body, headers: { 'idempotency-key': key } });
    const storedBody = async (key: string) =>
      (
        await db()
          .selectFrom('idempotency_keys')
          .select('response_body')
          .where('organization_id', '=', tenant.organization.id)
          .where('key', '=', key)
          .executeTakeFirstOrThrow()
      ).response_body!;

    const body = { url: `${receiver.origin}/idem`, events: ['site.created'], generateSecret: true };
    const first = await send('/v1/webhooks', 'create-1', body);
    expect(first.statusCode).toBe(201);
    const again = await send('/v1/webhooks', 'create-1', body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const { id, hmacSecret } = first.json<Endpoint>();
    expect(hmacSecret).toMatch(GENERATED);
    expect(await storedBody('create-1')).toMatch(/^v1:/);
    expect(await storedBody('create-1')).not.toContain(hmacSecret!.slice(6));

    const rotation = await send(`/v1/webhooks/${id}/rotate-secret`, 'rotate-1');
    expect(rotation.statusCode).toBe(200);
    const replayed = await send(`/v1/webhooks/${id}/rotate-secret`, 'rotate-1');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(rotation.json());
    expect(await storedBody('rotate-1')).not.toContain(rotation.json<Endpoint>().hmacSecret!.slice(6));
    // Replayed, not rotated again: the stored secret is the one answered.
    const request = await deliver(tenant, { id, url: `${receiver.origin}/idem` } as Endpoint);
    expect(standardSignedBy(request, rotation.json<Endpoint>().hmacSecret!)).toBe(true);
    expect(standardSignedBy(request, hmacSecret!)).toBe(true);
  });
});

describe('without PATRON_SECRET_KEY', () => {
  let keyless: TestApp;
  beforeAll(async () => {
    keyless = await startTestApp({ config: { webhookAllowPrivateHosts: true, secretKey: undefined } });
  });
  afterAll(() => keyless?.close());

  it('refuses generateSecret and rotate-secret with a clear 503 and stores nothing', async () => {
    const tenant = await keyless.tenant();
    const refused = await keyless.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: tenant.key,
      body: { url: 'https://127.0.0.1/x', events: ['site.created'], generateSecret: true },
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.message).toMatch(/PATRON_SECRET_KEY/);
    const created = await keyless.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: tenant.key,
      body: { url: 'https://127.0.0.1/x', events: ['site.created'] },
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<{ id: string }>();
    const rotation = await keyless.request({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      key: tenant.key,
    });
    expect(rotation.statusCode).toBe(503);
    expect(rotation.json().error.message).toBe(
      'Webhook secrets cannot be stored: the server runs without PATRON_SECRET_KEY. Ask the operator to set it.',
    );
    const rows = await keyless.testDatabase.database.db
      .selectFrom('webhook_endpoints')
      .select(['secret_ciphertext', 'previous_secret_ciphertext'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(rows).toEqual([{ secret_ciphertext: null, previous_secret_ciphertext: null }]);
  });
});
