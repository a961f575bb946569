/**
 * The Customers and Loyalty pages of the dashboard in Chromium, signed in as the demo owner against a real
 * `patron serve` with the demo world: each page performs one write through the UI, checked through the API with the
 * demo key; text from the API renders as text; axe-core finds no serious or critical violation; screenshots at
 * 1280 and 390 px go to test/browser/screenshots/ (docs/dashboard.md#tests).
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

const MARKUP = '<img src=x onerror="window.__xss=1">';
const WIDTHS = [1280, 390] as const;
/** About 15 s each on an idle machine; more when the cores are shared. */
const TEST_TIMEOUT = 120_000;

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('the Customers and Loyalty pages', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let page: Page;
  let watch: PageWatch;
  let probeCustomerId: string;

  /** A call of the API with the demo key (not through the dashboard). */
  async function v1<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const response = await fetch(`${server.origin}/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${server.key}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    expect(response.ok, `${init.method ?? 'GET'} ${path}: ${response.status} ${text}`).toBe(true);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const filter = (document: object) => encodeURIComponent(JSON.stringify(document));

  /** Axe finds nothing serious, nothing scrolls sideways, and the screenshot is written. */
  async function check(name: string, width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, `${name}: document width`).toBeLessThanOrEqual(width);
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    await screenshot(page, `dashboard-${name}-${width}`);
  }

  async function open(path: string, heading: string): Promise<void> {
    await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    // A customer whose text fields carry markup, a member with a feed entry whose reason carries it too.
    await v1('/customers/import', {
      method: 'POST',
      body: {
        data: [
          {
            email: 'markup.probe@example.com',
            firstName: MARKUP,
            lastName: `${MARKUP} Probe`,
            metadata: { note: MARKUP },
          },
        ],
      },
    });
    const customers = await v1<{ data: { id: string }[] }>(
      `/customers?filter=${filter({ email: 'markup.probe@example.com' })}`,
    );
    probeCustomerId = customers.data[0]!.id;
    await v1(`/customers/${probeCustomerId}`, { method: 'PATCH', body: { notes: MARKUP } });
    const membership = await v1<{ id: string }>('/loyalty-memberships', {
      method: 'POST',
      body: { customerId: probeCustomerId, loyaltyProgramId: '0196a1c0-5e00-7000-8000-000000000701' },
    });
    await v1(`/loyalty-memberships/${membership.id}/points-adjustments`, {
      method: 'POST',
      body: { data: { points: 10, reason: MARKUP } },
    });

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
    'Customers: search, open a customer, adjust a member’s points (checked through the API)',
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open('customers', 'Customers');
      await page.getByRole('textbox', { name: 'Search customers' }).fill('ada@');
      await page.getByRole('row', { name: /ada@example\.com/ }).waitFor();
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await check('customers', 1280);

      const [membership] = (
        await v1<{ data: { id: string; pointsBalance: number }[] }>(
          `/loyalty-memberships?filter=${filter({ 'customer.email': 'ada@example.com' })}`,
        )
      ).data;
      await page.getByRole('row', { name: /ada@example\.com/ }).click();
      const drawer = page.getByRole('dialog', { name: 'Ada Lovelace' });
      await drawer.getByRole('button', { name: 'Adjust points' }).click();
      const modal = page.getByRole('dialog', { name: 'Adjust points' });
      await modal.getByRole('textbox', { name: 'Points' }).fill('25');
      await modal.getByRole('textbox', { name: 'Reason' }).fill('Dashboard test bonus');
      await modal.getByRole('button', { name: 'Adjust', exact: true }).click();
      await page.getByText(/The balance is now/).waitFor();
      const after = await v1<{ pointsBalance: number }>(`/loyalty-memberships/${membership!.id}`);
      expect(after.pointsBalance).toBe(membership!.pointsBalance + 25);
      // The feed (newest first) shows the adjustment, and the drawer the new balance.
      await drawer.getByRole('cell', { name: 'Dashboard test bonus' }).waitFor();
      await expect
        .poll(() => drawer.getByTestId('points-balance').textContent())
        .toBe(after.pointsBalance.toLocaleString('en-US'));
      // The feed filtered by kind.
      await drawer.getByLabel('Kind', { exact: true }).click();
      await page.getByRole('option', { name: 'Reward issued' }).click();
      await expect.poll(() => drawer.getByRole('cell', { name: 'Dashboard test bonus' }).count()).toBe(0);
      await drawer.getByRole('cell', { name: 'Reward issued' }).first().waitFor();
      await check('customer-detail', 1280);

      await page.setViewportSize({ width: 390, height: 844 });
      await check('customer-detail', 390);
      await open('customers', 'Customers');
      await page.getByRole('row').nth(1).waitFor();
      await check('customers', 390);
    },
    TEST_TIMEOUT,
  );

  it(
    'Rewards: find a reward by its code, revoke it (checked through the API)',
    async () => {
      const { data } = await v1<{ data: { id: string; code: string }[] }>(
        `/loyalty-rewards?filter=${filter({ status: 'pending', 'customer.email': 'ada@example.com' })}`,
      );
      const reward = data[0]!;
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await open('customers?tab=rewards', 'Customers');
        await page.getByRole('row').nth(1).waitFor();
        await check('rewards', width);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('textbox', { name: 'Search rewards' }).fill(reward.code.toLowerCase().slice(0, 9));
      const row = page.getByRole('row', { name: new RegExp(reward.code) });
      await row.waitFor();
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await row.getByRole('button', { name: `Revoke ${reward.code}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke this reward?' });
      await dialog.getByRole('textbox', { name: 'Reason' }).fill('Issued by mistake');
      await dialog.getByRole('button', { name: 'Revoke reward' }).click();
      await row.getByText('revoked').waitFor();
      expect(await axeViolations(page), 'a revoked reward').toEqual([]);
      const after = await v1<{ status: string; revokedAt: string | null }>(`/loyalty-rewards/${reward.id}`);
      expect(after.status).toBe('revoked');
      expect(after.revokedAt).not.toBeNull();
    },
    TEST_TIMEOUT,
  );

  it(
    'text from the API with markup in it shows as text and runs nothing',
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open(`customers?customer=${probeCustomerId}`, 'Customers');
      const drawer = page.getByRole('dialog');
      await drawer.getByRole('cell', { name: MARKUP }).waitFor();
      // The name (drawer title), the notes, the metadata and the feed's reason: each the literal text.
      expect(await drawer.getByRole('heading', { level: 2 }).first().textContent()).toBe(`${MARKUP} ${MARKUP} Probe`);
      expect(await drawer.getByText(MARKUP, { exact: true }).count()).toBeGreaterThanOrEqual(2);
      await page.getByRole('tab', { name: 'Customers' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('textbox', { name: 'Search customers' }).fill('markup.probe');
      await page.getByRole('row', { name: /markup\.probe@example\.com/ }).waitFor();
      expect(await page.getByRole('row', { name: /markup\.probe/ }).textContent()).toContain(MARKUP);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      await screenshot(page, 'dashboard-customers-markup');
    },
    TEST_TIMEOUT,
  );

  it(
    'Loyalty: programs, tiers and rules listed; a tier renamed (checked through the API); a rule’s config refused next to the editor',
    async () => {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        for (const tab of ['programs', 'tiers', 'rules']) {
          await open(`loyalty?tab=${tab}`, 'Loyalty');
          await page.getByRole('row').nth(1).waitFor();
          await check(`loyalty-${tab}`, width);
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // The write: rename Silver.
      await open('loyalty?tab=tiers', 'Loyalty');
      await page.getByRole('row', { name: /Silver/ }).click();
      const tierForm = page.getByRole('dialog', { name: 'Edit tier Silver' });
      await tierForm.getByRole('textbox', { name: 'Name' }).fill('Silver Plus');
      await tierForm.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('row', { name: /Silver Plus/ }).waitFor();
      const tier = await v1<{ name: string }>('/loyalty-tiers/0196a1c0-5e00-7000-8000-000000000711');
      expect(tier.name).toBe('Silver Plus');

      // A config the API refuses: its message shows under the JSON editor, and nothing changes.
      await open('loyalty?tab=rules', 'Loyalty');
      await page.getByRole('row', { name: /1 point per dollar spent/ }).click();
      const ruleForm = page.getByRole('dialog', { name: 'Edit rule 1 point per dollar spent' });
      const config = ruleForm.getByRole('textbox', { name: 'Config' });
      await config.fill(JSON.stringify({ type: 'orderSpend', pointsPerUnit: 0, unitCents: 100 }));
      const answer = page.waitForResponse((response) => response.request().method() === 'PATCH');
      await ruleForm.getByRole('button', { name: 'Save' }).click();
      expect((await answer).status()).toBe(400);
      await ruleForm.getByText('pointsPerUnit: must be >= 1').waitFor();
      expect(await config.getAttribute('aria-invalid')).toBe('true');
      expect(await axeViolations(page), 'the refused rule form').toEqual([]);
      await screenshot(page, 'dashboard-loyalty-rule-refused-1280');
      const rule = await v1<{ config: { pointsPerUnit: number } }>(
        '/loyalty-rules/0196a1c0-5e00-7000-8000-000000000721',
      );
      expect(rule.config.pointsPerUnit).toBe(1);

      expect(watch.foreign(), 'requests to another origin').toEqual([]);
      expect(watch.cspErrors()).toEqual([]);
      expect(watch.errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'tags two selected customers at once, and revokes two selected rewards after a confirmation',
    async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      const emails = ['bulk.one@example.com', 'bulk.two@example.com'];
      await v1('/customers/import', { method: 'POST', body: { data: emails.map((email) => ({ email })) } });
      await open('customers', 'Customers');
      await page.getByRole('textbox', { name: 'Search customers' }).fill('bulk.');
      const table = page.getByRole('table', { name: 'Customers' });
      await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
      for (const email of emails) await table.getByRole('checkbox', { name: `Select ${email}` }).check();
      const bar = page.getByRole('region', { name: 'Selected rows' });
      await bar.getByRole('button', { name: 'Add tag', exact: true }).click();
      const ask = page.getByRole('dialog', { name: 'Add tag: 2 customers' });
      await ask.getByRole('textbox', { name: 'Tag' }).fill('bulk-vip');
      expect(await axeViolations(page), 'the tag dialog').toEqual([]);
      await ask.getByRole('button', { name: 'Add tag: 2 customers' }).click();
      await page.getByRole('alert').filter({ hasText: 'Tagged 2 customers' }).waitFor();
      const tagged = await v1<{ data: { email: string }[] }>(
        `/customers?filter=${filter({ 'tags.name': 'bulk-vip' })}`,
      );
      expect(tagged.data.map((customer) => customer.email).sort()).toEqual(emails);

      // Two rewards of a member, revoked from the rewards list.
      const customers = await v1<{ data: { id: string }[] }>(`/customers?filter=${filter({ email: emails[0] })}`);
      const membership = await v1<{ id: string }>('/loyalty-memberships', {
        method: 'POST',
        body: { customerId: customers.data[0]!.id, loyaltyProgramId: '0196a1c0-5e00-7000-8000-000000000701' },
      });
      const reward = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
      const codes: string[] = [];
      for (let n = 0; n < 2; n++) {
        const issued = await v1<{ code: string }>('/loyalty-rewards', {
          method: 'POST',
          body: { data: { loyaltyMembershipId: membership.id, reward, reason: 'bulk probe' } },
        });
        codes.push(issued.code);
      }
      await open('customers?tab=rewards', 'Customers');
      await page.getByRole('textbox', { name: 'Search rewards' }).fill(emails[0]!);
      const rewards = page.getByRole('table', { name: 'Rewards' });
      await expect.poll(() => rewards.locator('tbody tr').count()).toBe(2);
      await rewards.getByRole('checkbox', { name: 'Select every reward on this page' }).check();
      await bar.getByRole('button', { name: 'Revoke', exact: true }).click();
      await page
        .getByRole('dialog', { name: 'Revoke 2 rewards?' })
        .getByRole('button', { name: 'Revoke 2 rewards' })
        .click();
      await page.getByRole('alert').filter({ hasText: 'Revoked 2 rewards' }).waitFor();
      const revoked = await v1<{ data: { code: string; status: string }[] }>(
        `/loyalty-rewards?search=${encodeURIComponent(emails[0]!)}`,
      );
      expect(revoked.data.map((each) => each.status)).toEqual(['revoked', 'revoked']);
      await check('customers-rewards-revoked', 1280);
    },
    TEST_TIMEOUT,
  );
});

if (chromiumMissing) {
  describe('the Customers and Loyalty pages', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
