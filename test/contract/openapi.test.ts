import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { LATEST_VERSION, VERSIONS } from '../../src/versions/index.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('/openapi.json', () => {
  // The published contract, byte for byte: a change to any route, schema, description or example shows up here as a
  // diff to review. After an intended change, `npx vitest run test/contract -u` writes the new document.
  it('is the committed contract document', async () => {
    const response = await t.request({ url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    await expect(`${JSON.stringify(response.json(), null, 2)}\n`).toMatchFileSnapshot('./openapi.json');
  });

  // Each older API version's document (docs/api.md#api-versions) is a contract too: the typed client generates a
  // `paths` type from each. The newest's is the document above.
  it.each(VERSIONS.filter((version) => version !== LATEST_VERSION))(
    '?version=%s is its committed document',
    async (version) => {
      const response = await t.request({ url: `/openapi.json?version=${version}` });
      expect(response.statusCode).toBe(200);
      expect(response.json().info.version).toBe(version);
      await expect(`${JSON.stringify(response.json(), null, 2)}\n`).toMatchFileSnapshot(`./openapi-${version}.json`);
    },
  );
});
