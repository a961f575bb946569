/**
 * The Activity log page and a record's History in Chromium (docs/api.md#audit-log), signed in as the demo owner
 * against a real `patron serve` with the demo world: the log lists who did what with its result and request id,
 * filters by person or key, by result and by record; a product's and a customer's drawers list that record's own
 * history. axe-core finds no serious or critical violation; screenshots at 1280 and 390 px go to
 * test/browser/screenshots/ (docs/dashboard.md#tests).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
import {
  axeViolations,
  chromiumMissing,
  ensureDashboardBuilt,
  launchChromium,
  screenshot,
  serveOnHostname,
  signIn,
  type LaunchedChromium,
  type ServedOnHostname,
} from './support.js';

const TEST_TIMEOUT = 120_000;

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('the Activity log', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let page: Page;
  let productId: string;
  let customerId: string;

  async function v1(path: string, init: { method?: string; body?: unknown } = {}): Promise<any> {
    const response = await fetch(`${server.origin}/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${server.key}`,
        'x-request-id': `browser-${init.method ?? 'GET'}-${path.split('/')[1]}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function check(name: string, width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, `${name}: document width`).toBeLessThanOrEqual(width);
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await screenshot(page, `dashboard-${name}-${width}`);
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    productId = (await v1('/products?limit=1')).body.data[0].id;
    customerId = (await v1('/customers?limit=1')).body.data[0].id;
    expect((await v1(`/products/${productId}`, { method: 'PATCH', body: { notes: 'Edited by the API' } })).status).toBe(
      200,
    );
    expect((await v1(`/customers/${customerId}`, { method: 'PATCH', body: { notes: 'Called back' } })).status).toBe(
      200,
    );
    // A refused write: its entry is written after its answer.
    expect((await v1('/customers/01900000-0000-7000-8000-000000000000', { method: 'DELETE' })).status).toBe(404);

    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
    expect(link, server.stderr()).toBeDefined();
    await signIn(page, server.origin, link!);
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), chromium?.close()]);
  });

  it(
    'lists who did what, when, with the result and request id, and filters by key, result and record',
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('link', { name: 'Activity log' }).click();
      await page.getByRole('heading', { name: 'Activity log', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Activity log' });
      // The owner's own sign-in, and the API key's edits.
      await table
        .getByRole('row', { name: /owner@demo\.example.*POST.*\/v1\/session.*Done 201/ })
        .first()
        .waitFor();
      await table
        .getByRole('row', { name: new RegExp(`PATCH.*/v1/products/${productId}.*Done 200.*browser-PATCH-products`) })
        .waitFor();
      await check('activity', 1280);

      await page.getByLabel('Result', { exact: true }).first().click();
      await page.getByRole('option', { name: 'Refused (4xx)' }).click();
      await table
        .getByRole('row', { name: /DELETE.*\/v1\/customers\/01900000-0000-7000-8000-000000000000.*Refused 404/ })
        .waitFor();
      await expect.poll(() => table.getByRole('row').count()).toBe(2);
      expect(new URL(page.url()).searchParams.get('result')).toBe('4xx');

      await page.getByLabel('Result', { exact: true }).first().click();
      await page.getByRole('option', { name: 'Any result' }).click();
      await page.getByLabel('Who', { exact: true }).first().click();
      // The key that made the edits, by its visible prefix: the demo world has more than one key.
      await page.getByRole('option', { name: `(${server.key.slice(0, 'sk_'.length + 8)}…)`, exact: false }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('actor')).toMatch(/^apiKey:/);
      await expect
        .poll(async () =>
          (await table.getByRole('row').allTextContents()).slice(1).every((row) => row.includes('API key')),
        )
        .toBe(true);

      await page.getByRole('textbox', { name: 'Record id' }).fill(customerId);
      await page.getByRole('textbox', { name: 'Record id' }).press('Enter');
      await expect.poll(() => new URL(page.url()).searchParams.get('record')).toBe(customerId);
      await table.getByRole('row', { name: new RegExp(`PATCH.*/v1/customers/${customerId}`) }).waitFor();
      await expect.poll(() => table.getByRole('row').count()).toBe(2);

      await page.setViewportSize({ width: 390, height: 844 });
      await check('activity', 390);
    },
    TEST_TIMEOUT,
  );

  it(
    "shows a product's and a customer's own history in their drawers",
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${server.origin}/dashboard/store/products?product=${productId}`, { waitUntil: 'networkidle' });
      const productHistory = page.getByRole('table', { name: 'History' });
      await productHistory.getByRole('row', { name: /API key.*PATCH.*Done 200/ }).waitFor();
      // An edit through the dashboard appears in it, made by the signed-in owner.
      const notes = page.getByRole('textbox', { name: 'Notes' });
      await notes.fill('Edited in the dashboard');
      await page.getByRole('button', { name: 'Save tags and notes' }).click();
      await productHistory.getByRole('row', { name: /owner@demo\.example.*PATCH.*Done 200/ }).waitFor();
      await check('product-history', 1280);

      await page.goto(`${server.origin}/dashboard/customers?customer=${customerId}`, { waitUntil: 'networkidle' });
      const customerHistory = page.getByRole('table', { name: 'History' });
      await customerHistory.getByRole('row', { name: /PATCH.*Done 200/ }).waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      await check('customer-history', 390);
    },
    TEST_TIMEOUT,
  );
});
