/**
 * A slow body is cut off within a second of REQUEST_TIMEOUT_MS every time (docs/api.md#slow-clients), also after the
 * same server has answered ordinary requests, and on a keep-alive connection that already carried one: a client that
 * trickles its body one byte at a time never holds the socket much past the limit. Real sockets on loopback (app.inject
 * skips Node's HTTP server, where the time-outs live), on the embedded database and on PostgreSQL alike.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

const REQUEST_TIMEOUT_MS = 2_000;
/** The limit, Node's once-a-second check, and room for a loaded machine; a socket kept open would reach 15 s. */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + 1_000 + 3_000;
const TRICKLE_EVERY_MS = 400;

let t: TestApp;
let tenant: Tenant;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ config: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
  tenant = await t.tenant();
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => t.close());

const ordinary = (path = '/v1/organization') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.key}\r\nConnection: keep-alive\r\n\r\n`;
const slowPostHead = () =>
  `POST /v1/sites HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.key}\r\n` +
  'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n';

interface Trickled {
  /** What the server wrote after the slow request began. */
  answer: string;
  /** From the slow request's first byte to the server closing the socket for good. */
  cutAfterMs: number;
}

/**
 * On one socket: first `before` whole requests, each answered before the next (keep-alive), then a POST whose body
 * comes one byte every TRICKLE_EVERY_MS for as long as the socket stays open, whatever the server answers: the
 * client keeps its side open (allowHalfOpen), as a client that writes without reading does. Resolves when the server
 * has closed the socket for good, not merely ended its side; the test's own guard gives up after 15 s.
 */
function trickleAfter(before: number): Promise<Trickled> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    let answered = 0;
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      finish();
      reject(new Error('the server kept a trickling socket open for 15 s'));
    }, 15_000);
    const finish = () => {
      clearInterval(timer);
      clearTimeout(guard);
      socket.destroy();
    };
    const startSlow = () => {
      received = '';
      started = performance.now();
      socket.write(slowPostHead());
      timer = setInterval(() => socket.write('{'), TRICKLE_EVERY_MS);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (started) return;
      // One whole answer to an ordinary request (its body is small JSON with a Content-Length).
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? NaN);
      if (end < 0 || received.length < end + 4 + length) return;
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      received = received.slice(end + 4 + length);
      answered++;
      if (answered < before) socket.write(ordinary());
      else startSlow();
    });
    const done = () => {
      if (!started) return reject(new Error(`the socket closed before the slow request (${received})`));
      const cutAfterMs = performance.now() - started;
      finish();
      resolve({ answer: received, cutAfterMs });
    };
    socket.on('close', done);
    // A write after the server is gone fails with EPIPE or ECONNRESET: that is the server having closed it.
    socket.on('error', () => {});
    socket.on('connect', () => (before > 0 ? socket.write(ordinary()) : startSlow()));
  });
}

const expectCutOff = ({ answer, cutAfterMs }: Trickled) => {
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(cutAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
  expect(cutAfterMs).toBeLessThan(CUT_WITHIN_MS);
};

describe('a trickled body', () => {
  it('is cut off on a fresh connection', async () => {
    expectCutOff(await trickleAfter(0));
  });

  it('is cut off after the server answered ordinary requests on other connections', async () => {
    for (let n = 0; n < 5; n++) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/organization`, {
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expectCutOff(await trickleAfter(0));
  });

  it('is cut off on a keep-alive connection that already carried ordinary requests, every time', async () => {
    for (const before of [1, 3]) expectCutOff(await trickleAfter(before));
    const together = await Promise.all([trickleAfter(1), trickleAfter(2), trickleAfter(0), trickleAfter(4)]);
    for (const outcome of together) expectCutOff(outcome);
  });
});
