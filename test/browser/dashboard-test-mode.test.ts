/**
 * The dashboard's test-mode switch in Chromium, signed in as the demo owner against a real `patron serve` with the
 * demo world (docs/api.md#test-mode): switched on, a banner shows on every page and survives a reload (the mode is
 * the session's, on the server); a program made in test mode is test data (the live key does not see it, the demo's
 * test key does); switched back, the live pages show live data only and no banner. Screenshots at 1280 and 390 px go
 * to test/browser/screenshots/.
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
  watchPage,
  type LaunchedChromium,
  type PageWatch,
  type ServedOnHostname,
} from './support.js';

const TEST_TIMEOUT = 180_000;
const PROGRAM = 'Test-mode only program';
const BANNER = 'Test mode: you are viewing test data. Changes here do not affect live data.';

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('the dashboard in test mode', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let page: Page;
  let watch: PageWatch;
  let testKey: string;

  async function programNames(key: string): Promise<string[]> {
    const response = await fetch(`${server.origin}/v1/loyalty-programs?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { name: string }[] }).data.map((program) => program.name);
  }

  async function open(path: string, heading: string): Promise<void> {
    await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  const banner = () => page.getByTestId('test-mode-banner');
  const testModeSwitch = () => page.getByRole('switch', { name: 'Test mode' });

  async function check(name: string, width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, `${name}: document width`).toBeLessThanOrEqual(width);
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await screenshot(page, `dashboard-test-mode-${name}-${width}`);
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    testKey = /^\s+(sk_test_[0-9A-Za-z]{32,})$/m.exec(server.stderr())?.[1] ?? '';
    expect(testKey, server.stderr()).not.toBe('');
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watch = watchPage(page, server.origin);
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
    expect(link, server.stderr()).toBeDefined();
    await signIn(page, server.origin, link!);
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), chromium?.close()]);
  });

  it(
    'switches to test data with a banner on every page, makes a test record, and switches back to live data',
    async () => {
      const live = await programNames(server.key);
      await open('loyalty', 'Loyalty');
      await page.getByRole('row', { name: new RegExp(live[0]!) }).waitFor();
      expect(await banner().count()).toBe(0);
      expect(await testModeSwitch().isChecked()).toBe(false);

      await testModeSwitch().click({ force: true });
      await banner().waitFor();
      expect(await banner().getByText(BANNER).isVisible()).toBe(true);
      // The test data's own programs: the default one a new organization has, none of the demo's live programs.
      await page.getByRole('row', { name: /Loyalty program/ }).waitFor();
      for (const name of live.filter((each) => each !== 'Loyalty program')) {
        expect(await page.getByRole('row', { name }).count(), name).toBe(0);
      }
      await check('loyalty', 1280);

      // A record made in test mode is test data: the test key sees it, the live key does not.
      await page.getByRole('button', { name: 'New program' }).click();
      const modal = page.getByRole('dialog', { name: 'New loyalty program' });
      await modal.getByRole('textbox', { name: 'Name' }).fill(PROGRAM);
      await modal.getByRole('button', { name: 'Create program' }).click();
      await page.getByRole('row', { name: new RegExp(PROGRAM) }).waitFor();
      await expect.poll(() => programNames(testKey)).toContain(PROGRAM);
      expect(await programNames(server.key)).not.toContain(PROGRAM);

      // Other pages show the banner too, and a reload keeps the mode (it is the session's, on the server).
      await open('customers', 'Customers');
      await banner().waitFor();
      await page.getByText(/No customers/).waitFor();
      await check('customers', 1280);
      await open('settings', 'Settings');
      await banner().waitFor();
      await page.reload({ waitUntil: 'networkidle' });
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await banner().waitFor();
      expect(await testModeSwitch().isChecked()).toBe(true);
      await check('settings', 1280);
      // The keys made here are test keys, and the tab says so.
      await open('settings?tab=keys', 'Settings');
      await page.getByText(/These are the test keys/).waitFor();
      await page
        .getByRole('row', { name: /sk_test_/ })
        .first()
        .waitFor();
      await check('settings-keys', 1280);
      await page.setViewportSize({ width: 390, height: 844 });
      await open('loyalty', 'Loyalty');
      await page.getByRole('row', { name: new RegExp(PROGRAM) }).waitFor();
      await banner().waitFor();
      await check('loyalty', 390);
      await page.setViewportSize({ width: 1280, height: 900 });

      // Back to live data: no banner, the live programs, and not the test one, with no reload in between.
      await testModeSwitch().click({ force: true });
      await expect.poll(() => banner().count()).toBe(0);
      await page.getByRole('row', { name: new RegExp(live[0]!) }).waitFor();
      expect(await page.getByRole('row', { name: new RegExp(PROGRAM) }).count()).toBe(0);
      await open('customers', 'Customers');
      // A live customer of the demo world (its store history's newer shoppers fill the first page): found by search.
      await page.getByRole('textbox', { name: 'Search customers' }).fill('ada@example.com');
      await page.getByRole('row', { name: /ada@example\.com/ }).waitFor();
      expect(await banner().count()).toBe(0);
      await screenshot(page, 'dashboard-test-mode-live-customers-1280');
      expect(watch.errors).toEqual([]);
      expect(watch.foreign()).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
