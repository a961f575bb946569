import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

/** POST /v1/sites with a body of raw bytes, as a client sends it. */
const postSite = (payload: Buffer, contentType: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/sites',
    payload,
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': contentType },
  });

let sites = 0;
const siteBody = (name: string) =>
  Buffer.from(JSON.stringify({ data: { name, domain: `shop-${++sites}.example.com` } }));
const siteCount = async () =>
  (
    await t.testDatabase.database.db
      .selectFrom('sites')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', tenant.organization.id)
      .executeTakeFirstOrThrow()
  ).n;

describe('request body encodings', () => {
  it('refuses bytes that are not UTF-8 with 400 naming the body, and stores nothing (no U+FFFD)', async () => {
    const before = await siteCount();
    // "caf\xe9": Latin-1 é, an invalid byte sequence in UTF-8.
    const latin1 = Buffer.concat([
      Buffer.from('{"data":{"name":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('","domain":"cafe.example.com"}}'),
    ]);
    const response = await postSite(latin1, 'application/json');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/not valid UTF-8/),
      details: [{ path: 'body', message: 'is not valid UTF-8' }],
    });
    expect(await siteCount()).toBe(before);
  });

  it('refuses a charset other than UTF-8 with 415, whatever the bytes', async () => {
    for (const contentType of ['application/json; charset=latin1', 'application/json;charset="UTF-16"']) {
      const response = await postSite(siteBody('charset'), contentType);
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(response.json().error.message).toMatch(/UTF-8/);
    }
  });

  it('takes UTF-8 with or without the charset parameter, multi-byte characters intact', async () => {
    for (const [contentType, name] of [
      ['application/json', 'café'],
      ['application/json; charset=utf-8', 'naïve'],
      ['application/json; charset="UTF-8"', 'straße'],
    ] as const) {
      const response = await postSite(siteBody(name), contentType);
      expect(response.statusCode, contentType).toBe(201);
      expect(response.json().name).toBe(name);
    }
  });
});
