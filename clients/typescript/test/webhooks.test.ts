import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import {
  dispatcherFor,
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../../../test/support/webhooks.js';
import { createPatronClient, verifyWebhook, WebhookVerificationError } from '../src/index.js';

const SECRET = 'client-test-secret-0123456789';

let t: TestApp;
let receiver: WebhookReceiver;
/** A real delivery, as the receiver got it: raw bytes and headers. */
let delivery: ReceivedWebhook;
let siteId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp({ config: { webhookAllowPrivateHosts: true, webhookTimeoutMs: 2_000 } });
  const tenant = await t.tenant();
  const client = createPatronClient({
    baseUrl: await t.app.listen({ port: 0, host: '127.0.0.1' }),
    apiKey: tenant.key,
  });
  await client.POST('/webhooks', {
    body: { data: { url: `${receiver.origin}/hooks`, events: ['site.created'], hmacSecret: SECRET } },
  });
  siteId = (await client.POST('/sites', { body: { data: { name: 'Hooked', domain: 'hooked.example.com' } } })).id;
  const dispatcher = dispatcherFor(t, receiver);
  try {
    delivery = (await receiver.waitFor(1, '/hooks'))[0]!;
  } finally {
    await dispatcher.stop();
  }
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const without = (headers: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error('verifyWebhook accepted it');
};

describe('verifyWebhook() on a real delivery', () => {
  it('accepts it and returns the envelope', () => {
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
    expect(delivery.headers['x-webhook-signature']).toMatch(/^sha256=/);
    const event = verifyWebhook<{ event: string; idempotencyKey: string; data: { id: string } }>(
      delivery.body,
      delivery.headers,
      SECRET,
    );
    expect(event.event).toBe('site.created');
    expect(event.data.id).toBe(siteId);
    expect(event.idempotencyKey).toBe(delivery.headers['webhook-id']);
    // The body as a string, and the headers as a fetch Headers object, work the same.
    expect(verifyWebhook(delivery.body.toString('utf8'), new Headers(delivery.headers), SECRET)).toEqual(event);
  });

  it('refuses another secret, a changed body, or a changed webhook-id', () => {
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, 'another-secret-0123456789'))).toBe(
      'signature-mismatch',
    );
    const changed = Buffer.from(delivery.body.toString('utf8').replace('Hooked', 'Hacked'));
    expect(refusal(() => verifyWebhook(changed, delivery.headers, SECRET))).toBe('signature-mismatch');
    expect(refusal(() => verifyWebhook(delivery.body, { ...delivery.headers, 'webhook-id': 'other' }, SECRET))).toBe(
      'signature-mismatch',
    );
  });

  it('refuses a timestamp outside the tolerance, either way, and accepts a wider tolerance', () => {
    const sentAt = Number(delivery.headers['webhook-timestamp']) * 1000;
    const late = () => sentAt + 301_000;
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, SECRET, { now: late }))).toBe(
      'timestamp-out-of-tolerance',
    );
    const early = () => sentAt - 301_000;
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, SECRET, { now: early }))).toBe(
      'timestamp-out-of-tolerance',
    );
    expect(verifyWebhook(delivery.body, delivery.headers, SECRET, { now: late, toleranceSeconds: 600 })).toBeTruthy();
    expect(verifyWebhook(delivery.body, delivery.headers, SECRET, { now: () => sentAt + 299_000 })).toBeTruthy();
  });

  it('falls back to X-Webhook-Signature only without the Standard Webhooks signature', () => {
    const legacy = without(delivery.headers, 'webhook-signature', 'webhook-id', 'webhook-timestamp');
    expect(verifyWebhook(delivery.body, legacy, SECRET)).toMatchObject({ event: 'site.created' });
    expect(refusal(() => verifyWebhook(delivery.body, legacy, 'another-secret-0123456789'))).toBe('signature-mismatch');
    // With webhook-signature present, a good X-Webhook-Signature cannot make up for a stale timestamp.
    const stale = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    expect(refusal(() => verifyWebhook(delivery.body, stale, SECRET))).toBe('timestamp-out-of-tolerance');
    expect(refusal(() => verifyWebhook(delivery.body, without(legacy, 'x-webhook-signature'), SECRET))).toBe(
      'unsigned',
    );
    expect(refusal(() => verifyWebhook(delivery.body, without(delivery.headers, 'webhook-id'), SECRET))).toBe(
      'missing-headers',
    );
  });
});

describe('verifyWebhook() with Standard Webhooks secrets', () => {
  // Signed by the standardwebhooks package, not by Patron's code: the receiver's view of the scheme.
  const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;
  const payload = JSON.stringify({ event: 'site.created', timestamp: new Date().toISOString(), data: { id: 'x' } });
  const signedBy = (secret: string, id = 'evt_1', at = new Date()) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  });

  it('keys a whsec_ secret with the bytes it decodes to', () => {
    const secret = whsec();
    expect(verifyWebhook(payload, signedBy(secret), secret)).toMatchObject({ event: 'site.created' });
    // The same bytes given as UTF-8 text are another key.
    const asText = Buffer.from(secret, 'utf8').toString('base64');
    expect(refusal(() => verifyWebhook(payload, signedBy(`whsec_${asText}`), secret))).toBe('signature-mismatch');
  });

  it('accepts any v1 entry of a rotation, with either secret, or with both given', () => {
    const [current, previous] = [whsec(), whsec()];
    const at = new Date();
    const both = {
      ...signedBy(current, 'evt_2', at),
      'webhook-signature': `${signedBy(current, 'evt_2', at)['webhook-signature']} ${signedBy(previous, 'evt_2', at)['webhook-signature']}`,
    };
    expect(verifyWebhook(payload, both, current)).toBeTruthy();
    expect(verifyWebhook(payload, both, previous)).toBeTruthy();
    expect(verifyWebhook(payload, signedBy(previous, 'evt_2', at), [current, previous])).toBeTruthy();
    expect(refusal(() => verifyWebhook(payload, both, whsec()))).toBe('signature-mismatch');
    // Entries of other versions, and garbage, are skipped rather than fatal.
    const mixed = { ...both, 'webhook-signature': `v1a,abc v1,!!! ${both['webhook-signature']}` };
    expect(verifyWebhook(payload, mixed, previous)).toBeTruthy();
  });

  it('keys any other secret with its UTF-8 bytes, and X-Webhook-Signature always so', () => {
    const plain = 'plain-secret-0123456789';
    const utf8AsStandard = `whsec_${Buffer.from(plain, 'utf8').toString('base64')}`;
    expect(verifyWebhook(payload, signedBy(utf8AsStandard), plain)).toBeTruthy();
    const secret = whsec();
    const hex = `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest('hex')}`;
    expect(verifyWebhook(payload, { 'X-Webhook-Signature': hex }, secret)).toBeTruthy();
  });
});
