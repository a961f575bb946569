/**
 * "Find anything" and the themes, in Chromium against a real `patron serve` with the demo world.
 *
 * The palette opens by keyboard (Ctrl+K and ⌘K) and from the header's Search button, finds a customer by email, an
 * order by number, a product by title and a review by words of its text through the list endpoints' `search`, and
 * jumps to a page by name; opening a result lands on its page with its drawer open. At 1280 and 390 px. A superseded
 * term's request is cancelled, an empty answer says so, and a failed one shows its error.
 *
 * Themes: with the system dark (Playwright's emulated prefers-color-scheme), the dashboard is dark; the header's switch
 * picks light or dark and the browser remembers it. Every main page passes axe (no serious or critical violation) in
 * both themes, with a screenshot of each.
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
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

interface Customer {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}
interface Order {
  id: string;
  number: string;
}
interface Product {
  id: string;
  title: string;
}
interface Review {
  id: string;
  title: string;
  body: string;
}

/** The main pages, as the navigation lists them, with what shows once each has loaded. */
const MAIN_PAGES = [
  { path: 'overview', heading: 'Overview' },
  { path: 'customers', heading: 'Customers' },
  { path: 'loyalty', heading: 'Loyalty' },
  { path: 'reviews', heading: 'Reviews' },
  { path: 'mail', heading: 'Mail' },
  { path: 'store/products', heading: 'Store data' },
  { path: 'store/orders', heading: 'Store data' },
  { path: 'webhooks', heading: 'Webhooks' },
  { path: 'imports-exports', heading: 'Imports & exports' },
  { path: 'activity', heading: 'Activity log' },
  { path: 'settings', heading: 'Settings' },
] as const;

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('Find anything and themes in Chromium', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;

  /** GET a /v1 path with the demo key. */
  async function api<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const url = new URL(`/v1${path}`, server.origin);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}` } });
    expect(response.status, `GET ${url.pathname}${url.search}`).toBe(200);
    return (await response.json()) as T;
  }

  const palette = () => page.getByRole('dialog', { name: 'Find anything' });
  const paletteInput = () => palette().getByRole('combobox', { name: 'Find anything' });
  const option = (name: string | RegExp, { exact = false } = {}) => palette().getByRole('option', { name, exact });

  async function expectAxeClean(what: string): Promise<void> {
    expect(await axeViolations(page), what).toEqual([]);
  }

  async function expectFits(width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, 'document width').toBeLessThanOrEqual(width);
  }

  /** Opens the palette with the keyboard (Ctrl+K, or ⌘K) and waits for its search field to have focus. */
  async function openByKeyboard(key: 'Control+k' | 'Meta+k' = 'Control+k'): Promise<void> {
    await page.keyboard.press(key);
    await paletteInput().waitFor();
    await expect
      .poll(() => page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label') ?? null`))
      .toBe('Find anything');
  }

  /** Waits for a GET of a /v1 list with `search` = term. */
  const searched = (path: string, term: string) =>
    page.waitForResponse((response) => {
      const url = new URL(response.url());
      return url.pathname === `/v1${path}` && url.searchParams.get('search') === term;
    });

  /** Moves the selection with ArrowDown until `target` is the active option, then presses Enter. */
  async function selectWithKeys(target: ReturnType<typeof option>): Promise<void> {
    const targetId = await target.getAttribute('id');
    for (let step = 0; step < 40; step++) {
      if ((await paletteInput().getAttribute('aria-activedescendant')) === targetId) break;
      await page.keyboard.press('ArrowDown');
    }
    expect(await paletteInput().getAttribute('aria-activedescendant')).toBe(targetId);
    expect(await target.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await palette().waitFor({ state: 'hidden' });
  }

  /**
   * Closes the record's drawer with Escape, which works only when the focus is in the drawer (the palette did not
   * take it back under the drawer), and waits until the record is out of the address.
   */
  async function closeDrawer(): Promise<void> {
    await palette().waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate<boolean>(`!!document.activeElement?.closest('[role="dialog"]')`)).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect
      .poll(() => [...new URL(page.url()).searchParams.keys()].some((key) => /^(customer|order|product|id)$/.test(key)))
      .toBe(false);
  }

  /** Waits until the page's address is `pathname` with `params` among its query parameters. */
  async function expectAt(pathname: string, params: Record<string, string> = {}): Promise<void> {
    await expect
      .poll(() => {
        const url = new URL(page.url());
        return url.pathname === pathname && Object.entries(params).every(([k, v]) => url.searchParams.get(k) === v);
      })
      .toBe(true);
  }

  let customer: Customer;
  let order: Order;
  let product: Product;
  let review: Review;
  /** A few words from the middle of the review's body: what a merchant remembers of it. */
  let reviewWords: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
    context = await chromium.browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    watch = watchPage(page, server.origin);
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
    expect(link, server.stderr()).toBeDefined();
    await signIn(page, server.origin, link!);

    // Records of the demo world to look for, picked so that the term finds them among the first five of their kind.
    const customers = await api<{ data: Customer[] }>('/customers', { limit: '30' });
    customer = customers.data.find((candidate) => candidate.firstName && candidate.lastName) ?? customers.data[0]!;
    order = (await api<{ data: Order[] }>('/orders', { limit: '1', sort: 'createdAt' })).data[0]!;
    product = (await api<{ data: Product[] }>('/products', { limit: '1' })).data[0]!;
    const reviews = await api<{ data: Review[] }>('/reviews', { limit: '50' });
    review = reviews.data.find((candidate) => candidate.body.split(/\s+/).length >= 6) ?? reviews.data[0]!;
    reviewWords = review.body.split(/\s+/).slice(1, 4).join(' ');
    const found = await api<{ data: Review[] }>('/reviews', { search: reviewWords, limit: '5' });
    expect(
      found.data.map((candidate) => candidate.id),
      `"${reviewWords}" finds the review`,
    ).toContain(review.id);
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

  it('at 1280 px, Ctrl+K opens the palette; it lists the pages, finds a customer by email and opens their drawer', async () => {
    await page.goto(`${server.origin}/dashboard/overview`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await openByKeyboard('Control+k');
    await palette().getByTestId('find-anything-group-pages').waitFor();
    await option('Customers', { exact: true }).waitFor();
    await expectAxeClean('the palette, empty, at 1280 px');
    await screenshot(page, 'dashboard-palette-empty-1280');

    const answer = searched('/customers', customer.email);
    await paletteInput().fill(customer.email);
    await answer;
    const hit = option(new RegExp(customer.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await hit.first().waitFor();
    await palette().getByTestId('find-anything-group-customers').waitFor();
    await expectAxeClean('the palette with a customer at 1280 px');
    await screenshot(page, 'dashboard-palette-customer-1280');
    await selectWithKeys(hit.first());
    await expectAt('/dashboard/customers', { customer: customer.id });
    await page.getByRole('dialog').getByText(customer.email).first().waitFor();
    await closeDrawer();
  });

  it('⌘K opens it too; an order is found by its number (with or without "#") and opens in its drawer', async () => {
    await openByKeyboard('Meta+k');
    const answer = searched('/orders', order.number);
    await paletteInput().fill(`#${order.number}`);
    await answer;
    const hit = option(new RegExp(`^Order ${order.number}\\b`));
    await hit.first().waitFor();
    await selectWithKeys(hit.first());
    await expectAt('/dashboard/store/orders', { order: order.id });
    await page.getByRole('dialog').getByText(order.number).first().waitFor();
    await closeDrawer();
  });

  it('a product is found by its title and opened with a click', async () => {
    await page.getByTestId('find-anything-button').click();
    await paletteInput().waitFor();
    const answer = searched('/products', product.title);
    await paletteInput().fill(product.title);
    await answer;
    const hit = palette().locator('[data-kind="products"]', { hasText: product.title });
    await hit.first().waitFor();
    await screenshot(page, 'dashboard-palette-product-1280');
    await hit.first().click();
    await expectAt('/dashboard/store/products', { product: product.id });
    await page
      .getByRole('dialog')
      .getByRole('heading', { name: /^Variants/ })
      .waitFor();
    await closeDrawer();
  });

  it('a review is found by words of its text and opens in its drawer', async () => {
    await openByKeyboard();
    const answer = searched('/reviews', reviewWords);
    await paletteInput().fill(reviewWords);
    await answer;
    const hit = palette().locator(`[data-kind="reviews"]`).first();
    await hit.waitFor();
    // The review itself among those found (its title, or the start of its text when it has none).
    const label = (review.title || review.body).slice(0, 40);
    const target = palette().locator('[data-kind="reviews"]', { hasText: label }).first();
    await target.waitFor();
    await expectAxeClean('the palette with reviews at 1280 px');
    await screenshot(page, 'dashboard-palette-review-1280');
    await selectWithKeys(target);
    await expectAt('/dashboard/reviews', { id: review.id });
    await page.getByRole('dialog', { name: 'Review' }).waitFor();
    await closeDrawer();
  });

  it('a page is reached by its name, a tab by its own (Mail log), while a field has the focus', async () => {
    await page.goto(`${server.origin}/dashboard/store/products`, { waitUntil: 'networkidle' });
    // Ctrl+K works from inside a field too.
    await page.getByRole('searchbox', { name: 'Search products' }).focus();
    await openByKeyboard();
    await paletteInput().fill('mail log');
    const hit = option('Mail › Mail log');
    await hit.waitFor();
    await selectWithKeys(hit);
    await expectAt('/dashboard/mail', { tab: 'log' });
    await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();

    await openByKeyboard();
    await paletteInput().fill('webhooks');
    await option('Webhooks').first().waitFor();
    await page.keyboard.press('Enter');
    await expectAt('/dashboard/webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  });

  it("a superseded term's requests are cancelled, nothing found says so, and a failed search shows its error", async () => {
    await openByKeyboard();
    // The first term's answer is held back until the second term has been sent: the palette aborts it.
    const first = 'zq-first-term';
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const firstTerm = (url: URL) => url.pathname === '/v1/customers' && url.searchParams.get('search') === first;
    await page.route(firstTerm, async (route) => {
      await held;
      await route.continue().catch(() => {});
    });
    const aborted = new Promise<Request>((resolve) =>
      page.on('requestfailed', (request) => {
        if (new URL(request.url()).searchParams.get('search') === first) resolve(request);
      }),
    );
    const firstSent = page.waitForRequest((request) => new URL(request.url()).searchParams.get('search') === first);
    await paletteInput().fill(first);
    await firstSent;
    const second = 'zq-nothing-like-this';
    const secondAnswered = searched('/customers', second);
    await paletteInput().fill(second);
    await secondAnswered;
    const failure = await aborted;
    expect(failure.failure()?.errorText).toMatch(/ABORTED/);
    release();
    await page.unroute(firstTerm);
    await palette().getByTestId('find-anything-empty').waitFor();
    expect(await palette().getByTestId('find-anything-empty').textContent()).toBe(`Nothing matches “${second}”.`);
    await expectAxeClean('nothing found');
    await screenshot(page, 'dashboard-palette-empty-result-1280');

    // The network drops the reviews' request: the other kinds still answer, and the reviews' group says it failed.
    const reviewsList = (url: URL) => url.pathname === '/v1/reviews';
    await page.route(reviewsList, (route) => route.abort('connectionfailed'));
    await paletteInput().fill(customer.email);
    await palette()
      .getByRole('alert')
      .filter({ hasText: 'Could not search reviews: the server could not be reached' })
      .waitFor();
    await option(new RegExp(customer.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .first()
      .waitFor();
    await expectAxeClean('a failed search');
    await screenshot(page, 'dashboard-palette-error-1280');
    await page.unroute(reviewsList);
    // Once the network is back, the same term finds the reviews again.
    await paletteInput().fill(reviewWords);
    await palette().locator('[data-kind="reviews"]').first().waitFor();
    expect(await palette().getByRole('alert').count()).toBe(0);
    await page.keyboard.press('Escape');
    await palette().waitFor({ state: 'hidden' });
  });

  it('at 390 px, the header’s search button opens it; a customer and a page are opened by touch', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${server.origin}/dashboard/overview`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expectFits(PHONE.width);
    // The header's items stand side by side, the organization's name visible before the search button.
    await page.getByTestId('organization-name').waitFor({ state: 'visible' });
    const name = await page.getByTestId('organization-name').boundingBox();
    const search = await page.getByTestId('find-anything-icon').boundingBox();
    expect(name!.width, "the organization's name is shown").toBeGreaterThan(20);
    expect(name!.x + name!.width, 'the name ends before the search button').toBeLessThanOrEqual(search!.x);
    await expectAxeClean('the header at 390 px');
    await screenshot(page, 'dashboard-palette-header-390');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await paletteInput().waitFor();
    const answer = searched('/customers', customer.email);
    await paletteInput().fill(customer.email);
    await answer;
    const hit = option(new RegExp(customer.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).first();
    await hit.waitFor();
    await expectFits(PHONE.width);
    await expectAxeClean('the palette at 390 px');
    await screenshot(page, 'dashboard-palette-customer-390');
    await hit.click();
    await expectAt('/dashboard/customers', { customer: customer.id });
    await page.getByRole('dialog').getByText(customer.email).first().waitFor();
    await closeDrawer();

    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await paletteInput().fill(order.number);
    await palette().locator('[data-kind="orders"]').first().waitFor();
    await screenshot(page, 'dashboard-palette-order-390');
    await paletteInput().fill('orders');
    await option('Store data › Orders').click();
    await expectAt('/dashboard/store/orders');
    await page.getByRole('heading', { name: 'Store data', level: 1 }).waitFor();

    // On a phone the theme switch is at the foot of the navigation.
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByTestId('color-scheme-button-navigation').click();
    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect
      .poll(() => page.evaluate<string | undefined>(`document.documentElement.dataset.mantineColorScheme`))
      .toBe('dark');
    await expectAxeClean('the theme switch in the navigation at 390 px');
    await screenshot(page, 'dashboard-palette-theme-navigation-390');
    await page.getByRole('radio', { name: 'As the system' }).check();
    await page.keyboard.press('Escape');
    await page.setViewportSize(DESKTOP);
  });

  it('the theme follows the system, and the header’s switch picks light or dark, remembered by this browser', async () => {
    await page.setViewportSize(DESKTOP);
    const scheme = () => page.evaluate<string | null>(`document.documentElement.dataset.mantineColorScheme ?? null`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.origin}/dashboard/overview`, { waitUntil: 'networkidle' });
    await expect.poll(scheme).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(scheme).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(scheme).toBe('dark');

    await page.getByTestId('color-scheme-button').click();
    await page.getByRole('radio', { name: 'Light' }).check();
    await expect.poll(scheme).toBe('light');
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await scheme(), 'remembered over a reload, the system being dark').toBe('light');
    expect(await page.getByTestId('color-scheme-button').getAttribute('aria-label')).toBe('Theme: light');

    await page.getByTestId('color-scheme-button').click();
    await page.getByRole('radio', { name: 'Dark' }).waitFor();
    await expectAxeClean('the theme menu');
    await page.getByRole('radio', { name: 'As the system' }).check();
    await expect.poll(scheme).toBe('dark');
    await page.reload({ waitUntil: 'networkidle' });
    await expect.poll(scheme).toBe('dark');
  });

  for (const colorScheme of ['dark', 'light'] as const) {
    it(`every main page passes axe in the ${colorScheme} theme, at 1280 px and the overview at 390 px`, async () => {
      await page.setViewportSize(DESKTOP);
      await page.emulateMedia({ colorScheme });
      const visit = async (path: string, heading: string, width: number) => {
        await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        if (path === 'overview') await page.locator('.recharts-surface').first().waitFor();
        await page
          .locator('table[aria-busy="true"]')
          .first()
          .waitFor({ state: 'detached' })
          .catch(() => {});
        // Nothing is still loading (a loader is a moment's state, not the page's).
        await expect.poll(() => page.locator('.mantine-Loader-root').count(), { timeout: 15_000 }).toBe(0);
        expect(await page.evaluate<string | undefined>(`document.documentElement.dataset.mantineColorScheme`)).toBe(
          colorScheme,
        );
        await expectAxeClean(`${path} in the ${colorScheme} theme at ${width} px`);
        await screenshot(page, `dashboard-theme-${colorScheme}-${path.replace('/', '-')}-${width}`);
      };
      for (const { path, heading } of MAIN_PAGES) await visit(path, heading, DESKTOP.width);
      // A record's drawer and the palette, in this theme.
      await page.goto(`${server.origin}/dashboard/customers?customer=${customer.id}`, { waitUntil: 'networkidle' });
      await page.getByRole('dialog').getByText(customer.email).first().waitFor();
      await expect.poll(() => page.locator('.mantine-Loader-root').count(), { timeout: 15_000 }).toBe(0);
      await expectAxeClean(`a customer's drawer in the ${colorScheme} theme`);
      await screenshot(page, `dashboard-theme-${colorScheme}-customer-drawer-1280`);
      await closeDrawer();
      await openByKeyboard();
      await paletteInput().fill(customer.email);
      await option(new RegExp(customer.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .first()
        .waitFor();
      await expectAxeClean(`the palette in the ${colorScheme} theme`);
      await screenshot(page, `dashboard-theme-${colorScheme}-palette-1280`);
      await page.keyboard.press('Escape');

      await page.setViewportSize(PHONE);
      await visit('overview', 'Overview', PHONE.width);
      await visit('reviews', 'Reviews', PHONE.width);
      await page.setViewportSize(DESKTOP);
    }, 300_000);
  }

  it('made no request to another origin and logged no error', () => {
    expect(watch.foreign()).toEqual([]);
    // The aborted and dropped requests above are logged by Chromium as failed loads.
    expect(watch.errors.filter((text) => !/Failed to load resource|ERR_ABORTED|ERR_CONNECTION/.test(text))).toEqual([]);
  });
});
