import { readFile } from 'node:fs/promises';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceModule } from '../../src/core/types.js';
import { compileBodyValidator } from '../../src/http/validation.js';
import { listQuerySchema } from '../../src/lists/query.js';
import { ProductQuestion } from '../../src/records/product-question.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { TierCreateBody } from '../../src/resources/loyalty/tiers/schemas.js';
import { productQuestionList } from '../../src/resources/product-questions/list.js';
import { CHANGES, planRoute, VERSIONS } from '../../src/versions/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource } from '../support/probe-resource.js';

/**
 * Each version change's transforms, run against the schemas of both versions, and the version layer's guard: a
 * response transform whose output does not fit the route's schema fails loudly (a 500 in tests).
 */
const [FIRST, SECOND, THIRD] = VERSIONS as [string, string, string];
const withoutIds = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as object;
const byTitle = (title: string) => CHANGES.find((change) => change.title === title)!;

describe('each change, both directions, against both schemas', () => {
  it('2026-12-01 strict integers: the old request is rewritten to what the new schema takes', () => {
    const change = byTitle('Integer query parameters take decimal digits only');
    const querystring = listQuerySchema(productQuestionList, { quickFilter: true });
    const request = change.route({ method: 'GET', url: '/v1/product-questions', querystring })!.request!;
    const validate = compileBodyValidator(withoutIds(Type.Object({ limit: Type.Integer() })));
    for (const [sent, read] of [
      ['1e2', '100'],
      ['100.0', '100'],
      [' 7', '7'],
      ['0x10', '16'],
      ['25', '25'],
      ['abc', 'abc'],
    ] as const) {
      const parts = { query: { limit: sent } as Record<string, unknown>, body: undefined };
      request(parts);
      expect(parts.query.limit, sent).toBe(read);
      if (read !== 'abc') expect(validate({ limit: Number(parts.query.limit) })).toBeNull();
    }
    // A route without an integer query parameter is not touched.
    expect(change.route({ method: 'GET', url: '/v1/organization', querystring: Type.Object({}) })).toBeUndefined();
  });

  it('2026-12-01 deleted question: the new answer fits the schema, and so does the old one made from it', () => {
    const change = byTitle('A deleted question is answered with its answers');
    const response = change.route({ method: 'DELETE', url: '/v1/product-questions/:id' })!.response!;
    const validate = compileBodyValidator(withoutIds(ProductQuestion));
    const now = {
      id: '0192f1a0-0000-7000-8000-000000000001',
      productId: null,
      customerId: null,
      authorName: 'Ada',
      authorEmail: null,
      body: 'Lined?',
      status: 'published',
      source: 'merchant',
      remoteId: null,
      publishedAt: null,
      metadata: {},
      createdAt: '2026-12-01T00:00:00.000Z',
      updatedAt: '2026-12-01T00:00:00.000Z',
      answers: [],
      answersCount: 0,
    };
    expect(validate(now)).toBeNull();
    const before = response(structuredClone(now)) as Record<string, unknown>;
    expect(validate(before)).toBeNull();
    expect(Object.keys(before)).toEqual(Object.keys(now).filter((key) => !key.startsWith('answers')));
    expect(change.route({ method: 'DELETE', url: '/v1/product-questions/:id/answers/:answerId' })).toBeUndefined();
  });

  it('2026-12-07 tier position: the old request, wrapped or not, becomes a new one with position 0', () => {
    const change = byTitle('A new tier without a position goes last');
    const request = change.route({ method: 'POST', url: '/v1/loyalty-tiers' })!.request!;
    const validate = compileBodyValidator(withoutIds(TierCreateBody));
    for (const body of [{ name: 'Gold', thresholdPoints: 5 }, { data: { name: 'Gold', thresholdPoints: 5 } }]) {
      const parts = { query: {}, body: structuredClone(body) as unknown };
      request(parts);
      expect(validate(parts.body)).toBeNull();
      expect(JSON.stringify(parts.body)).toContain('"position":0');
    }
    const placed = { query: {}, body: { name: 'Gold', thresholdPoints: 5, position: 3 } as unknown };
    request(placed);
    expect(placed.body).toMatchObject({ position: 3 });
  });

  it('plans a route per older version: requests oldest change first, responses newest first', () => {
    const plans = planRoute({
      method: 'GET',
      url: '/v1/products',
      querystring: Type.Object({ limit: Type.Integer() }),
    });
    expect([...plans.keys()]).toEqual([FIRST]);
    expect(plans.get(FIRST)!.request).toHaveLength(1);
    const tiers = planRoute({ method: 'POST', url: '/v1/loyalty-tiers' });
    expect([...tiers.keys()]).toEqual([FIRST, SECOND]);
    expect(tiers.has(THIRD)).toBe(false);
  });
});

describe('docs/changelog.md', () => {
  it('names every version and every change of the registry, newest first', async () => {
    const text = await readFile(new URL('../../docs/changelog.md', import.meta.url), 'utf8');
    const headings = [...text.matchAll(/^## (\d{4}-\d{2}-\d{2})$/gm)].map((match) => match[1]);
    expect(headings).toEqual([...VERSIONS].reverse());
    for (const change of CHANGES) {
      const entry = text.slice(text.indexOf(`## ${change.version}`)).split(/^## /m)[1]!;
      expect(entry, change.title).toContain(`**${change.title}.**`);
    }
  });
});

describe('the version layer through HTTP', () => {
  let t: TestApp;
  let tenant: Tenant;
  /**
   * A route at a changed route's place whose older document the old answer does not fit: `answers` stays required
   * there (the change's document transform edits a plain object schema, and this one is an intersection).
   */
  const strictQuestion: ResourceModule = {
    name: 'strict-question',
    routes(app) {
      app.delete(
        '/product-questions/:id',
        {
          config: { permission: 'reviews:write', cost: 1 },
          schema: {
            params: Type.Object({ id: Type.String() }),
            response: {
              200: Type.Intersect([
                Type.Object({ id: Type.String() }),
                Type.Object({ answers: Type.Array(Type.String()) }),
              ]),
            },
          },
        },
        async (request) => ({ id: request.params.id, answers: ['Yes.'] }),
      );
    },
  };

  beforeAll(async () => {
    t = await startTestApp({ resources: [organizationResource, probeResource(), strictQuestion] });
    tenant = await t.tenant();
  });
  afterAll(() => t.close());

  const get = (url: string, version: string) =>
    t.request({ url, key: tenant.key, headers: { 'patron-version': version } });

  it('reads limit=1e2 as 100 at 2026-11-20 and refuses it at 2026-12-01', async () => {
    expect((await get('/v1/probe?limit=1e2', FIRST)).json()).toEqual({ ok: true, limit: 100 });
    expect((await get('/v1/probe?limit=0x10', FIRST)).json()).toEqual({ ok: true, limit: 16 });
    expect((await get('/v1/probe?limit=1e2', SECOND)).statusCode).toBe(400);
    expect((await get('/v1/probe?limit=100', SECOND)).json()).toEqual({ ok: true, limit: 100 });
    // Text that was never an integer is refused as before, with one detail.
    const word = await get('/v1/probe?limit=ten', SECOND);
    expect(word.json().error.details).toEqual([{ path: 'query.limit', message: 'must be an integer' }]);
  });

  it("fails loudly (500) when a transformed answer does not fit its version's document", async () => {
    const del = (version: string) =>
      t.request({
        method: 'DELETE',
        url: '/v1/product-questions/x',
        key: tenant.key,
        headers: { 'patron-version': version },
      });
    expect((await del(SECOND)).statusCode).toBe(200);
    const broken = await del(FIRST);
    expect(broken.statusCode).toBe(500);
    expect(broken.json().error.code).toBe('INTERNAL_ERROR');
  });
});
