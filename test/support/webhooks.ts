import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { expect, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/jobs/dispatcher/dispatcher.js';
import type { TestApp, Tenant } from './app.js';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  /** The raw bytes, before any parsing: what signatures are checked against. */
  body: Buffer;
  receivedAt: number;
}

export interface Answer {
  status?: number;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export interface WebhookReceiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** The self-signed certificate, to trust via undici's connect.ca or NODE_EXTRA_CA_CERTS. */
  ca: string;
  received: ReceivedWebhook[];
  /** Decides the answer per request; default 200 at once. */
  answer: (request: { path: string; body: Buffer }) => Answer;
  /** Resolves once `count` requests have arrived on `path` (or anywhere when omitted). */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

let certificate: Promise<{ key: string; cert: string }> | undefined;

/** One certificate per test process: RSA generation is slow enough to matter when many files start receivers. */
export function loopbackCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }).then((pems) => ({ key: pems.private, cert: pems.cert }));
  return certificate;
}

/** A real HTTPS receiver on loopback with a self-signed certificate, recording every request it gets. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const { key, cert } = await loopbackCertificate();
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    origin: '',
    ca: cert,
    received,
    answer: () => ({ status: 200 }),
    async waitFor(count, path, timeoutMs = 15_000) {
      const matching = () => received.filter((request) => path === undefined || request.path === path);
      if (matching().length >= count) return matching();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `waited ${timeoutMs} ms for ${count} webhooks on ${path ?? 'any path'}, got ${matching().length}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (matching().length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(matching());
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = request.url ?? '/';
      const { status = 200, delayMs = 0 } = receiver.answer({ path, body });
      received.push({ path, headers: request.headers as Record<string, string>, body, receivedAt: Date.now() });
      for (const waiter of [...waiters]) waiter();
      const reply = () => {
        if (!response.destroyed) response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Writes the receiver's certificate into `dir`, for a child process's NODE_EXTRA_CA_CERTS; returns its path. */
export async function writeReceiverCa(receiver: WebhookReceiver, dir: string): Promise<string> {
  const path = join(dir, 'receiver-ca.pem');
  await writeFile(path, receiver.ca);
  return path;
}

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
