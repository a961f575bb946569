import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationResource } from '../../src/resources/organization/index.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource } from '../support/probe-resource.js';

let t: TestApp;
let tenant: Tenant;
const now = 0;

beforeAll(async () => {
  t = await startTestApp({
    resources: [organizationResource, probeResource()],
    limiter: new MemoryRateLimiter({ now: () => now, sweepIntervalMs: 0 }),
  });
  tenant = await t.tenant({ apiRequestsPerMinute: 10 });
});
afterAll(() => t.close());

describe('/openapi.json', () => {
  it('is OpenAPI 3.1 with every /v1 operation carrying its permission, cost and error responses', async () => {
    const response = await t.request({ url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    // Absolute and templated, so mock servers and generators resolve it (docs/api.md#the-api-reference).
    expect(document.servers).toEqual([
      {
        url: '{scheme}://{host}/v1',
        variables: expect.objectContaining({ scheme: expect.any(Object), host: expect.any(Object) }),
        'x-internal': false,
        description: expect.any(String),
      },
    ]);
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['get /organization', 'post /probe/things', 'get /probe/cost10']),
    );
    // Internal endpoints are not part of the API document.
    expect(Object.keys(document.paths)).not.toContain('/metrics');
    for (const { operation } of operations) {
      expect(operation['x-permission']).toBeTruthy();
      expect(operation['x-cost']).toBeGreaterThanOrEqual(1);
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      for (const status of ['400', '401', '403', '429', '500']) expect(operation.responses[status]).toBeTruthy();
    }
    const cost10 = operations.find((o) => o.path === '/probe/cost10')!.operation;
    expect(cost10['x-cost']).toBe(10);
    expect(cost10.description).toContain('Cost: 10');
    const loyalty = operations.find((o) => o.path === '/probe/loyalty-events')!.operation;
    expect(loyalty['x-rate-limit-buckets']).toEqual(['loyalty-events']);
    const post = operations.find((o) => o.path === '/probe/things' && o.method === 'post')!.operation;
    expect(post.responses['413']).toBeTruthy();
    expect(post.requestBody.content['application/json'].schema.properties.name).toBeTruthy();
    expect(document.components.schemas.ErrorEnvelope).toBeTruthy();
  });

  it('lists every refusal an operation can answer: 404 under a path id, 409 on POST, 413/415 with a body, its own', async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses).sort();
    expect(statuses('/probe', 'get')).toEqual(['400', '401', '403', '429', '500', '503']);
    expect(statuses('/probe/things/{id}', 'get')).toEqual(['400', '401', '403', '404', '429', '500', '503']);
    // D16: any POST may meet a reused Idempotency-Key; the route's own 409 and 422 are declared in its config.
    expect(statuses('/probe/things', 'post')).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    const post = document.paths['/probe/things'].post.responses;
    expect(post['409'].description).toMatch(/^CONFLICT: a thing with this name exists; or the Idempotency-Key/);
    expect(post['422'].description).toBe('UNPROCESSABLE: the name refers to nothing.');
  });
});

describe('/docs', () => {
  it('renders the reference from local assets only (works offline)', async () => {
    const page = await t.request({ url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).not.toMatch(/https?:\/\/(?!localhost)[^"' ]*\.(js|css)/);
    const scripts = [...page.body.matchAll(/src="([^"]+\.js)"/g)].map((match) => match[1]!);
    expect(scripts).toEqual(['/docs/scalar.js', '/docs/init.js']);
    for (const script of scripts) {
      const asset = await t.request({ url: script });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toMatch(/^text\/javascript/);
    }
  });

  it('sends a strict Content-Security-Policy that never upgrades plain http (the page works on any host)', async () => {
    const policy = (await t.request({ url: '/docs' })).headers['content-security-policy'];
    expect(policy).toBeTypeOf('string');
    const directives = Object.fromEntries(
      String(policy)
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(' ')]),
    );
    expect(directives).not.toHaveProperty('upgrade-insecure-requests');
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'script-src': "'self'",
      'connect-src': "'self'",
      'object-src': "'none'",
    });
  });
});

describe('/healthz and /readyz', () => {
  it('need no key and report the database', async () => {
    expect((await t.request({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.request({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      database: t.testDatabase.database.engine,
    });
  });
});

describe('/metrics', () => {
  it('exposes request counts and latency by route and status, rate-limit rejections and pool use', async () => {
    for (let i = 0; i < 11; i++) await t.request({ url: '/v1/probe', key: tenant.key });
    await t.request({ url: '/v1/unknown/path/123' });
    const response = await t.request({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
    const text = response.body;
    expect(text).toMatch(
      /patron_http_request_duration_seconds_count\{method="GET",route="\/v1\/probe",status="200"\} 10/,
    );
    expect(text).toMatch(
      /patron_http_request_duration_seconds_count\{method="GET",route="\/v1\/probe",status="429"\} 1/,
    );
    expect(text).toMatch(/patron_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/);
    expect(text).toMatch(
      /patron_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/probe",status="200"\}/,
    );
    expect(text).toMatch(/patron_rate_limit_rejections_total\{bucket="org"\} 1/);
    expect(text).toMatch(/patron_db_pool_total \d+/);
    expect(text).toMatch(/patron_db_pool_waiting 0/);
    expect(text).not.toContain('/v1/unknown/path/123');
  });
});
