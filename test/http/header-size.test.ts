import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES } from '../../src/http/app.js';
import { FILTER_LIMITS } from '../../src/lists/filter.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

// Header limits live in Node's HTTP parser, which app.inject skips: these requests go over a real socket (loopback).
let t: TestApp;
let tenant: Tenant;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

describe('request header size', () => {
  it('takes by GET a filter document at the documented limit, every character of it percent-encoded', async () => {
    // 100 values of 158 "{" each: a document just under the limit whose every character encodes to three bytes.
    const filter = JSON.stringify({ email: { $in: Array.from({ length: 100 }, () => '{'.repeat(158)) } });
    expect(Buffer.byteLength(filter)).toBeGreaterThan(FILTER_LIMITS.maxBytes - 300);
    expect(Buffer.byteLength(filter)).toBeLessThanOrEqual(FILTER_LIMITS.maxBytes);
    const url = `${baseUrl}/v1/customers?${new URLSearchParams({ filter })}`;
    expect(url.length).toBeGreaterThan(46_000);
    const response = await fetch(url, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ data: [], nextCursor: null });
  });

  it('answers headers over the limit with 431 in the error envelope', async () => {
    const response = await fetch(`${baseUrl}/v1/organization`, {
      headers: { authorization: `Bearer ${tenant.key}`, 'x-padding': 'x'.repeat(MAX_HEADER_BYTES) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({
      error: { code: 'REQUEST_HEADERS_TOO_LARGE', message: expect.stringMatching(/exceed 64 KiB/) },
    });
  });
});
