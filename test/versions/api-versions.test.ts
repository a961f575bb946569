import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, webhookAppOptions, type TestApp, type Tenant } from '../support/app.js';
import { dispatcherFor, startWebhookReceiver, type WebhookReceiver } from '../support/webhooks.js';
import { LATEST_VERSION, VERSIONS } from '../../src/versions/index.js';

/** docs/api.md#api-versions, through HTTP: resolution, each change at both of its versions, headers, documents. */
let t: TestApp;
let receiver: WebhookReceiver;
const [FIRST, SECOND, THIRD] = VERSIONS as [string, string, string];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp(webhookAppOptions(receiver));
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const call = (
  tenant: Tenant,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  version?: string,
  body?: unknown,
) =>
  t.request({
    method,
    url,
    key: tenant.key,
    ...(body === undefined ? {} : { body }),
    ...(version ? { headers: { 'patron-version': version } } : {}),
  });

describe('the versions', () => {
  it('are 2026-11-20, 2026-12-01 and 2026-12-07, the newest last', () => {
    expect(VERSIONS).toEqual(['2026-11-20', '2026-12-01', '2026-12-07']);
    expect(LATEST_VERSION).toBe('2026-12-07');
  });
});

describe('resolving the version', () => {
  it("is the header, else the organization's apiVersion (the newest for a new one), and every answer says it", async () => {
    const tenant = await t.tenant();
    expect(tenant.organization.apiVersion).toBe(LATEST_VERSION);
    const plain = await call(tenant, 'GET', '/v1/products');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['patron-version']).toBe(LATEST_VERSION);
    const pinned = await call(tenant, 'GET', '/v1/products', FIRST);
    expect(pinned.headers['patron-version']).toBe(FIRST);

    await t.testDatabase.database.db
      .updateTable('organizations')
      .set({ api_version: FIRST })
      .where('id', '=', tenant.organization.id)
      .execute();
    expect((await call(tenant, 'GET', '/v1/products')).headers['patron-version']).toBe(FIRST);
    expect((await call(tenant, 'GET', '/v1/products', SECOND)).headers['patron-version']).toBe(SECOND);
  });

  it('answers errors with the version too, and a 401 with the one asked for (else the newest)', async () => {
    const tenant = await t.tenant();
    const notFound = await call(tenant, 'GET', '/v1/products/0192f1a0-0000-7000-8000-000000000000', SECOND);
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['patron-version']).toBe(SECOND);
    const anonymous = await t.request({ url: '/v1/products', headers: { 'patron-version': FIRST } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['patron-version']).toBe(FIRST);
    const unknown = await t.request({ url: '/v1/products', headers: { 'patron-version': 'yesterday' } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['patron-version']).toBe(LATEST_VERSION);
  });

  it('is 400 INVALID_VERSION, listing the versions, for an unknown or malformed one', async () => {
    const tenant = await t.tenant();
    for (const given of ['2026-11-21', 'latest', '2026-12-1']) {
      const refused = await call(tenant, 'GET', '/v1/products', given);
      expect(refused.statusCode, given).toBe(400);
      expect(refused.json().error).toMatchObject({
        code: 'INVALID_VERSION',
        details: [{ path: 'header.patron-version', message: `must be one of ${VERSIONS.join(', ')}` }],
      });
      expect(refused.json().error.message).toContain(VERSIONS.join(', '));
      expect(refused.headers['patron-version']).toBe(LATEST_VERSION);
    }
  });
});

describe('PATCH /v1/organization apiVersion', () => {
  it('moves forward only: a later version is taken, an earlier one and an unknown one are 400', async () => {
    const tenant = await t.tenant();
    await t.testDatabase.database.db
      .updateTable('organizations')
      .set({ api_version: SECOND })
      .where('id', '=', tenant.organization.id)
      .execute();
    const back = await call(tenant, 'PATCH', '/v1/organization', undefined, { apiVersion: FIRST });
    expect(back.statusCode).toBe(400);
    expect(back.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.apiVersion', message: `must be ${SECOND} or later` }],
    });
    expect(back.json().error.message).toContain('moves forward only');
    const unknown = await call(tenant, 'PATCH', '/v1/organization', undefined, { data: { apiVersion: '2027-01-01' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({
      code: 'INVALID_VERSION',
      details: [{ path: 'body.data.apiVersion' }],
    });
    const same = await call(tenant, 'PATCH', '/v1/organization', undefined, { apiVersion: SECOND });
    expect(same.statusCode).toBe(200);
    const forward = await call(tenant, 'PATCH', '/v1/organization', undefined, { apiVersion: THIRD });
    expect(forward.statusCode).toBe(200);
    expect(forward.json().apiVersion).toBe(THIRD);
    expect((await call(tenant, 'GET', '/v1/organization')).json().apiVersion).toBe(THIRD);
  });
});

describe(`${SECOND}: integer query parameters take decimal digits only`, () => {
  it('refuses limit=1e2 and limit=100.0 at the new version and reads them as 100 at the old one', async () => {
    const tenant = await t.tenant();
    for (const limit of ['1e2', '100.0', '0x64']) {
      const now = await call(tenant, 'GET', `/v1/products?limit=${limit}`, SECOND);
      expect(now.statusCode, limit).toBe(400);
      expect(now.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ path: 'query.limit', message: 'must be an integer written in decimal digits, such as 100' }],
      });
      const before = await call(tenant, 'GET', `/v1/products?limit=${limit}`, FIRST);
      expect(before.statusCode, limit).toBe(200);
    }
    // Read as 100, not refused: limit=1e3 was 1000, over the maximum, then as now.
    expect((await call(tenant, 'GET', '/v1/products?limit=1e3', FIRST)).statusCode).toBe(400);
    expect((await call(tenant, 'GET', '/v1/products?limit=100', SECOND)).statusCode).toBe(200);
  });

  it('tells callers of the old version that the route changed (Deprecation, Sunset, Link), and not the others', async () => {
    const tenant = await t.tenant();
    const old = await call(tenant, 'GET', '/v1/products?limit=5', FIRST);
    expect(old.headers.deprecation).toBe(`@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
    expect(old.headers.sunset).toBe('Wed, 01 Dec 2027 00:00:00 GMT');
    expect(old.headers.link).toBe('</changelog#2026-12-01>; rel="deprecation"; type="text/markdown"');
    const current = await call(tenant, 'GET', '/v1/products?limit=5', SECOND);
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.headers.sunset).toBeUndefined();
    // A route no change touched: nothing to deprecate.
    expect((await call(tenant, 'GET', '/v1/organization', FIRST)).headers.deprecation).toBeUndefined();
    const changelog = await t.request({ url: '/changelog' });
    expect(changelog.statusCode).toBe(200);
    expect(changelog.body).toContain('## 2026-12-01');
  });
});

async function questionWithAnswers(tenant: Tenant): Promise<string> {
  const products = await call(tenant, 'POST', '/v1/products/import', undefined, {
    data: [{ slug: 'shirt', title: 'Shirt' }],
  });
  expect(products.statusCode, products.body).toBe(200);
  const question = await call(tenant, 'POST', '/v1/product-questions', undefined, {
    product: 'shirt',
    body: 'Is it lined?',
    authorName: 'Ada',
  });
  expect(question.statusCode, question.body).toBe(201);
  const { id } = question.json();
  for (const body of ['Yes.', 'In cotton.']) {
    expect((await call(tenant, 'POST', `/v1/product-questions/${id}/answers`, undefined, { body })).statusCode).toBe(
      201,
    );
  }
  return id;
}

describe(`${SECOND}: a deleted question is answered with its answers`, () => {
  it('carries answers and answersCount at the new version, and neither at the old one', async () => {
    const tenant = await t.tenant();
    const now = await call(tenant, 'DELETE', `/v1/product-questions/${await questionWithAnswers(tenant)}`, SECOND);
    expect(now.statusCode).toBe(200);
    expect(now.json().answersCount).toBe(2);
    expect(now.json().answers.map((answer: { body: string }) => answer.body)).toEqual(['Yes.', 'In cotton.']);
    expect(now.headers.deprecation).toBeUndefined();

    const before = await call(tenant, 'DELETE', `/v1/product-questions/${await questionWithAnswers(tenant)}`, FIRST);
    expect(before.statusCode).toBe(200);
    expect(before.json()).not.toHaveProperty('answers');
    expect(before.json()).not.toHaveProperty('answersCount');
    expect(before.json()).toMatchObject({ body: 'Is it lined?' });
    expect(before.headers.deprecation).toBe(`@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
    // Errors are the envelope at every version, never transformed.
    const missing = await call(tenant, 'DELETE', `/v1/product-questions/${now.json().id}`, FIRST);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe(`${THIRD}: a new tier without a position goes last`, () => {
  it('places tiers after the others at the new version, and at 0 at the older ones', async () => {
    const tenant = await t.tenant();
    const create = async (version: string, name: string, thresholdPoints: number, wrapped = false) => {
      const fields = { name, thresholdPoints };
      const response = await call(tenant, 'POST', '/v1/loyalty-tiers', version, wrapped ? { data: fields } : fields);
      expect(response.statusCode, response.body).toBe(201);
      return response;
    };
    expect((await create(THIRD, 'Silver', 100)).json().position).toBe(0);
    expect((await create(THIRD, 'Gold', 500, true)).json().position).toBe(1);
    const old = await create(SECOND, 'Bronze', 10);
    expect(old.json().position).toBe(0);
    expect(old.headers.deprecation).toBe(`@${Date.parse('2026-12-07T00:00:00Z') / 1000}`);
    expect((await create(FIRST, 'Tin', 5, true)).json().position).toBe(0);
    expect((await create(THIRD, 'Platinum', 1000)).json().position).toBe(2);
    // A position sent is kept at every version.
    const placed = await call(tenant, 'POST', '/v1/loyalty-tiers', FIRST, {
      name: 'Iron',
      thresholdPoints: 1,
      position: 7,
    });
    expect(placed.json().position).toBe(7);
  });
});

describe('webhook deliveries and the events API', () => {
  it("render each delivery at its endpoint's version (else the organization's), as GET /v1/events reads it", async () => {
    const tenant = await t.tenant();
    const endpoint = async (path: string, apiVersion?: string | null) => {
      const response = await call(tenant, 'POST', '/v1/webhooks', undefined, {
        url: `${receiver.origin}${path}`,
        events: ['webhook.created'],
        ...(apiVersion !== undefined ? { apiVersion } : {}),
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json();
    };
    const pinned = await endpoint('/versions-pinned', FIRST);
    expect(pinned.apiVersion).toBe(FIRST);
    const following = await endpoint('/versions-following');
    expect(following.apiVersion).toBeNull();
    const refused = await call(tenant, 'POST', '/v1/webhooks', undefined, {
      url: `${receiver.origin}/x`,
      events: ['webhook.created'],
      apiVersion: '2020-01-01',
    });
    expect(refused.json().error).toMatchObject({ code: 'INVALID_VERSION', details: [{ path: 'body.apiVersion' }] });

    // The event both endpoints subscribe to: a third endpoint's creation.
    await endpoint('/versions-third');
    const dispatcher = dispatcherFor(t, receiver);
    try {
      // The pinned endpoint also hears of the second endpoint's creation; the third's reaches both.
      const atPinned = (await receiver.waitFor(2, '/versions-pinned'))[1]!;
      const [atFollowing] = await receiver.waitFor(1, '/versions-following');
      expect(atPinned.headers['patron-version']).toBe(FIRST);
      expect(atFollowing!.headers['patron-version']).toBe(LATEST_VERSION);
      const id = JSON.parse(atPinned.body.toString('utf8')).id;
      expect(JSON.parse(atFollowing!.body.toString('utf8')).id).toBe(id);
      const read = await call(tenant, 'GET', `/v1/events/${id}`, FIRST);
      expect(read.headers['patron-version']).toBe(FIRST);
      expect(read.body).toBe(atPinned.body.toString('utf8'));
      expect((await call(tenant, 'GET', `/v1/events/${id}`)).body).toBe(atFollowing!.body.toString('utf8'));
    } finally {
      await dispatcher.stop();
    }

    const unpinned = await call(tenant, 'PUT', `/v1/webhooks/${pinned.id}`, undefined, { apiVersion: null });
    expect(unpinned.json().apiVersion).toBeNull();
    const kept = await call(tenant, 'PUT', `/v1/webhooks/${following.id}`, undefined, { apiVersion: SECOND });
    expect(kept.json().apiVersion).toBe(SECOND);
    expect((await call(tenant, 'GET', `/v1/webhooks/${following.id}`)).json().apiVersion).toBe(SECOND);
  });
});

describe('/openapi.json?version=', () => {
  it("serves each version's document, stating its version, and 400 INVALID_VERSION for an unknown one", async () => {
    const newest = await t.request({ url: '/openapi.json' });
    expect(newest.json().info.version).toBe(LATEST_VERSION);
    expect(newest.json()['x-api-versions']).toEqual(VERSIONS);
    expect(newest.json().components.parameters.PatronVersion).toMatchObject({ name: 'Patron-Version', in: 'header' });
    expect((await t.request({ url: `/openapi.json?version=${LATEST_VERSION}` })).body).toBe(newest.body);

    const first = await t.request({ url: `/openapi.json?version=${FIRST}` });
    expect(first.statusCode).toBe(200);
    expect(first.headers['patron-version']).toBe(FIRST);
    const document = first.json();
    expect(document.info.version).toBe(FIRST);
    expect(document.paths['/product-questions/{id}'].delete.summary).toBe(
      'Delete a question with its answers; triggers productQuestion.deleted carrying the answers',
    );
    expect(JSON.stringify(document)).not.toContain("after the program's tiers");
    const second = (await t.request({ url: `/openapi.json?version=${SECOND}` })).json();
    expect(second.paths['/product-questions/{id}'].delete.summary).toBe(
      newest.json().paths['/product-questions/{id}'].delete.summary,
    );
    expect(JSON.stringify(second)).toContain('Default 0.');
    expect(JSON.stringify(newest.json())).not.toContain('Default 0.');

    const unknown = await t.request({ url: '/openapi.json?version=2026-01-01' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('INVALID_VERSION');
  });
});
