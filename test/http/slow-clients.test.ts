import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

// Time-outs live in Node's HTTP server, which app.inject skips: these clients are real sockets on loopback.
const REQUEST_TIMEOUT_MS = 1500;
/**
 * A stalled socket is closed by then: the time-out, plus Node's check of it once a second, plus room for a busy
 * machine's scheduling (a socket never cut would stay open until the test's own time-out).
 */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + 1_000 + 4_000;
let t: TestApp;
let tenant: Tenant;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ config: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
  tenant = await t.tenant();
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => t.close());

/** Opens a socket, writes `head` and then nothing; resolves with what the server said and when it closed. */
function stall(head: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(head));
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve({ answer, closedAfterMs: performance.now() - started }));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept a stalled socket open for 10 s'));
    }, 10_000);
  });
}

describe('slow clients', () => {
  it('cuts off a body that stops arriving, with 408 in the error envelope, and keeps serving others', async () => {
    const stalled = Array.from({ length: 20 }, () =>
      stall(
        `POST /v1/sites HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"data":',
      ),
    );
    // While they stall, a whole request is answered at once.
    const response = await fetch(`http://127.0.0.1:${port}/v1/organization`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(response.status).toBe(200);
    for (const { answer, closedAfterMs } of await Promise.all(stalled)) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: { code: 'REQUEST_TIMEOUT', message: expect.stringMatching(/did not arrive in time/) },
      });
      expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
    }
  });

  it('cuts off headers that stop arriving (slowloris), without a key', async () => {
    const { answer, closedAfterMs } = await stall('POST /nonexistent HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
  });
});
