/**
 * Money, time and locale in the dashboard (docs/dashboard.md#money-time-and-locale), in Chromium against a real
 * `patron serve` with the demo world: a JPY and a EUR order side by side in the orders table, each in its own symbol
 * and digits; a reward typed in major units and stored in minor units; a gift card's validity typed in days; every
 * time in the organization's zone with the zone named; the user's locale switched to German, stored through the API,
 * and the numbers and dates that follow it. axe and screenshots at 1280 and 390 px.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
import {
  axeViolations,
  chromiumMissing,
  ensureDashboardBuilt,
  launchChromium,
  screenshot,
  serveOnHostname,
  settled,
  signIn,
  type LaunchedChromium,
  type ServedOnHostname,
} from './support.js';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const ZONE = 'Europe/Berlin';
/** 10:30 UTC on a summer day: 12:30 in Berlin, whatever zone the browser is in. */
const PLACED_AT = '2026-06-15T10:30:00.000Z';

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('money, time and locale in Chromium', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  let adaId: string;
  let membershipId: string;

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

  async function open(path: string, heading: string): Promise<void> {
    await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  /** Axe finds nothing serious, nothing scrolls sideways, and the screenshot is written. */
  async function check(name: string, width: number): Promise<void> {
    await settled(page);
    expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, `${name}: document width`).toBeLessThanOrEqual(width);
    await screenshot(page, `dashboard-money-${name}-${width}`);
  }

  /** The text of the orders table's row for order `number`. */
  const orderRow = (number: string) => page.getByRole('row', { name: new RegExp(number) });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    // The organization's zone, and two stores in currencies with no and with two minor digits.
    await v1('/organization', { method: 'PATCH', body: { timezone: ZONE } });
    const tokyo = await v1<{ id: string }>('/sites', {
      method: 'POST',
      body: { data: { name: 'Tokyo store', domain: 'tokyo.example.com', platform: 'custom', currencyCode: 'JPY' } },
    });
    const berlin = await v1<{ id: string }>('/sites', {
      method: 'POST',
      body: { data: { name: 'Berlin store', domain: 'berlin.example.com', platform: 'custom', currencyCode: 'EUR' } },
    });
    const customers = await v1<{ data: { id: string }[] }>(`/customers?search=${encodeURIComponent('ada@')}`);
    adaId = customers.data[0]!.id;
    const orders = await v1<{ data: { id: string }[]; skipped: unknown[] }>('/orders/import', {
      method: 'POST',
      body: {
        earnLoyalty: false,
        data: [
          {
            site: tokyo.id,
            customer: adaId,
            remoteId: 'money-jpy-1',
            number: 'MONEY-JPY-1',
            totalCents: 123456,
            subtotalCents: 123456,
            currencyCode: 'JPY',
            createdAt: PLACED_AT,
          },
          {
            site: berlin.id,
            customer: adaId,
            remoteId: 'money-eur-1',
            number: 'MONEY-EUR-1',
            totalCents: 123450,
            subtotalCents: 123450,
            currencyCode: 'EUR',
            createdAt: PLACED_AT,
          },
        ],
      },
    });
    expect(orders.skipped).toEqual([]);
    const memberships = await v1<{ data: { id: string }[] }>(
      `/loyalty-memberships?filter=${filter({ 'customer.email': 'ada@example.com' })}`,
    );
    membershipId = memberships.data[0]!.id;

    context = await chromium.browser.newContext({
      viewport: DESKTOP,
      locale: 'en-US',
      timezoneId: 'America/Los_Angeles',
    });
    page = await context.newPage();
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
    expect(link, server.stderr()).toBeDefined();
    await signIn(page, server.origin, link!);
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled([
      server?.stop(),
      (async () => {
        await context?.close().catch(() => {});
        await chromium?.close();
      })(),
    ]);
  });

  it('a JPY and a EUR order side by side, each in its own symbol and digits, times in the organization’s zone', async () => {
    for (const [width, viewport] of [
      [1280, DESKTOP],
      [390, PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await open('store/orders?search=MONEY-', 'Store data');
      await orderRow('MONEY-JPY-1').waitFor();
      await orderRow('MONEY-EUR-1').waitFor();
      expect(await orderRow('MONEY-JPY-1').textContent()).toContain('¥123,456');
      expect(await orderRow('MONEY-EUR-1').textContent()).toContain('€1,234.50');
      expect(await orderRow('MONEY-JPY-1').textContent()).not.toContain('1,234.56');
      await expect.poll(() => page.getByTestId('zone-caption').first().textContent()).toBe(`Times in ${ZONE}`);
      if (width === 1280) {
        // 10:30 UTC is 12:30 in Berlin: the browser's own zone (Los Angeles, 03:30) is not used.
        expect(await orderRow('MONEY-EUR-1').textContent()).toMatch(/Jun 15, 2026, 12:30\sPM/);
      }
      await check('orders', width);
    }

    // The order's drawer: its lines in its own currency, its times in the zone, named at its foot.
    await page.setViewportSize(DESKTOP);
    await orderRow('MONEY-JPY-1').click();
    const drawer = page.getByRole('dialog');
    await drawer.getByText('Total ¥123,456', { exact: true }).waitFor();
    await drawer.getByText('Subtotal ¥123,456', { exact: true }).waitFor();
    await drawer.getByText(/Created Jun 15, 2026, 12:30\sPM/).waitFor();
    await drawer.getByText(`Times in ${ZONE}`).waitFor();
    await check('order-drawer', 1280);
    await page.keyboard.press('Escape');
  });

  it('the overview draws revenue one chart per currency, axes and figure in each one’s symbol', async () => {
    await page.setViewportSize(DESKTOP);
    await open(`overview?from=2026-06-14&to=2026-06-16&tz=${encodeURIComponent(ZONE)}`, 'Overview');
    const jpy = page.getByTestId('revenue-chart-JPY');
    const eur = page.getByTestId('revenue-chart-EUR');
    await jpy.waitFor();
    await eur.waitFor();
    await expect.poll(() => jpy.textContent()).toContain('¥');
    expect(await eur.textContent()).toContain('€');
    expect(await jpy.textContent()).not.toMatch(/¥[\d,]+\.\d/);
    await page.getByText('¥123,456 · €1,234.50').waitFor();
    await check('overview', 1280);
  });

  it('a reward typed in major units is stored in minor units; a gift card’s validity is typed in days', async () => {
    await page.setViewportSize(DESKTOP);
    await open(`customers?customer=${adaId}`, 'Customers');
    const drawer = page.getByRole('dialog', { name: 'Ada Lovelace' });
    await drawer.getByRole('button', { name: 'Issue a reward' }).click();
    const modal = page.getByRole('dialog', { name: 'Issue a reward' });
    await modal.getByRole('combobox', { name: 'Reward', exact: true }).click();
    await page.getByRole('option', { name: 'Amount off', exact: true }).click();
    const amount = modal.getByRole('textbox', { name: 'Amount' });
    // More decimals than dollars have is refused at the field, before anything is sent.
    await amount.fill('12.345');
    await modal.getByText('USD has 2 decimals: type at most 2 after the separator.').waitFor();
    // 0.29 as a float times 100 is 28.999…: the digits are converted as text.
    await amount.fill('19.29');
    await modal.getByText('= $19.29').waitFor();
    await modal.getByRole('textbox', { name: 'Reason' }).fill('Money test: amount off');
    await check('issue-reward', 1280);
    const issued = page.waitForResponse(
      (response) => response.url().endsWith('/v1/loyalty-rewards') && response.request().method() === 'POST',
    );
    await modal.getByRole('button', { name: 'Issue reward' }).click();
    const coupon = (await (await issued).json()) as { id: string };
    const storedCoupon = await v1<{ reward: { type: string; amountCents: number } }>(`/loyalty-rewards/${coupon.id}`);
    expect(storedCoupon.reward).toMatchObject({ type: 'amountCoupon', amountCents: 1929 });

    // A gift card of 25 dollars, valid 30 days and 12 hours.
    await drawer.getByRole('button', { name: 'Issue a reward' }).click();
    await modal.getByRole('combobox', { name: 'Reward', exact: true }).click();
    await page.getByRole('option', { name: 'Gift card', exact: true }).click();
    await modal.getByRole('textbox', { name: 'Amount' }).fill('25');
    const validity = modal.getByRole('group', { name: 'Gift card validity' });
    await validity.getByRole('textbox', { name: 'Days' }).fill('30');
    await validity.getByRole('textbox', { name: 'Hours' }).fill('12');
    await modal.getByText('= 30 days, 12 hours').waitFor();
    await page.setViewportSize(PHONE);
    await check('gift-card', 390);
    const issuedCard = page.waitForResponse(
      (response) => response.url().endsWith('/v1/loyalty-rewards') && response.request().method() === 'POST',
    );
    await modal.getByRole('button', { name: 'Issue reward' }).click();
    const card = (await (await issuedCard).json()) as { id: string };
    const storedCard = await v1<{ reward: { type: string; amountCents: number; expirySeconds: number } }>(
      `/loyalty-rewards/${card.id}`,
    );
    expect(storedCard.reward).toMatchObject({
      type: 'giftCard',
      amountCents: 2500,
      expirySeconds: (30 * 24 + 12) * 3600,
    });
    expect(membershipId).toBeTruthy();
  });

  it('the user switches to German: stored with the user, and numbers and dates follow', async () => {
    await page.setViewportSize(DESKTOP);
    await open('store/orders?search=MONEY-', 'Store data');
    await orderRow('MONEY-EUR-1').waitFor();
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/v1/session') && response.request().method() === 'PATCH',
    );
    await page.getByLabel('Language and formats').filter({ visible: true }).click();
    await page.getByRole('option', { name: 'Deutsch' }).click();
    expect((await saved).status()).toBe(200);
    // Stored with the user: the session read again names it.
    const session = (await page.evaluate(async () => (await fetch('/v1/session')).json())) as {
      user: { locale: string };
    };
    expect(session.user.locale).toBe('de');

    await expect.poll(() => orderRow('MONEY-EUR-1').textContent()).toContain('1.234,50\u00a0€');
    expect(await orderRow('MONEY-JPY-1').textContent()).toContain('123.456\u00a0¥');
    expect(await orderRow('MONEY-EUR-1').textContent()).toContain('15.06.2026, 12:30');
    await check('orders-de', 1280);

    // A reload keeps it (it is the user's, not the tab's); on a phone it is chosen under the sections.
    await page.setViewportSize(PHONE);
    await open('store/orders?search=MONEY-', 'Store data');
    await expect.poll(() => orderRow('MONEY-EUR-1').textContent()).toContain('1.234,50\u00a0€');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    expect(await page.getByTestId('locale-select-phone').inputValue()).toBe('Deutsch');
    await check('navigation-de', 390);
  });
});
