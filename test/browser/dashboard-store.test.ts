/**
 * The dashboard's Store data section in Chromium against a real `patron serve` with the demo world: products (search,
 * a product's variants and tags, editing its tags), orders (items and customer), the filter builder (its document gives
 * the list GET /v1/orders gives for the same filter; a refused filter shows the API's message at its condition) and
 * quick filters (saved, listed, applied with `quickFilter`, deleted). Every write is checked through the API with the
 * demo key; every view passes axe (no serious or critical violation) at 1280 and 390 px, with screenshots.
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
  signIn,
  watchPage,
  type LaunchedChromium,
  type PageWatch,
  type ServedOnHostname,
} from './support.js';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

interface Named {
  id: string;
  number?: string;
  title?: string;
  tags?: string[];
}

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('/dashboard/store in Chromium', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;

  /** GET a /v1 path with the demo key. */
  async function api<T>(path: string, query: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const url = new URL(`/v1${path}`, server.origin);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}` } });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function expectFits(width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, 'document width').toBeLessThanOrEqual(width);
  }

  async function expectAxeClean(what: string): Promise<void> {
    expect(await axeViolations(page), what).toEqual([]);
  }

  /** The texts of the cells marked data-testid=… in the list's rows, once the list is not busy. */
  async function columnTexts(testId: string): Promise<string[]> {
    await page.locator('table[aria-busy="false"]').first().waitFor();
    return page.getByTestId(testId).allTextContents();
  }

  /** Picks `option` in the Mantine Select labelled `label`. */
  async function choose(label: string, option: string): Promise<void> {
    await page.getByRole('combobox', { name: label, exact: true }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  const listResponse = (path: string, predicate: (url: URL) => boolean = () => true) =>
    page.waitForResponse((response) => {
      const url = new URL(response.url());
      return url.pathname === `/v1${path}` && response.request().method() === 'GET' && predicate(url);
    });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    context = await chromium.browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    watch = watchPage(page, server.origin);
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

  it('products: the list is GET /v1/products, search narrows it, a product shows its variants and tags, and a tag added in the drawer is stored', async () => {
    await page.setViewportSize(DESKTOP);
    const first = listResponse('/products');
    await page.goto(`${server.origin}/dashboard/store`, { waitUntil: 'networkidle' });
    await first;
    expect(new URL(page.url()).pathname).toBe('/dashboard/store/products');
    await page.getByRole('heading', { name: 'Store data', level: 1 }).waitFor();
    const all = await api<{ data: Named[] }>('/products', { limit: '25' });
    expect(all.body.data.length).toBeGreaterThan(0);
    const rows = page.getByRole('table').first().locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(all.body.data.length);
    await expectFits(DESKTOP.width);
    await expectAxeClean('products at 1280 px');
    await screenshot(page, 'dashboard-store-products-1280');

    // Search: the first word of a product's title, as the API searches it.
    const term = all.body.data[0]!.title!.split(' ')[0]!.toLowerCase();
    const searched = await api<{ data: Named[] }>('/products', { limit: '25', search: term });
    const answer = listResponse('/products', (url) => url.searchParams.get('search') === term);
    await page.getByRole('searchbox', { name: 'Search products' }).fill(term);
    await answer;
    await expect.poll(() => rows.count()).toBe(searched.body.data.length);
    for (const product of searched.body.data) await rows.getByText(product.title!, { exact: true }).first().waitFor();

    // The product's detail: variants and tags, then a tag added and saved.
    const product = searched.body.data[0]!;
    const stored = await api<Named & { variants: { slug: string }[] }>(`/products/${product.id}`, {
      include: 'tags,variants',
    });
    await rows.getByText(product.title!, { exact: true }).first().click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('heading', { name: /^Variants \(\d+\)$/ }).waitFor();
    expect(await drawer.getByRole('heading', { name: /^Variants/ }).textContent()).toBe(
      `Variants (${stored.body.variants.length})`,
    );
    for (const variant of stored.body.variants) await drawer.getByText(variant.slug, { exact: true }).first().waitFor();
    await expectAxeClean('product detail at 1280 px');
    await screenshot(page, 'dashboard-store-product-1280');

    const tag = `checked-${Date.now()}`;
    await drawer.getByLabel('Tags', { exact: true }).fill(tag);
    await drawer.getByLabel('Tags', { exact: true }).press('Enter');
    const saved = page.waitForResponse(
      (response) => response.url().endsWith(`/v1/products/${product.id}`) && response.request().method() === 'PATCH',
    );
    await drawer.getByRole('button', { name: 'Save tags and notes' }).click();
    expect((await saved).status()).toBe(200);
    const after = await api<Named>(`/products/${product.id}`, { include: 'tags' });
    expect(after.body.tags).toEqual(expect.arrayContaining([...(stored.body.tags ?? []), tag]));
    expect(after.body.tags).toHaveLength((stored.body.tags ?? []).length + 1);
    await page.getByText('The product was saved.').waitFor();

    await page.setViewportSize(PHONE);
    await drawer.getByRole('heading', { name: /^Variants/ }).waitFor();
    await expectAxeClean('product detail at 390 px');
    await screenshot(page, 'dashboard-store-product-390');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await expectFits(PHONE.width);
    await expectAxeClean('products at 390 px');
    await screenshot(page, 'dashboard-store-products-390');
  });

  it('orders: a filter built in the UI lists what GET /v1/orders answers for that document, and a refused one shows the API message at its condition', async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.origin}/dashboard/store/orders`, { waitUntil: 'networkidle' });
    await page.getByRole('tab', { name: 'Orders', selected: true }).waitFor();

    // totalCents ≥ 7000 AND the customer's email contains "example.com": the demo world's well-known orders (of 65.00
    // and 90.00), not its history's, whose shoppers are at example.org (docs/dashboard.md#the-demo-world). The total is
    // typed in dollars, the organization's currency, and sent in cents.
    const filter = { $and: [{ totalCents: { $gte: 7000 } }, { 'customer.email': { $contains: 'example.com' } }] };
    await page.getByRole('button', { name: 'Add condition' }).click();
    await choose('Operator of condition 1', 'at least');
    await page.getByRole('textbox', { name: 'Value of condition 1' }).fill('70');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await choose('Field of condition 2', 'Customer email');
    await choose('Operator of condition 2', 'contains');
    await page.getByRole('textbox', { name: 'Value of condition 2' }).fill('example.com');
    expect(JSON.parse((await page.getByTestId('filter-document').textContent())!)).toEqual(filter);
    const answered = listResponse('/orders', (url) => url.searchParams.has('filter'));
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const sent = new URL((await answered).url());
    expect(JSON.parse(sent.searchParams.get('filter')!)).toEqual(filter);

    const expected = await api<{ data: Named[] }>('/orders', { filter: JSON.stringify(filter), limit: '25' });
    const all = await api<{ data: Named[] }>('/orders', { limit: '25' });
    expect(expected.body.data.length).toBeGreaterThan(0);
    expect(expected.body.data.length, 'the filter should leave some orders out').toBeLessThan(all.body.data.length);
    await expect.poll(() => columnTexts('order-number')).toEqual(expected.body.data.map((order) => order.number));
    await expectFits(DESKTOP.width);
    await expectAxeClean('filtered orders at 1280 px');
    await screenshot(page, 'dashboard-store-orders-filtered-1280');

    // An order's detail: its items and customer.
    const order = expected.body.data[0]!;
    const detail = await api<{ items: { product: { title: string } | null }[]; customer: { email: string } }>(
      `/orders/${order.id}`,
      { include: 'items,customer' },
    );
    await page.getByTestId('order-number').first().click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('heading', { name: `Order ${order.number}` }).waitFor();
    await drawer.getByRole('heading', { name: `Items (${detail.body.items.length})` }).waitFor();
    await drawer.getByText(detail.body.customer.email).first().waitFor();
    for (const item of detail.body.items)
      if (item.product) await drawer.getByText(item.product.title, { exact: true }).first().waitFor();
    await expectAxeClean('order detail at 1280 px');
    await screenshot(page, 'dashboard-store-order-1280');
    await page.setViewportSize(PHONE);
    await expectAxeClean('order detail at 390 px');
    await screenshot(page, 'dashboard-store-order-390');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await expectFits(PHONE.width);
    await expectAxeClean('filtered orders at 390 px');
    await screenshot(page, 'dashboard-store-orders-filtered-390');
    await page.setViewportSize(DESKTOP);

    // A total that is not an integer: the API refuses it (400) and names the condition.
    await page.getByRole('textbox', { name: 'Value of condition 1' }).fill('lots');
    const refused = listResponse('/orders', (url) => url.searchParams.get('filter')?.includes('lots') ?? false);
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const refusal = await refused;
    expect(refusal.status()).toBe(400);
    const envelope = (await refusal.json()) as {
      error: { message: string; details: { path: string; message: string }[] };
    };
    const detailOfRow = envelope.error.details.find((entry) => entry.path.startsWith('query.filter.$and[0]'));
    expect(detailOfRow, JSON.stringify(envelope)).toBeDefined();
    const value = page.getByRole('textbox', { name: 'Value of condition 1' });
    await expect.poll(() => value.getAttribute('aria-invalid')).toBe('true');
    await page.getByText(detailOfRow!.message).first().waitFor();
    await page.getByText(`The API refused this filter: ${envelope.error.message}`).waitFor();
    await expectAxeClean('refused filter');
    await screenshot(page, 'dashboard-store-orders-refused-1280');
  });

  it('quick filters: the current filter saved in the UI is in GET /v1/quick-filters, applying it sends quickFilter, and deleting it removes it', async () => {
    await page.setViewportSize(DESKTOP);
    const filter = { totalCents: { $gte: 7000 } };
    const loaded = listResponse('/orders');
    await page.goto(`${server.origin}/dashboard/store/orders?filter=${encodeURIComponent(JSON.stringify(filter))}`, {
      waitUntil: 'networkidle',
    });
    await loaded;
    const expected = await api<{ data: Named[] }>('/orders', { filter: JSON.stringify(filter), limit: '25' });
    await expect.poll(() => columnTexts('order-number')).toEqual(expected.body.data.map((order) => order.number));

    const name = `At least 70 (${Date.now()})`;
    await page.getByRole('button', { name: 'Save as quick filter' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as quick filter' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    await expectAxeClean('save quick filter dialog');
    const created = page.waitForResponse(
      (response) => response.url().endsWith('/v1/quick-filters') && response.request().method() === 'POST',
    );
    const applied = listResponse('/orders', (url) => url.searchParams.has('quickFilter'));
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect((await created).status()).toBe(201);

    const listed = await api<{ data: { id: string; name: string; resource: string; filter: unknown }[] }>(
      '/quick-filters',
      { filter: JSON.stringify({ resource: 'orders' }) },
    );
    const saved = listed.body.data.find((entry) => entry.name === name);
    expect(saved, JSON.stringify(listed.body)).toBeDefined();
    expect(saved!.filter).toEqual(filter);

    // Saving applies it: the list is asked with quickFilter=<id> and no filter of its own, and shows the same orders.
    const request = new URL((await applied).url());
    expect(request.searchParams.get('quickFilter')).toBe(saved!.id);
    expect(request.searchParams.has('filter')).toBe(false);
    await expect.poll(() => columnTexts('order-number')).toEqual(expected.body.data.map((order) => order.number));
    const button = page.getByRole('button', { name, exact: true });
    expect(await button.getAttribute('aria-pressed')).toBe('true');
    await expectAxeClean('quick filter applied at 1280 px');
    await screenshot(page, 'dashboard-store-quick-filter-1280');
    await page.setViewportSize(PHONE);
    await expectFits(PHONE.width);
    await expectAxeClean('quick filter applied at 390 px');
    await screenshot(page, 'dashboard-store-quick-filter-390');
    await page.setViewportSize(DESKTOP);

    // Deleted through the UI: gone from the API, and no longer applied.
    await page.getByRole('button', { name: `Delete quick filter ${name}` }).click();
    const deleted = page.waitForResponse(
      (response) =>
        response.url().endsWith(`/v1/quick-filters/${saved!.id}`) && response.request().method() === 'DELETE',
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Delete quick filter' }).click();
    expect((await deleted).status()).toBe(200);
    expect((await api(`/quick-filters/${saved!.id}`)).status).toBe(404);
    await button.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.has('quickFilter')).toBe(false);

    expect(watch.foreign(), 'requests to another origin').toEqual([]);
    expect(watch.cspErrors(), 'Content Security Policy errors').toEqual([]);
    expect(
      watch.errors.filter((error) => !/status of 400/.test(error)),
      'console errors',
    ).toEqual([]);
  });
});

if (chromiumMissing) {
  describe('/dashboard/store in Chromium', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
