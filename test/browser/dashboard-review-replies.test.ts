/**
 * Replying to a review from its drawer in the dashboard (docs/api.md#review-replies), in Chromium against a real
 * `patron serve` with the demo world: a reply refused by the API shows its error at the field, then one is posted,
 * edited and deleted (after a confirmation), each checked through the API with the demo key. Each state passes axe
 * and leaves a screenshot at 1280 and 390 px. The reply's text, with markup in it, shows as text.
 */
import type { BrowserContext, Page, Response } from 'playwright-core';
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

interface Reply {
  body: string;
  createdAt: string;
  updatedAt: string;
  author: { type: string; id: string; label: string };
}

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('review replies in /dashboard in Chromium', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;
  let reviewId = '';

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
  const replyOf = async () => (await api<{ reply: Reply | null }>('GET', `/reviews/${reviewId}`)).reply;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    [server, chromium] = await Promise.all([serveOnHostname({}, { readyWithinMs: 180_000 }), launchChromium()]);
    const imported = await api<{ data: { id: string }[] }>('POST', '/reviews/import', {
      data: [
        {
          product: 'canvas-tote',
          customer: 'grace@example.com',
          remoteId: 'reply-1',
          rating: 3,
          title: 'Roomy but plain',
          body: 'Holds a laptop and lunch. I wish it had an inside pocket.',
          published: true,
        },
      ],
    });
    reviewId = imported.data[0]!.id;

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

  /** The page fits the width, passes axe, and is photographed. */
  async function check(name: string, width: number): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(scrollWidth, `${name}: document width`).toBeLessThanOrEqual(width);
    expect(await axeViolations(page), name).toEqual([]);
    await screenshot(page, `dashboard-${name}-${width}`);
  }

  const answerOf = (method: string) => (response: Response) =>
    response.request().method() === method && new URL(response.url()).pathname === `/v1/reviews/${reviewId}/reply`;

  it('posts a reply (the API’s refusal shown at the field first), edits it and deletes it', async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.origin}/dashboard/reviews?id=${reviewId}`, { waitUntil: 'networkidle' });
    const drawer = page.getByRole('dialog', { name: 'Review' });
    await drawer.getByText('I wish it had an inside pocket.').waitFor();
    const textarea = drawer.getByRole('textbox', { name: 'Reply to the review' });

    // Only spaces: the browser lets it through (it is not empty), the API refuses it, and says so at the field.
    await textarea.fill('   ');
    const refused = page.waitForResponse(answerOf('PUT'));
    await drawer.getByRole('button', { name: 'Post reply' }).click();
    expect((await refused).status()).toBe(400);
    await drawer.getByText('must contain something other than spaces', { exact: true }).waitFor();
    expect(await textarea.getAttribute('aria-invalid')).toBe('true');
    expect(await replyOf()).toBeNull();
    await check('review-reply-error', DESKTOP.width);

    // Posted.
    const first = `Thank you, Grace! An inside pocket is coming this spring. ${XSS}`;
    await textarea.fill(first);
    const posted = page.waitForResponse(answerOf('PUT'));
    await drawer.getByRole('button', { name: 'Post reply' }).click();
    expect((await posted).status()).toBe(200);
    await drawer.getByRole('status').getByText('Reply posted.').waitFor();
    await drawer.getByText(first).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    const reply = await replyOf();
    expect(reply).toMatchObject({ body: first, author: { type: 'user', label: 'owner@demo.example' } });
    await drawer.getByText('owner@demo.example ·', { exact: false }).waitFor();
    // The list shows that it was answered.
    // (its Status column; the copy of the badges under the text is for phones only).
    const row = page.getByRole('table', { name: 'Reviews' }).getByRole('row').filter({ hasText: 'Roomy but plain' });
    await row.getByText('Replied').last().waitFor();
    await check('review-reply', DESKTOP.width);

    // Status "Not replied" leaves it out, "Replied" keeps it (the drawer closed, then opened again from the row).
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('combobox', { name: 'Status', exact: true }).click();
    await page.getByRole('option', { name: 'Not replied', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('unreplied');
    await expect.poll(() => row.count()).toBe(0);
    await page.getByRole('combobox', { name: 'Status', exact: true }).click();
    await page.getByRole('option', { name: 'Replied', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('replied');
    await row.getByText('Replied').last().waitFor();
    await row.getByText('Roomy but plain').click();
    await drawer.getByText(first).waitFor();

    // Edited: the textarea starts from the current text.
    await drawer.getByRole('button', { name: 'Edit reply' }).click();
    const editor = drawer.getByRole('textbox', { name: 'Edit the reply' });
    expect(await editor.inputValue()).toBe(first);
    const second = 'Thank you, Grace! The spring tote has an inside pocket.';
    await editor.fill(second);
    await check('review-reply-editing', DESKTOP.width);
    const saved = page.waitForResponse(answerOf('PUT'));
    await drawer.getByRole('button', { name: 'Save reply' }).click();
    expect((await saved).status()).toBe(200);
    await drawer.getByRole('status').getByText('Reply updated.').waitFor();
    await drawer.getByText(second).waitFor();
    const edited = await replyOf();
    expect(edited!.body).toBe(second);
    expect(edited!.createdAt).toBe(reply!.createdAt);
    expect(Date.parse(edited!.updatedAt)).toBeGreaterThan(Date.parse(reply!.updatedAt));
    await drawer.getByText(/edited .* \(first replied /).waitFor();

    await page.setViewportSize(PHONE);
    await drawer.getByText(second).waitFor();
    await check('review-reply', PHONE.width);
    await page.setViewportSize(DESKTOP);

    // Deleted, after a confirmation; Cancel first leaves it.
    await drawer.getByRole('button', { name: 'Delete reply' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this reply?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await replyOf())!.body).toBe(second);
    await drawer.getByRole('button', { name: 'Delete reply' }).click();
    await confirm.waitFor();
    await check('review-reply-delete', DESKTOP.width);
    const deleted = page.waitForResponse(answerOf('DELETE'));
    await confirm.getByRole('button', { name: 'Delete reply' }).click();
    expect((await deleted).status()).toBe(200);
    await confirm.waitFor({ state: 'hidden' });
    await drawer.getByRole('status').getByText('Reply deleted.').waitFor();
    await drawer.getByRole('textbox', { name: 'Reply to the review' }).waitFor();
    expect(await drawer.getByText(second).count()).toBe(0);
    expect(await replyOf()).toBeNull();
    await check('review-reply-deleted', DESKTOP.width);

    await page.setViewportSize(PHONE);
    await check('review-reply-deleted', PHONE.width);
    // The one console error is Chromium's line for the 400 the refused reply answered.
    expect(watch.errors.filter((text) => !/status of 400/.test(text))).toEqual([]);
    expect(watch.foreign()).toEqual([]);
  });
});
