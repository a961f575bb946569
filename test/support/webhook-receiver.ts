import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

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
