/**
 * The dashboard's Webhooks and Imports & exports sections in Chromium, signed in as the demo owner, against a real
 * `patron serve` with the demo world: one write per page through the UI, checked through the API with the demo key;
 * axe-core and screenshots at 1280 and 390 px (docs/dashboard.md#tests).
 *
 * Nothing leaves the machine: the endpoint created points at a loopback HTTPS receiver (test/support/webhooks.ts)
 * whose self-signed certificate the server trusts through NODE_EXTRA_CA_CERTS; loopback receivers are allowed by
 * WEBHOOK_ALLOW_PRIVATE_HOSTS=1 (and ALLOW_HTTP_WEBHOOKS=1, as the demo world's own endpoints need).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
import { startWebhookReceiver, writeReceiverCa, type WebhookReceiver } from '../support/webhooks.js';
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

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('dashboard: Webhooks, Imports & exports', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let receiver: WebhookReceiver;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;
  let caDir: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    caDir = await mkdtemp(join(tmpdir(), 'patron-ops-ca-'));
    const caFile = await writeReceiverCa(receiver, caDir);
    await ensureDashboardBuilt();
    const env = { ALLOW_HTTP_WEBHOOKS: '1', WEBHOOK_ALLOW_PRIVATE_HOSTS: '1', NODE_EXTRA_CA_CERTS: caFile };
    // One more try when the first start misses serveOnHostname's 60 s (a machine shared by several suites).
    const serve = () => serveOnHostname(env).catch(() => serveOnHostname(env));
    [server, chromium] = await Promise.all([serve(), launchChromium()]);
    context = await chromium.browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    page = await context.newPage();
    watch = watchPage(page, server.origin);
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
    expect(link, server.stderr()).toBeDefined();
    await signIn(page, server.origin, link!);
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled([
      server?.stop(),
      receiver?.close(),
      (async () => {
        await context?.close().catch(() => {});
        await chromium?.close();
      })(),
    ]);
    if (caDir) await rm(caDir, { recursive: true, force: true });
  });

  /** The API with the demo key (not the UI). */
  async function apiGet<T>(path: string): Promise<T> {
    const response = await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.key}` } });
    expect(response.status, `GET ${path}`).toBe(200);
    return (await response.json()) as T;
  }

  /** No serious axe violation, nothing to scroll sideways, and a screenshot, at both widths. */
  async function checkBothWidths(name: string, ready: () => Promise<unknown>): Promise<void> {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await ready();
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(scrollWidth, `${name} width at ${viewport.width}`).toBeLessThanOrEqual(viewport.width);
      expect(await axeViolations(page), `${name} at ${viewport.width} px`).toEqual([]);
      await screenshot(page, `dashboard-${name}-${viewport.width}`);
    }
    await page.setViewportSize(DESKTOP);
  }

  it('creates a webhook endpoint with a generated secret, sends a test and shows the delivery with its payload', async () => {
    await page.goto(`${server.origin}/dashboard/webhooks`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    // The demo world's endpoints are listed.
    await page.getByRole('table', { name: 'Webhook endpoints' }).waitFor();
    await checkBothWidths('webhooks', () => page.getByRole('table', { name: 'Webhook endpoints' }).waitFor());

    const url = `${receiver.origin}/ops-hook`;
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByRole('textbox', { name: 'URL' }).fill(url);
    const events = dialog.getByPlaceholder('Choose events');
    await events.click();
    await events.fill('customer.updated');
    await page.getByRole('option', { name: /^customer\.updated/ }).click();
    await page.keyboard.press('Escape');
    await screenshot(page, 'dashboard-webhooks-form-1280');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await dialog.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(await axeViolations(page), 'the secret shown once').toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();

    const listed = await apiGet<{ data: { id: string; url: string; events: string[]; hasHmacSecret: boolean }[] }>(
      `/v1/webhooks?filter=${encodeURIComponent(JSON.stringify({ url }))}`,
    );
    expect(listed.data).toHaveLength(1);
    const endpoint = listed.data[0]!;
    expect(endpoint).toMatchObject({ url, events: ['customer.updated'], hasHmacSecret: true });

    await page.getByRole('row', { name: new RegExp(url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test ping delivered').waitFor({ timeout: 20_000 });
    const [ping] = await receiver.waitFor(1, '/ops-hook');
    const envelope = JSON.parse(ping!.body.toString('utf8')) as { event: string; data: { id: string } };
    expect(envelope).toMatchObject({ event: 'webhook.test', data: { id: endpoint.id } });

    // The delivery log shows it; its payload is text in a <pre>.
    const row = page.getByRole('row', { name: /webhook\.test/ });
    await row.first().waitFor();
    await checkBothWidths('webhook-endpoint', () => row.first().waitFor());
    await row.first().click();
    const payload = page.getByLabel('Payload');
    await payload.waitFor();
    expect(await payload.evaluate((element) => element.tagName)).toBe('PRE');
    expect(await payload.textContent()).toContain(`"id": "${endpoint.id}"`);
    const deliveries = await apiGet<{ data: { eventName: string; status: string }[] }>(
      `/v1/webhooks/${endpoint.id}/events`,
    );
    expect(deliveries.data).toEqual([expect.objectContaining({ eventName: 'webhook.test', status: 'succeeded' })]);
    await checkBothWidths('webhook-delivery', () => payload.waitFor());
    await page.keyboard.press('Escape');
  }, 90_000);

  it('uploads a customers CSV with its progress and imports the customer', async () => {
    await page.goto(`${server.origin}/dashboard/imports-exports`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Imports & exports', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Resource' }).click();
    await page.getByRole('option', { name: 'Customers' }).click();
    await page.locator('input[type="file"]').setInputFiles({
      name: 'customers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email,firstName,lastName\nops-import@example.com,Ada,Importer\n'),
    });
    await page.getByRole('button', { name: 'Upload and import' }).click();
    const progress = page.getByTestId('import-progress');
    await progress.getByText('succeeded').waitFor({ timeout: 30_000 });
    expect(await progress.textContent()).toContain('1 created');
    expect(await page.getByRole('progressbar', { name: 'Upload' }).getAttribute('aria-valuenow')).toBe('100');

    const customers = await apiGet<{ data: { email: string; firstName: string; lastName: string }[] }>(
      `/v1/customers?filter=${encodeURIComponent(JSON.stringify({ email: 'ops-import@example.com' }))}`,
    );
    expect(customers.data).toEqual([
      expect.objectContaining({ email: 'ops-import@example.com', firstName: 'Ada', lastName: 'Importer' }),
    ]);
    await checkBothWidths('imports', () => progress.getByText('succeeded').waitFor());
  }, 60_000);

  it('starts an export of the imported customer and its download link answers the file', async () => {
    await page.goto(`${server.origin}/dashboard/imports-exports?tab=exports`, { waitUntil: 'networkidle' });
    await page.getByRole('combobox', { name: 'Resource' }).click();
    await page.getByRole('option', { name: 'Customers' }).click();
    await page
      .getByRole('textbox', { name: 'Filter (optional)' })
      .fill(JSON.stringify({ email: 'ops-import@example.com' }));
    await page.getByRole('button', { name: 'Start export' }).click();
    await page.getByText('Export started').waitFor();
    // The demo world has exports of its own: the link is the one of the job just started (the newest).
    const started = await apiGet<{ data: { id: string; resource: string }[] }>('/v1/export-jobs?limit=1');
    expect(started.data[0]?.resource).toBe('customers');
    const link = page.locator(`a[href$="/v1/export-jobs/${started.data[0]!.id}/download"]`);
    await link.waitFor({ timeout: 30_000 });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(new RegExp(`^${server.origin}/v1/export-jobs/[0-9a-f-]+/download$`));

    // With the demo key, and with the page's own session cookie (what the link sends).
    const byKey = await fetch(href, { headers: { authorization: `Bearer ${server.key}` } });
    expect(byKey.status).toBe(200);
    const file = await byKey.text();
    expect(file.split('\n')[0]).toContain('email');
    expect(file).toContain('ops-import@example.com');
    const bySession = await page.request.get(href);
    expect(bySession.status()).toBe(200);
    expect(await bySession.text()).toBe(file);

    await checkBothWidths('exports', () => link.waitFor());
    const errors = watch.errors.filter((error) => !/status of 40[49]/.test(error));
    expect(watch.foreign(), 'requests to another origin').toEqual([]);
    expect(errors, 'console errors').toEqual([]);
  }, 60_000);
});

if (chromiumMissing) {
  describe('dashboard: Webhooks, Imports & exports', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
