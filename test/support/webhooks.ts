import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/jobs/dispatcher/dispatcher.js';
import type { TestApp, Tenant } from './app.js';
import type { ReceivedWebhook, WebhookReceiver } from './webhook-receiver.js';

export const quietLogger = {
  info: () => {},
  warn: () => {},
  error: (object: object, message: string) => console.error(message, object),
};

/** Creates an endpoint through the API and returns its record. */
export async function createEndpoint(
  t: TestApp,
  tenant: Tenant,
  fields: { url: string; events: string[]; hmacSecret?: string; isActive?: boolean },
): Promise<{ id: string; url: string }> {
  const response = await t.request({ method: 'POST', url: '/v1/webhooks', key: tenant.key, body: { data: fields } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/** A dispatcher on the test app's database, trusting the receiver's self-signed certificate. */
export function dispatcherFor(
  t: TestApp,
  receiver: WebhookReceiver,
  options: Partial<DispatcherOptions> = {},
): Dispatcher {
  return startDispatcher({
    database: t.testDatabase.database,
    config: t.config,
    logger: quietLogger,
    ca: receiver.ca,
    pollMs: 50,
    ...options,
  });
}

/**
 * Checks both signatures with implementations other than Patron's: the standardwebhooks package for
 * webhook-signature (given the base64 of the secret, per D24) and node:crypto written here for X-Webhook-Signature.
 */
export function expectSignedBy(request: ReceivedWebhook, secret: string): void {
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const header = request.headers['x-webhook-signature'] ?? '';
  expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
  const given = Buffer.from(header.slice('sha256='.length));
  expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);

  const verifier = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
  expect(() =>
    verifier.verify(request.body.toString('utf8'), {
      'webhook-id': request.headers['webhook-id']!,
      'webhook-timestamp': request.headers['webhook-timestamp']!,
      'webhook-signature': request.headers['webhook-signature']!,
    }),
  ).not.toThrow();
}

/** The Standard Webhooks headers of a request, as the libraries take them. */
export const standardHeadersOf = (request: ReceivedWebhook) => ({
  'webhook-id': request.headers['webhook-id']!,
  'webhook-timestamp': request.headers['webhook-timestamp']!,
  'webhook-signature': request.headers['webhook-signature']!,
});

/** Whether X-Webhook-Signature is the HMAC-SHA256 of the body keyed with the secret string (service.md). */
export function hexSignedBy(request: ReceivedWebhook, secret: string): boolean {
  const header = request.headers['x-webhook-signature'] ?? '';
  expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whether webhook-signature verifies with `new Webhook(secret)` of the standardwebhooks package and of the svix
 * package, given the secret exactly as stored (a `whsec_` secret). Both must agree.
 */
export function standardSignedBy(request: ReceivedWebhook, secret: string): boolean {
  const payload = request.body.toString('utf8');
  const verdicts = [new Webhook(secret), new SvixWebhook(secret)].map((verifier) => {
    try {
      verifier.verify(payload, standardHeadersOf(request));
      return true;
    } catch {
      return false;
    }
  });
  expect(verdicts[0], 'standardwebhooks and svix agree').toBe(verdicts[1]);
  return verdicts[0]!;
}

export const bodyOf = (request: ReceivedWebhook) =>
  JSON.parse(request.body.toString('utf8')) as { event: string; timestamp: string; idempotencyKey: string; data: any };

/** Polls `probe` until it answers something truthy, and resolves with that; fails after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (!value) throw new Error('condition not met in time');
      return value;
    },
    { timeout: timeoutMs, interval: 25 },
  );
}
