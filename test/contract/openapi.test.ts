import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

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
});
