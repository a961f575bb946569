/**
 * The Reviews section of the dashboard in Chromium (docs/dashboard.md#tests), against a real `patron serve` with the
 * demo world: the reviews list and a review's detail, a product's review summary, and product questions. Each view
 * makes one write through the page (flag a review, keep the current summary, answer a question), checked through the
 * API with the demo key; each passes axe at 1280 and 390 px and leaves a screenshot at both widths. Text of the API
 * with markup in it (a review and a question created here) shows as text and runs nothing.
 */
import type { BrowserContext, Page, Response } from 'playwright-core';
import { readFile } from 'node:fs/promises';
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
const XSS = '<img src=x onerror="window.__xss=1">';
/** The demo world's records (src/demo/ids.ts). */
const SCARF_QUESTION = '0196a1c0-5e00-7000-8000-000000000972';

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))(
  'the Reviews section of /dashboard in Chromium',
  () => {
    let server: ServedOnHostname;
    let chromium: LaunchedChromium;
    let context: BrowserContext;
    let page: Page;
    let watch: PageWatch;
    const created = { reviewId: '', questionId: '', scarfId: '' };

    /** A request to the API with the demo key (not the page's session). */
    async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${server.origin}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${server.key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      expect(response.ok, `${method} ${path} answered ${response.status} ${text}`).toBe(true);
      return JSON.parse(text) as T;
    }

    beforeAll(async () => {
      await ensureDashboardBuilt();
      [server, chromium] = await Promise.all([serveOnHostname({}, { readyWithinMs: 180_000 }), launchChromium()]);
      // Text with markup in it, as a store could send it: a review (reviews arrive by import) and a question.
      const imported = await api<{ data: { id: string }[] }>('POST', '/reviews/import', {
        data: [
          {
            product: 'canvas-tote',
            customer: 'ada@example.com',
            remoteId: 'markup-1',
            rating: 2,
            title: `Strap broke ${XSS}`,
            body: `The strap tore after a week. ${XSS}`,
            published: true,
          },
        ],
      });
      created.reviewId = imported.data[0]!.id;
      created.questionId = (
        await api<{ id: string }>('POST', '/product-questions', {
          product: 'canvas-tote',
          body: `Is the canvas waxed? ${XSS}`,
          authorName: `Mallory ${XSS}`,
          status: 'pending',
        })
      ).id;
      created.scarfId = (await api<{ data: { id: string }[] }>('GET', '/products?search=merino-scarf')).data[0]!.id;

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

    /** The page fits the width: nothing to scroll sideways (the message names what sticks out, if anything does). */
    async function expectFits(width: number): Promise<void> {
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (scrollWidth <= width) return;
      const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > ${width})
      .slice(0, 10)
      .map((element) => element.tagName + '.' + element.className + ': ' + (element.textContent || '').slice(0, 60))`);
      expect(scrollWidth, `document width; wider than the page:\n${wide.join('\n')}`).toBeLessThanOrEqual(width);
    }

    /** axe on the page as it is, and a screenshot. */
    async function check(name: string, width: number): Promise<void> {
      await expectFits(width);
      expect(await axeViolations(page), name).toEqual([]);
      await screenshot(page, `dashboard-${name}-${width}`);
    }

    /** The markup in the API's text stayed text: nothing ran, no image was made of it. */
    async function expectInert(): Promise<void> {
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
    }

    const answerOf = (method: string, path: string) => (response: Response) =>
      response.request().method() === method && new URL(response.url()).pathname === `/v1${path}`;

    async function pick(label: string, option: string): Promise<void> {
      await page.getByRole('combobox', { name: label, exact: true }).click();
      await page.getByRole('option', { name: option, exact: true }).click();
    }

    it('reviews: filters, the detail with markup shown as text, and flagging a review', async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.origin}/dashboard/reviews`, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Reviews' });
      // The newest first: the review made above, then the demo store's recent ones (docs/dashboard.md#the-demo-world).
      await table.getByText(`Strap broke ${XSS}`).waitFor();
      await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(1);
      await expectInert();

      // Status "Flagged": only the demo's spam review.
      await pick('Status', 'Flagged');
      await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('flagged');
      await table.getByText('Cheap watches here').waitFor();
      await expect.poll(() => table.getByText(`Strap broke ${XSS}`).count()).toBe(0);
      await pick('Status', 'Any status');
      await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBeNull();
      // Rating 2: the review made above is the only one.
      await pick('Rating', '2 stars');
      await expect.poll(() => new URL(page.url()).searchParams.get('rating')).toBe('2');
      await expect.poll(() => table.getByText('Cheap watches here').count()).toBe(0);
      await table.getByText(`Strap broke ${XSS}`).waitFor();
      expect(await table.locator('tbody tr').count()).toBe(1);
      await check('reviews', DESKTOP.width);

      await table.getByText(`Strap broke ${XSS}`).click();
      const drawer = page.getByRole('dialog', { name: 'Review' });
      await drawer.getByText(`The strap tore after a week. ${XSS}`).waitFor();
      await expectInert();
      const flagged = page.waitForResponse(answerOf('PATCH', `/reviews/${created.reviewId}`));
      await drawer.getByRole('button', { name: 'Flag', exact: true }).click();
      expect((await flagged).status()).toBe(200);
      await drawer.getByRole('button', { name: 'Clear flag' }).waitFor();
      const review = await api<{ flagged: boolean; published: boolean }>('GET', `/reviews/${created.reviewId}`);
      expect(review).toMatchObject({ flagged: true, published: true });
      await check('reviews-detail', DESKTOP.width);

      await page.setViewportSize(PHONE);
      await drawer.getByText(`The strap tore after a week. ${XSS}`).waitFor();
      await check('reviews-detail', PHONE.width);
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'hidden' });
      await check('reviews', PHONE.width);
    });

    it('review summaries: the scarf with its previous summary, and keeping the current one', async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.origin}/dashboard/reviews?tab=summaries`, { waitUntil: 'networkidle' });
      await page.getByText('Choose a product to see what its reviews say.').waitFor();
      await pick('Product', 'Merino scarf');
      await expect.poll(() => new URL(page.url()).searchParams.get('product')).toBe(created.scarfId);
      await page.getByRole('heading', { name: 'Current summary' }).waitFor();
      await page.getByRole('heading', { name: 'Previous summary' }).waitFor();
      await page.getByText('Shown on the storefront').waitFor();
      await check('review-summaries', DESKTOP.width);

      const accepted = page.waitForResponse(answerOf('POST', `/products/${created.scarfId}/review-summary/accept`));
      await page.getByRole('button', { name: 'Keep the current summary' }).click();
      expect((await accepted).status()).toBe(200);
      await page.getByRole('heading', { name: 'Previous summary' }).waitFor({ state: 'detached' });
      const summary = await api<{ previous: unknown; suppressedAt: unknown }>(
        'GET',
        `/products/${created.scarfId}/review-summary`,
      );
      expect(summary).toMatchObject({ previous: null, suppressedAt: null });

      await page.setViewportSize(PHONE);
      await check('review-summaries', PHONE.width);
    });

    it('questions: the list with markup shown as text, and answering a pending question', async () => {
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.origin}/dashboard/reviews?tab=questions`, { waitUntil: 'networkidle' });
      const table = page.getByRole('table', { name: 'Product questions' });
      await table.getByText(`Is the canvas waxed? ${XSS}`).first().waitFor();
      await table.getByText(`Mallory ${XSS}`).first().waitFor();
      await expectInert();
      await pick('Status', 'Pending');
      await expect.poll(() => table.getByText('Does the linen shirt shrink').count()).toBe(0);
      await table.getByText('Is the scarf warm enough').waitFor();
      await check('questions', DESKTOP.width);

      await table.getByText('Is the scarf warm enough').click();
      const drawer = page.getByRole('dialog', { name: 'Product question' });
      await drawer.getByText('No answers yet.').waitFor();
      const text = 'Yes: it is warm to about −10 °C under a coat collar.';
      await drawer.getByRole('textbox', { name: 'Answer' }).fill(text);
      const answered = page.waitForResponse(answerOf('POST', `/product-questions/${SCARF_QUESTION}/answers`));
      await drawer.getByRole('button', { name: 'Post answer' }).click();
      expect((await answered).status()).toBe(201);
      await drawer.getByRole('listitem').getByText(text).waitFor();
      const question = await api<{ answers: { body: string; source: string; status: string; authorName: string }[] }>(
        'GET',
        `/product-questions/${SCARF_QUESTION}?include=answers`,
      );
      expect(question.answers).toEqual([
        expect.objectContaining({ body: text, source: 'merchant', status: 'published', authorName: 'Demo' }),
      ]);
      await check('questions-detail', DESKTOP.width);

      await page.setViewportSize(PHONE);
      await drawer.getByText(text).first().waitFor();
      await check('questions-detail', PHONE.width);
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'hidden' });
      await check('questions', PHONE.width);

      expect(watch.foreign(), 'requests to another origin').toEqual([]);
      expect(watch.cspErrors(), 'Content Security Policy errors').toEqual([]);
      expect(watch.errors, 'console errors').toEqual([]);
    });

    it('moderates in bulk: publishes three selected reviews at once, then deletes two after a confirmation', async () => {
      await page.setViewportSize(DESKTOP);
      const marker = 'Bulkmoderated';
      const imported = await api<{ data: { id: string }[] }>('POST', '/reviews/import', {
        data: [1, 2, 3].map((n) => ({
          product: 'canvas-tote',
          customer: 'ada@example.com',
          remoteId: `bulk-${n}`,
          rating: 3,
          title: `${marker} ${n}`,
          body: `${marker} review number ${n}.`,
          published: false,
        })),
      });
      const ids = imported.data.map((review) => review.id);
      await page.goto(`${server.origin}/dashboard/reviews?q=${marker}`, { waitUntil: 'networkidle' });
      const table = page.getByRole('table', { name: 'Reviews' });
      await expect.poll(() => table.locator('tbody tr').count()).toBe(3);

      await table.getByRole('checkbox', { name: 'Select every review on this page' }).check();
      const bar = page.getByRole('region', { name: 'Selected rows' });
      await bar.getByText('3 reviews selected').waitFor();
      await check('reviews-bulk', DESKTOP.width);
      const published = page.waitForResponse(answerOf('PATCH', '/reviews/bulk-update'));
      await bar.getByRole('button', { name: 'Publish', exact: true }).click();
      expect((await published).status()).toBe(200);
      await page.getByRole('alert').filter({ hasText: 'Published 3 reviews' }).waitFor();
      for (const id of ids)
        expect(await api<{ published: boolean }>('GET', `/reviews/${id}`)).toMatchObject({ published: true });

      await page.setViewportSize(PHONE);
      await table.getByRole('checkbox', { name: `Select the review "${marker} 1"` }).check();
      await table.getByRole('checkbox', { name: `Select the review "${marker} 2"` }).check();
      await bar.getByText('2 reviews selected').waitFor();
      await check('reviews-bulk', PHONE.width);
      await bar.getByRole('button', { name: 'Delete', exact: true }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete 2 reviews?' });
      await confirm.getByText('will be deleted for good').waitFor();
      await confirm.getByRole('button', { name: 'Delete 2 reviews' }).click();
      await page.getByRole('alert').filter({ hasText: 'Deleted 2 reviews' }).waitFor();
      await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
      const left = await api<{ data: { title: string }[] }>('GET', `/reviews?search=${marker}`);
      expect(left.data.map((review) => review.title)).toEqual([`${marker} 3`]);

      // Export exactly what the table shows: the one review the search still finds, as CSV named after the list and day.
      await page.setViewportSize(DESKTOP);
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const downloading = page.waitForEvent('download', { timeout: 60_000 });
      await page.getByRole('menuitem', { name: 'CSV (spreadsheets)' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe(`reviews-${new Date().toISOString().slice(0, 10)}.csv`);
      const csv = await readFile((await download.path())!, 'utf8');
      const exportedRows = csv.trim().split('\n');
      expect(exportedRows).toHaveLength(2);
      expect(exportedRows[1]).toContain(`${marker} 3`);
      await page.getByText('1 row of reviews exported; the download has started.').waitFor();

      await page.setViewportSize(DESKTOP);
      const asked = await Promise.all(
        [1, 2].map((n) =>
          api<{ id: string }>('POST', '/product-questions', {
            product: 'canvas-tote',
            body: `${marker} question ${n}?`,
            authorName: 'Grace',
            status: 'pending',
          }),
        ),
      );
      await page.goto(`${server.origin}/dashboard/reviews?tab=questions&q=${marker}`, { waitUntil: 'networkidle' });
      const questions = page.getByRole('table', { name: 'Product questions' });
      await expect.poll(() => questions.locator('tbody tr').count()).toBe(2);
      await questions.getByRole('checkbox', { name: 'Select every question on this page' }).check();
      await page
        .getByRole('region', { name: 'Selected rows' })
        .getByRole('button', { name: 'Publish', exact: true })
        .click();
      await page.getByRole('alert').filter({ hasText: 'Published 2 questions' }).waitFor();
      for (const { id } of asked)
        expect(await api<{ status: string }>('GET', `/product-questions/${id}`)).toMatchObject({ status: 'published' });
    });
  },
);

if (chromiumMissing) {
  describe('the Reviews section of /dashboard in Chromium', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
