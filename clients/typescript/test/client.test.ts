import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../src/ratelimit/index.js';
import { startTestApp, type TestApp, type Tenant } from '../../../test/support/app.js';
import {
  API_VERSIONS,
  createPatronClient,
  LATEST_API_VERSION,
  PatronError,
  type ListPath,
  type PatronClient,
  type RetryEvent,
} from '../src/index.js';

// The rate limiter runs on a clock the tests move by hand, so a refusal and its refill are exact.
let clock = 1_000_000;
let t: TestApp;
let baseUrl: string;
let tenant: Tenant;
let client: PatronClient;
/** Every request the client sends through `counting`, as `METHOD path?query`. */
const sent: string[] = [];
const counting = (request: Request) => {
  sent.push(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`);
  return fetch(request);
};

beforeAll(async () => {
  t = await startTestApp({ limiter: new MemoryRateLimiter({ now: () => clock, sweepIntervalMs: 0 }) });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  tenant = await t.tenant();
  client = createPatronClient({ baseUrl, apiKey: tenant.key, fetch: counting });
});
afterAll(() => t.close());

const importCustomers = (emails: string[], on = client) =>
  on.POST('/customers/import', { body: { data: emails.map((email) => ({ email, firstName: 'Test' })) } });

describe('typed calls', () => {
  it('calls operations with path, query and body, and resolves to the answer', async () => {
    const organization = await client.GET('/organization');
    expect(organization.id).toBe(tenant.organization.id);

    const site = await client.POST('/sites', { body: { data: { name: 'Shop', domain: 'shop.example.com' } } });
    expect(site).toMatchObject({ name: 'Shop', domain: 'shop.example.com', currencyCode: 'USD' });
    const renamed = await client.PATCH('/sites/{id}', {
      params: { path: { id: site.id } },
      body: { data: { name: 'Shop 2' } },
    });
    expect(renamed.name).toBe('Shop 2');
    expect((await client.GET('/sites/{id}', { params: { path: { id: site.id } } })).name).toBe('Shop 2');
    const page = await client.GET('/sites', { params: { query: { limit: 5, sort: 'name' } } });
    expect(page.data.map((each) => each.id)).toEqual([site.id]);
    expect(page.nextCursor).toBeNull();
    const deleted = await client.DELETE('/sites/{id}', { params: { path: { id: site.id } } });
    expect(deleted.id).toBe(site.id);
  });

  it('accepts the server origin or the /v1 base URL', async () => {
    const viaV1 = createPatronClient({ baseUrl: `${baseUrl}/v1/`, apiKey: tenant.key });
    expect((await viaV1.GET('/organization')).id).toBe(tenant.organization.id);
  });
});

describe('API versions', () => {
  it('sends Patron-Version on every request: the newest by default, or the apiVersion pinned', async () => {
    const versions: (string | null)[] = [];
    const recording = (request: Request) => {
      versions.push(request.headers.get('patron-version'));
      return fetch(request);
    };
    const newest = createPatronClient({ baseUrl, apiKey: tenant.key, fetch: recording });
    expect(newest.apiVersion).toBe(LATEST_API_VERSION);
    await newest.GET('/organization');
    const pinned = createPatronClient({ baseUrl, apiKey: tenant.key, apiVersion: '2026-11-20', fetch: recording });
    expect(pinned.apiVersion).toBe('2026-11-20');
    // At 2026-11-20 limit=1e2 was read as 100; the typed query sends plain integers, so both versions take it.
    const page = await pinned.GET('/sites', { params: { query: { limit: 100 } } });
    expect(page.data).toEqual([]);
    expect(versions).toEqual([LATEST_API_VERSION, '2026-11-20']);
    expect(API_VERSIONS).toEqual(['2026-11-20', '2026-12-01', '2026-12-07']);
    expect(() => createPatronClient({ baseUrl, apiKey: tenant.key, apiVersion: '1999-01-01' as never })).toThrow(
      /Unknown apiVersion "1999-01-01"/,
    );
  });

  it("answers in the pinned version's shape: a deleted question without its answers at 2026-11-20", async () => {
    const product = await client.POST('/products/import', { body: { data: [{ slug: 'hat', title: 'Hat' }] } });
    expect(product.data).toHaveLength(1);
    const ask = () => client.POST('/product-questions', { body: { product: 'hat', body: 'Warm?', authorName: 'Ada' } });
    const pinned = createPatronClient({ baseUrl, apiKey: tenant.key, apiVersion: '2026-11-20' });
    const old = await pinned.DELETE('/product-questions/{id}', { params: { path: { id: (await ask()).id } } });
    expect(old).not.toHaveProperty('answers');
    const now = await client.DELETE('/product-questions/{id}', { params: { path: { id: (await ask()).id } } });
    expect(now.answers).toEqual([]);
    expect(now.answersCount).toBe(0);
  });
});

describe('paginate()', () => {
  it('walks every page of a list through nextCursor, one request per page', async () => {
    const emails = Array.from({ length: 23 }, (_, index) => `page-${String(index).padStart(2, '0')}@example.com`);
    await importCustomers(emails);
    sent.length = 0;
    const walked: string[] = [];
    for await (const customer of client.paginate('/customers', {
      params: { query: { limit: 10, sort: 'email', filter: JSON.stringify({ email: { $startsWith: 'page-' } }) } },
    })) {
      walked.push(customer.email);
    }
    expect(walked).toEqual(emails);
    expect(sent).toHaveLength(3);
    expect(sent[0]).not.toContain('cursor=');
    expect(sent[1]).toContain('cursor=');
    expect(sent.every((line) => line.includes('limit=10') && line.includes('sort=email'))).toBe(true);
  });

  it('pages() yields the pages themselves, and stops early when the caller does', async () => {
    const sizes: number[] = [];
    for await (const page of client.pages('/customers', {
      params: { query: { limit: 10, filter: JSON.stringify({ email: { $startsWith: 'page-' } }) } },
    })) {
      sizes.push(page.data.length);
    }
    expect(sizes).toEqual([10, 10, 3]);

    sent.length = 0;
    for await (const customer of client.paginate('/customers', { params: { query: { limit: 2 } } })) {
      expect(customer.email).toMatch(/@/);
      break;
    }
    expect(sent).toHaveLength(1);
  });

  it('walks the audit log, newest first, with its filters', async () => {
    const before = new Date().toISOString();
    await importCustomers(['audit-1@example.com']);
    await importCustomers(['audit-2@example.com']);
    const walked = [];
    for await (const entry of client.paginate('/audit-log', {
      params: { query: { limit: 1, resourceType: 'customers', createdAfter: before } },
    })) {
      walked.push(`${entry.method} ${entry.path} ${entry.status}`);
    }
    expect(walked).toEqual(['POST /v1/customers/import 200', 'POST /v1/customers/import 200']);
  });

  it('serves every list operation of the document', async () => {
    const document = JSON.parse(readFileSync(new URL('../../../test/contract/openapi.json', import.meta.url), 'utf8'));
    const lists = Object.entries(document.paths as Record<string, { get?: { parameters?: { name: string }[] } }>)
      .filter(([, item]) => item.get?.parameters?.some((parameter) => parameter.name === 'cursor'))
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThan(15);
    const endpoint = await client.POST('/webhooks', {
      body: { data: { url: 'https://93.184.215.14/hooks', events: ['site.created'] } },
    });
    await client.POST('/customers/import', { body: { data: [{ email: 'paged@example.com' }] } });
    const customers = await client.GET('/customers', { params: { query: { search: 'paged@example.com' } } });
    const member = await client.POST('/loyalty-memberships', { body: { data: { customerId: customers.data[0]!.id } } });
    // An import job (queued: its skipped rows are an empty list), its file sent as CSV.
    const upload = await t.request({
      method: 'POST',
      url: '/v1/import-jobs?resource=customers',
      key: tenant.key,
      body: 'email\nqueued@example.com\n',
      headers: { 'content-type': 'text/csv' },
    });
    // The lists under a record: a webhook endpoint's delivery log, a member's activity feed, an import's skipped rows.
    const owners: Record<string, string> = {
      '/webhooks/{id}/events': endpoint.id,
      '/loyalty-memberships/{id}/activity': member.id,
      '/import-jobs/{id}/skipped': upload.json().id,
    };
    expect(lists.filter((path) => path.includes('{id}')).sort()).toEqual(Object.keys(owners).sort());
    for (const path of lists) {
      const init = path.includes('{id}') ? { params: { path: { id: owners[path] }, query: { limit: 1 } } } : {};
      let count = 0;
      for await (const record of client.paginate(path as ListPath, init as never)) {
        // A skipped row is named by its place in the file, every other record by its id.
        expect(record).toHaveProperty(path.endsWith('/skipped') ? 'index' : 'id');
        if (++count === 3) break;
      }
    }
  });
});

describe('events', () => {
  it('lists, paginates, reads and delivers events, typed', async () => {
    const site = await client.POST('/sites', { body: { data: { name: 'Evented', domain: 'evented.example.com' } } });
    const page = await client.events.list({ type: 'site.*', objectId: site.id, limit: 1 });
    expect(page.data.map((event) => [event.event, event.livemode])).toEqual([['site.created', true]]);
    const event = await client.events.get(page.data[0]!.id);
    expect(event).toEqual(page.data[0]);
    const walked: string[] = [];
    for await (const each of client.events.paginate({ type: 'site.created', limit: 1 })) walked.push(each.id);
    expect(walked).toContain(event.id);
    // An inactive endpoint, so nothing leaves the machine: the call is sent as typed and refused with 409.
    const endpoint = await client.POST('/webhooks', {
      body: { data: { url: 'https://93.184.215.14/events-hook', events: ['order.deleted'], isActive: false } },
    });
    await expect(client.events.deliver(event.id, endpoint.id)).rejects.toMatchObject({ status: 409 });
    expect(sent.at(-1)).toBe(`POST /v1/events/${event.id}/deliver`);
    await expect(client.events.get('0190b4d1-0000-7000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
  });
});

describe('retries', () => {
  it('retries a 429 after its Retry-After, then answers', async () => {
    const small = await t.tenant({ apiRequestsPerMinute: 60 }); // refills 1 token a second
    for (let spent = 0; spent < 60; spent++) {
      expect((await t.request({ url: '/v1/organization', key: small.key })).statusCode).toBe(200);
    }
    const retries: RetryEvent[] = [];
    const limited = createPatronClient({
      baseUrl,
      apiKey: small.key,
      retry: {
        onRetry: (event) => {
          retries.push(event);
          clock += event.delayMs; // the limiter's clock moves as far as the client waits
        },
      },
    });
    const started = Date.now();
    const organization = await limited.GET('/organization');
    expect(organization.id).toBe(small.organization.id);
    expect(retries).toEqual([
      { attempt: 1, status: 429, delayMs: 1000, method: 'GET', url: `${baseUrl}/v1/organization` },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('throws the 429 when retries are off, or when Retry-After is longer than maxDelayMs', async () => {
    const small = await t.tenant({ apiRequestsPerMinute: 10 }); // one token every 6 s
    const noRetries = createPatronClient({ baseUrl, apiKey: small.key, retry: false });
    for (let spent = 0; spent < 10; spent++) await noRetries.GET('/organization');
    const refused = await noRetries.GET('/organization').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PatronError);
    expect(refused).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });

    const impatient = createPatronClient({ baseUrl, apiKey: small.key, retry: { maxDelayMs: 5_000 } });
    const started = Date.now();
    await expect(impatient.GET('/organization')).rejects.toMatchObject({ status: 429 });
    // Thrown without waiting: a wait would last at least maxDelayMs (5 s), so that is the bound, wide enough for a
    // busy machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('Idempotency-Key', () => {
  /**
   * A loopback proxy in front of the server. While `failing` > 0 it forwards a request, lets the server act, then
   * drops the answer and says 503 instead (a lost answer); afterwards it forwards the answers as they are.
   */
  async function startProxy(options: { failing: number; retryAfter?: string }) {
    const seen: { method: string; path: string; headers: IncomingHttpHeaders; status: number; replayed: boolean }[] =
      [];
    let failing = options.failing;
    const target = new URL(baseUrl);
    const server: Server = createServer((incoming, outgoing) => {
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const lost = failing > 0;
            if (lost) failing--;
            seen.push({
              method: incoming.method!,
              path: incoming.url!,
              headers: incoming.headers,
              status: answer.statusCode!,
              replayed: answer.headers['idempotent-replayed'] === 'true',
            });
            if (lost) {
              outgoing.writeHead(503, {
                'content-type': 'application/json',
                ...(options.retryAfter !== undefined ? { 'retry-after': options.retryAfter } : {}),
              });
              outgoing.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'Lost on the way.' } }));
            } else {
              outgoing.writeHead(answer.statusCode!, answer.headers);
              outgoing.end(Buffer.concat(chunks));
            }
          });
        },
      );
      incoming.pipe(forward);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      seen,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('sends a generated key with every POST and reuses it on the retry, so the server acts once', async () => {
    const proxy = await startProxy({ failing: 1, retryAfter: '0' });
    try {
      const proxied = createPatronClient({ baseUrl: proxy.url, apiKey: tenant.key });
      const site = await proxied.POST('/sites', { body: { data: { name: 'Once', domain: 'once.example.com' } } });
      expect(proxy.seen.map(({ method, status, replayed }) => ({ method, status, replayed }))).toEqual([
        { method: 'POST', status: 201, replayed: false }, // acted; its answer was lost
        { method: 'POST', status: 201, replayed: true }, // the retry: the stored answer, not a second site
      ]);
      const [first, retry] = proxy.seen.map(({ headers }) => headers['idempotency-key']);
      expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(retry).toBe(first);
      const sites = await client.GET('/sites', { params: { query: { filter: JSON.stringify({ name: 'Once' }) } } });
      expect(sites.data.map((each) => each.id)).toEqual([site.id]);
    } finally {
      await proxy.close();
    }
  });

  it("keeps the caller's key, makes a new one per call, and sends none with other methods", async () => {
    const proxy = await startProxy({ failing: 0 });
    try {
      const proxied = createPatronClient({ baseUrl: proxy.url, apiKey: tenant.key });
      await proxied.POST('/sites', {
        params: { header: { 'Idempotency-Key': 'caller-key-1' } },
        body: { data: { name: 'Given', domain: 'given.example.com' } },
      });
      await proxied.POST('/sites', {
        headers: { 'Idempotency-Key': 'caller-key-2' },
        body: { data: { name: 'Given 2', domain: 'given2.example.com' } },
      });
      await importCustomers(['key-a@example.com'], proxied);
      await importCustomers(['key-b@example.com'], proxied);
      await proxied.GET('/organization');
      const keys = proxy.seen.map(({ headers }) => headers['idempotency-key']);
      expect(keys.slice(0, 2)).toEqual(['caller-key-1', 'caller-key-2']);
      expect(keys[2]).not.toBe(keys[3]);
      expect(keys[4]).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('retries a 503 without Retry-After with back-off, at most `retries` times', async () => {
    const proxy = await startProxy({ failing: 10 });
    try {
      const retries: RetryEvent[] = [];
      const proxied = createPatronClient({
        baseUrl: proxy.url,
        apiKey: tenant.key,
        retry: { retries: 2, baseDelayMs: 20, onRetry: (event) => retries.push(event) },
      });
      const error = await proxied.GET('/organization').catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(PatronError);
      expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Lost on the way.' });
      expect(proxy.seen).toHaveLength(3);
      expect(retries.map(({ attempt, status }) => [attempt, status])).toEqual([
        [1, 503],
        [2, 503],
      ]);
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(20);
      expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(40);
    } finally {
      await proxy.close();
    }
  });
});

describe('PatronError', () => {
  it('carries status, code, message and request id of a 404', async () => {
    const error = await client
      .GET('/customers/{id}', {
        params: { path: { id: '00000000-0000-7000-8000-000000000000' } },
        headers: { 'X-Request-Id': 'client-test-404' },
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PatronError);
    expect(error).toBeInstanceOf(Error);
    const { status, code, message, details, requestId, method } = error as PatronError;
    expect({ status, code, details, requestId, method }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      details: [],
      requestId: 'client-test-404',
      method: 'GET',
    });
    expect(message).toMatch(/customer/i);
  });

  it('carries the details of a 400, field by field', async () => {
    const error = (await importCustomers(['fine@example.com', 'not an email']).catch(
      (thrown) => thrown,
    )) as PatronError;
    expect(error).toBeInstanceOf(PatronError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toContainEqual({ path: 'body.data[1].email', message: expect.any(String) });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is thrown for an answer that is not the envelope too', async () => {
    const server = createServer((_, response) => response.writeHead(502).end('Bad gateway'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const broken = createPatronClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'sk_x',
      });
      await expect(broken.GET('/organization')).rejects.toMatchObject({
        name: 'PatronError',
        status: 502,
        code: 'HTTP_502',
        message: 'Bad gateway',
      });
    } finally {
      server.close();
    }
  });
});

describe('session mode (the dashboard)', () => {
  it('sends no Authorization header, credentials same-origin, and X-CSRF-Token on writes only', async () => {
    const { createSignInLink, createUser } = await import('../../../src/auth/accounts.js');
    const db = t.testDatabase.database.db;
    const own = await t.tenant();
    const owner = await createUser(db, {
      organizationId: own.organization.id,
      email: `client-owner-${Date.now()}@example.com`,
      role: 'owner',
    });
    const signedIn = await fetch(`${baseUrl}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signInToken: (await createSignInLink(db, owner)).token }),
    });
    expect(signedIn.status).toBe(201);
    const { csrfToken } = (await signedIn.json()) as { csrfToken: string };
    // A browser sends the cookie itself; Node has no cookie jar, so the test sends it as a header.
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const seen: { method: string; authorization: string | null; csrf: string | null; credentials: string }[] = [];
    const session = { csrfToken };
    const dashboard = createPatronClient({
      baseUrl,
      session,
      headers: { cookie },
      fetch: (request) => {
        seen.push({
          method: request.method,
          authorization: request.headers.get('authorization'),
          csrf: request.headers.get('x-csrf-token'),
          credentials: request.credentials,
        });
        return fetch(request);
      },
    });
    expect((await dashboard.GET('/session')).user.id).toBe(owner.id);
    const key = await dashboard.POST('/keys', { body: { name: 'from the client', permissions: ['orders:read'] } });
    expect(key.key).toMatch(/^sk_/);
    expect((await dashboard.GET('/keys')).data.map((each) => each.id)).toContain(key.id);
    expect(seen.map((each) => [each.method, each.authorization, each.csrf])).toEqual([
      ['GET', null, null],
      ['POST', null, csrfToken],
      ['GET', null, null],
    ]);
    expect(seen.every((each) => each.credentials === 'same-origin')).toBe(true);

    // A wrong token is the server's 403, as a PatronError.
    session.csrfToken = 'stale';
    const refused = await dashboard.POST('/keys', { body: { permissions: ['orders:read'] } }).catch((error) => error);
    expect(refused).toBeInstanceOf(PatronError);
    expect(refused.status).toBe(403);
  });

  it('keeps node-only modules out of what @patron/client/browser loads', () => {
    const pending = ['browser.ts'];
    const visited = new Set<string>();
    while (pending.length) {
      const file = pending.pop()!;
      if (visited.has(file)) continue;
      visited.add(file);
      const text = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
      // Runtime imports only: `import type` and `export type` are erased.
      for (const [, specifier] of text.matchAll(/^(?:import|export)(?! type)[^'"]*?from '([^']+)'/gm)) {
        expect(specifier, file).not.toMatch(/^node:/);
        if (specifier!.startsWith('./')) pending.push(specifier!.slice(2).replace(/\.js$/, '.ts'));
      }
    }
    // generated/versions.ts: the list of API versions (values, no imports of its own at run time).
    expect([...visited].sort()).toEqual(['browser.ts', 'client.ts', 'errors.ts', 'generated/versions.ts', 'retry.ts']);
    const exports = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports;
    expect(exports['./browser']).toEqual({ types: './dist/src/browser.d.ts', default: './dist/src/browser.js' });
  });
});
