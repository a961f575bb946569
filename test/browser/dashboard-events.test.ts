/**
 * The Events view of the dashboard's Webhooks page in Chromium, signed in as the demo owner, against a real `patron
 * serve` with the demo world: the events listed and filtered by type, one read as its JSON, and sent to an endpoint
 * through the UI, checked through the API and at the receiver; axe-core and screenshots at 1280 and 390 px
 * (docs/dashboard.md#tests).
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

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('dashboard: Webhooks, Events', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let receiver: WebhookReceiver;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;
  let caDir: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    caDir = await mkdtemp(join(tmpdir(), 'patron-events-ca-'));
    const caFile = await writeReceiverCa(receiver, caDir);
    await ensureDashboardBuilt();
    const env = { ALLOW_HTTP_WEBHOOKS: '1', WEBHOOK_ALLOW_PRIVATE_HOSTS: '1', NODE_EXTRA_CA_CERTS: caFile };
    // One more try when the first start misses serveOnHostname's 60 s (a machine shared by several suites).
    const serve = () => serveOnHostname(env).catch(() => serveOnHostname(env));
    [server, chromium] = await Promise.all([serve(), launchChromium()]);
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

  it('lists the events, filters them by type, shows one as JSON and sends it to an endpoint', async () => {
    // An endpoint at the receiver that subscribes to something else: the event is sent to it by hand.
    const created = await fetch(`${server.origin}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { url: `${receiver.origin}/events-hook`, events: ['order.deleted'] } }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string; url: string };

    await page.goto(`${server.origin}/dashboard/webhooks`, { waitUntil: 'networkidle' });
    await page.getByRole('tab', { name: 'Events' }).click();
    const table = page.getByRole('table', { name: 'Events' });
    await table.waitFor();
    expect(new URL(page.url()).searchParams.get('tab')).toBe('events');
    await checkBothWidths('webhook-events', () => table.getByRole('row').nth(1).waitFor());

    // Filter by a family of types: every row is a site event, and the API agrees on the first.
    const type = page.getByRole('combobox', { name: 'Type' });
    await type.click();
    await type.fill('site.*');
    await page.getByRole('option', { name: 'site.*' }).click();
    await page.waitForURL(/type=site\.\*/);
    const listed = await apiGet<{ data: { id: string; event: string }[] }>(
      `/v1/events?type=${encodeURIComponent('site.*')}&limit=25`,
    );
    expect(listed.data.length).toBeGreaterThan(0);
    await table
      .getByRole('row', { name: new RegExp(listed.data[0]!.event.replace('.', '\\.')) })
      .first()
      .waitFor();
    const types = await table.locator('tbody tr td:first-child').allTextContents();
    expect(types.length).toBe(listed.data.length);
    expect(types.every((each) => each.startsWith('site.'))).toBe(true);
    await screenshot(page, 'dashboard-webhook-events-filtered-1280');

    // The oldest site event is the demo's main site being created: read it as JSON.
    const mainSite = listed.data.at(-1)!;
    await table.getByRole('row').last().click();
    const json = page.getByLabel('Event JSON');
    await json.waitFor();
    expect(await json.evaluate((element) => element.tagName)).toBe('PRE');
    const read = await fetch(`${server.origin}/v1/events/${mainSite.id}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    const bytes = Buffer.from(await read.arrayBuffer());
    expect(JSON.parse((await json.textContent()) ?? '')).toEqual(JSON.parse(bytes.toString('utf8')));

    // Send it to the endpoint, which does not subscribe to site events.
    await page.getByRole('combobox', { name: 'Send to endpoint' }).click();
    await page.getByRole('option', { name: endpoint.url }).click();
    await checkBothWidths('webhook-event', () => json.waitFor());
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Sent: succeeded').waitFor({ timeout: 20_000 });
    const [received] = await receiver.waitFor(1, '/events-hook');
    expect(received!.body.equals(bytes)).toBe(true);
    await screenshot(page, 'dashboard-webhook-event-sent-1280');
    const log = await apiGet<{ data: { requested: boolean; idempotencyKey: string; status: string }[] }>(
      `/v1/webhooks/${endpoint.id}/events`,
    );
    expect(log.data).toEqual([
      expect.objectContaining({ requested: true, idempotencyKey: mainSite.id, status: 'succeeded' }),
    ]);
    expect(watch.foreign(), 'requests to another origin').toEqual([]);
    expect(watch.errors, 'console errors').toEqual([]);
    await page.keyboard.press('Escape');
  }, 120_000);
});

if (chromiumMissing) {
  describe('dashboard: Webhooks, Events', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
