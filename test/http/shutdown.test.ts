import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp } from '../support/app.js';
import { probeResource } from '../support/probe-resource.js';

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then stops accepting and closes', async () => {
    const probe = { handled: 0, failNext: false, sleeping: 0 };
    const t = await startTestApp({ resources: [organizationResource, probeResource(probe)] });
    const { key } = await t.tenant();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;

    const inFlight = fetch(`${base}/v1/probe/slow?ms=400`, { headers: { authorization: `Bearer ${key}` } });
    // Closed once the request is in its handler: a fixed pause let a loaded machine close before it arrived (503).
    await vi.waitFor(() => expect(probe.sleeping).toBeGreaterThan(0), { interval: 5 });
    const closing = t.close();

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ slept: 400 });
    await closing;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
