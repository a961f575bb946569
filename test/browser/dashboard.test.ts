/**
 * The dashboard in a real browser (Debian's Chromium, headless), loaded the way a person on another machine loads it:
 * `patron serve` bound to HOST=0.0.0.0, reached through the machine's hostname over plain http, at a desktop width
 * (1280 px) and a phone's (390 px). Every page must load from that origin alone, without a Content Security Policy
 * error or any other console error, and without a serious or critical axe-core violation (docs/dashboard.md#tests).
 *
 * Signed in, the demo owner (with the link the first start prints) walks every section at both widths, meets a
 * validation error, adds a viewer whose link signs in on a phone, and signs out; the other suites walk each section's
 * own steps.
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

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))(
  '/dashboard in Chromium, served on HOST=0.0.0.0 and opened by hostname',
  () => {
    let server: ServedOnHostname;
    let chromium: LaunchedChromium;
    const contexts = new Map<string, BrowserContext>();

    beforeAll(async () => {
      await ensureDashboardBuilt();
      [server, chromium] = await Promise.all([serveOnHostname(), launchChromium()]);
      for (const viewport of VIEWPORTS) {
        contexts.set(
          viewport.name,
          await chromium.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } }),
        );
      }
    }, 300_000);

    afterAll(async () => {
      await Promise.allSettled([
        server?.stop(),
        (async () => {
          for (const context of contexts.values()) await context.close().catch(() => {});
          await chromium?.close();
        })(),
      ]);
    });

    async function newPage(viewport: string): Promise<{ page: Page; watch: PageWatch }> {
      const page = await contexts.get(viewport)!.newPage();
      return { page, watch: watchPage(page, server.origin) };
    }

    /** Nothing left the origin, and the page reported no error (a CSP refusal is one). */
    function expectSelfContained(watch: PageWatch, allowedErrors: RegExp[] = []): void {
      expect(watch.foreign(), 'requests to another origin').toEqual([]);
      expect(watch.cspErrors(), 'Content Security Policy errors').toEqual([]);
      const errors = watch.errors.filter((error) => !allowedErrors.some((allowed) => allowed.test(error)));
      expect(errors, `console errors: ${errors.join(' | ')}`).toEqual([]);
    }

    /** The page fits the viewport's width: nothing to scroll sideways. */
    async function expectNoSidewaysScroll(page: Page, width: number): Promise<void> {
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(scrollWidth, 'document width').toBeLessThanOrEqual(width);
    }

    for (const viewport of VIEWPORTS) {
      it(`the sign-in page at ${viewport.width} px loads from its own origin only, without a CSP error or a serious axe violation`, async () => {
        const { page, watch } = await newPage(viewport.name);
        try {
          const response = await page.goto(`${server.origin}/dashboard/sign-in`, { waitUntil: 'networkidle' });
          expect(response?.status()).toBe(200);
          expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
          await page.getByRole('heading', { name: 'Sign in to Patron' }).waitFor();
          expect(await page.title()).toBe('Patron dashboard');
          await expect.poll(() => page.getByRole('textbox', { name: 'Email' }).isVisible()).toBe(true);
          expect(await page.getByRole('textbox', { name: 'Password' }).isVisible()).toBe(true);
          // The page and its hashed scripts and styles, from /dashboard on this origin.
          expect(watch.requests[0]).toBe(`${server.origin}/dashboard/sign-in`);
          expect(watch.requests.filter((url) => /\/dashboard\/assets\/[^/]+\.js$/.test(url)).length).toBeGreaterThan(0);
          expect(watch.requests.every((url) => url.startsWith(`${server.origin}/dashboard/`))).toBe(true);
          await expectNoSidewaysScroll(page, viewport.width);
          expect(await axeViolations(page)).toEqual([]);
          await screenshot(page, `dashboard-sign-in-${viewport.width}`);
          expectSelfContained(watch);
        } finally {
          await page.close();
        }
      });
    }

    it('the sign-in form says what is missing, next to the field, and shows an answer of the API as text', async () => {
      const { page, watch } = await newPage('desktop');
      try {
        await page.goto(`${server.origin}/dashboard/sign-in`, { waitUntil: 'networkidle' });
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText('Enter your email address.').waitFor();
        await page.getByText('Enter your password.').waitFor();
        expect(await page.getByRole('textbox', { name: 'Email' }).getAttribute('aria-invalid')).toBe('true');
        // An address with markup in it: the API refuses it as no email address, and whatever it answers is shown in an
        // alert, as text.
        await page.getByRole('textbox', { name: 'Email' }).fill('<img/src=x/onerror=window.pwned=1>@example.com');
        await page.getByRole('textbox', { name: 'Password' }).fill('not the password');
        const answer = page.waitForResponse((response) => response.url() === `${server.origin}/v1/session`);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const response = await answer;
        const envelope = (await response.json()) as { error: { message: string } };
        expect([response.status(), envelope.error.message]).toEqual([400, expect.stringMatching(/email/)]);
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).toContain(envelope.error.message);
        expect(await page.evaluate('window.pwned')).toBeUndefined();
        expect(await page.locator('img[src^="x"]').count()).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, 'dashboard-sign-in-refused');
        // Chromium logs the refused POST itself as a console error.
        expectSelfContained(watch, [/Failed to load resource: the server responded with a status of (400|401|404)/]);
      } finally {
        await page.close();
      }
    });

    it('a missing asset is 404, and any other path of the app answers the app', async () => {
      const missing = await fetch(`${server.origin}/dashboard/assets/index-NotThere.js`);
      expect(missing.status).toBe(404);
      const deep = await fetch(`${server.origin}/dashboard/customers/some/deep/path`);
      expect(deep.status).toBe(200);
      expect(deep.headers.get('cache-control')).toBe('no-cache');
      expect(await deep.text()).toContain('<div id="root"></div>');
      // The gzipped copy the server prefers is the same script as the file (fetch decodes it).
      const entry = /src="(\/dashboard\/assets\/index-[^"]+\.js)"/.exec(
        await (await fetch(`${server.origin}/dashboard/`)).text(),
      )?.[1];
      expect(entry).toBeDefined();
      const gzipped = await fetch(`${server.origin}${entry}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      const plain = await fetch(`${server.origin}${entry}`, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await gzipped.text()).toBe(await plain.text());
    });

    describe('signed in', () => {
      /** The demo owner's one-time link, which the first start prints beside the key. */
      const demoLink = () => {
        const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
        expect(link, server.stderr()).toBeDefined();
        return link!;
      };
      // The owner signs in once (the link works once) and the steps below go on in that page, in order.
      let owner: { page: Page; watch: PageWatch };

      /** Opens a section from the navigation, as a person does (the menu button first, on a phone). */
      async function openSection(page: Page, section: string, phone: boolean): Promise<void> {
        if (phone) await page.getByRole('button', { name: 'Open navigation' }).click();
        await page.getByRole('link', { name: section }).click();
        await page.getByRole('heading', { name: section, level: 1 }).waitFor();
      }

      it('without a session, a page of the app shows the sign-in page', async () => {
        const { page, watch } = await newPage('desktop');
        try {
          await page.goto(`${server.origin}/dashboard/customers`, { waitUntil: 'networkidle' });
          await page.getByRole('heading', { name: 'Sign in to Patron' }).waitFor();
          expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
          expectSelfContained(watch, [/status of 401/]);
        } finally {
          await page.close();
        }
      });

      it("the demo owner's link signs in, leaves the address bar, and the overview and settings pass axe at both widths", async () => {
        owner = await newPage('desktop');
        const { page } = owner;
        await signIn(page, server.origin, demoLink());
        expect(page.url()).toBe(`${server.origin}/dashboard/overview`);
        expect(await page.getByTestId('organization-name').textContent()).toBe('Demo');
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        await page.locator('.recharts-surface').first().waitFor();
        await expect.poll(() => page.getByText('Other products').count(), { timeout: 15_000 }).toBeGreaterThan(0);
        // The demo world is dated from the day it was seeded (docs/dashboard.md#the-demo-world): the default range,
        // the last 30 days, shows the store at work rather than an empty range.
        await page.locator('[data-overview-state="ready"]').waitFor();
        expect(await page.getByText('No orders in these days').count()).toBe(0);
        expect(await page.getByRole('region', { name: /^Revenue/ }).textContent()).toContain('$');
        expect(await page.getByRole('region', { name: /^Average rating/ }).textContent()).toContain('★');
        for (const viewport of VIEWPORTS) {
          await page.setViewportSize({ width: viewport.width, height: viewport.height });
          for (const path of ['overview', 'settings']) {
            await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
            await page.getByRole('heading', { level: 1 }).waitFor();
            if (path === 'overview') await page.locator('.recharts-surface').first().waitFor();
            await expectNoSidewaysScroll(page, viewport.width);
            expect(await axeViolations(page), `${path} at ${viewport.width} px`).toEqual([]);
            await screenshot(page, `dashboard-${path}-${viewport.width}`);
          }
        }
        // Before signing in the app asks for its session and is told 401: Chromium logs that.
        expectSelfContained(owner.watch, [/status of 401/]);
      }, 240_000);

      for (const viewport of VIEWPORTS) {
        it(`every section opens from the navigation at ${viewport.width} px`, async () => {
          const { page } = owner;
          const phone = viewport.width < 768;
          await page.setViewportSize({ width: viewport.width, height: viewport.height });
          await page.goto(`${server.origin}/dashboard/overview`, { waitUntil: 'networkidle' });
          if (phone) {
            await page.getByRole('button', { name: 'Open navigation' }).click();
            await page.getByRole('link', { name: 'Settings' }).waitFor({ state: 'visible' });
            expect(await axeViolations(page), 'the navigation open').toEqual([]);
            await screenshot(page, `dashboard-navigation-${viewport.width}`);
            await page.getByRole('button', { name: 'Close navigation' }).click();
          }
          for (const section of [
            'Customers',
            'Loyalty',
            'Reviews',
            'Mail',
            'Store data',
            'Webhooks',
            'Imports & exports',
            'Activity log',
            'Settings',
            'Overview',
          ]) {
            await openSection(page, section, phone);
            expect(new URL(page.url()).pathname).not.toBe('/dashboard/sign-in');
          }
          await page.setViewportSize({ width: VIEWPORTS[0].width, height: VIEWPORTS[0].height });
          expectSelfContained(owner.watch, [/status of 401/]);
        }, 120_000);
      }

      it('a bookmarked overview range survives the way in through /dashboard/', async () => {
        const { page } = owner;
        const query = '?from=2026-01-01&to=2026-01-31&tz=Europe%2FBerlin';
        await page.goto(`${server.origin}/dashboard/${query}`, { waitUntil: 'networkidle' });
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
        expect(new URL(page.url()).search).toBe(query);
        expect(await page.getByRole('button', { name: 'Dates' }).textContent()).toContain('Jan 1, 2026 – Jan 31, 2026');
      });

      it('a validation error of PATCH /v1/organization shows under its field and changes nothing', async () => {
        const { page } = owner;
        await page.goto(`${server.origin}/dashboard/settings`, { waitUntil: 'networkidle' });
        const name = page.getByRole('textbox', { name: 'Name' });
        await name.waitFor();
        expect(await name.inputValue()).toBe('Demo');
        // The API takes at most 255 characters; the form leaves that to the API, whose answer names the field.
        await name.fill('x'.repeat(300));
        const answer = page.waitForResponse(
          (response) =>
            response.url() === `${server.origin}/v1/organization` && response.request().method() === 'PATCH',
        );
        await page.getByRole('button', { name: 'Save' }).click();
        const response = await answer;
        expect(response.status()).toBe(400);
        const envelope = (await response.json()) as { error: { details: { path: string; message: string }[] } };
        const detail = envelope.error.details.find((entry) => entry.path.endsWith('.name'));
        expect(detail, JSON.stringify(envelope)).toBeDefined();
        await page.getByText(detail!.message).first().waitFor();
        expect(await name.getAttribute('aria-invalid')).toBe('true');
        await screenshot(page, 'dashboard-settings-refused');
        const organization = await fetch(`${server.origin}/v1/organization`, {
          headers: { authorization: `Bearer ${server.key}` },
        });
        expect(((await organization.json()) as { name: string }).name).toBe('Demo');
        expectSelfContained(owner.watch, [/status of (400|401)/]);
      });

      it("an owner adds a viewer in Settings; the viewer's link signs in on a phone, and the viewer reads but cannot change", async () => {
        const { page } = owner;
        await page.goto(`${server.origin}/dashboard/settings?tab=users`, { waitUntil: 'networkidle' });
        await page.getByRole('table', { name: 'Users' }).waitFor();
        await page.getByRole('button', { name: 'Add user' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add a user' });
        await dialog.getByRole('textbox', { name: 'Email' }).fill('viewer@demo.example');
        await dialog.getByRole('textbox', { name: 'Name' }).fill('Vera Viewer');
        await dialog.getByRole('button', { name: 'Add user' }).click();
        const link = (await dialog.locator('pre, code').first().textContent()) ?? '';
        expect(link).toMatch(/\/dashboard\/sign-in#token=\S+$/);
        expect(await axeViolations(page), 'the link shown once').toEqual([]);
        await screenshot(page, 'dashboard-settings-user-added');
        await dialog.getByRole('button', { name: 'Done' }).click();
        await page.getByRole('row', { name: /viewer@demo\.example/ }).waitFor();
        // The API, with the owner's session (users answer only to a session).
        const users = (await (await page.request.get(`${server.origin}/v1/users`)).json()) as {
          data: { email: string; role: string; name: string | null }[];
        };
        expect(users.data).toContainEqual(
          expect.objectContaining({ email: 'viewer@demo.example', role: 'viewer', name: 'Vera Viewer' }),
        );

        const viewer = await newPage('phone');
        try {
          await signIn(viewer.page, server.origin, link);
          await openSection(viewer.page, 'Settings', true);
          // Neither users nor keys are offered, and the organization's fields are read-only.
          expect(await viewer.page.getByRole('tab').allTextContents()).toEqual(['Organization']);
          await viewer.page.getByText('You can read these settings').waitFor();
          expect(await viewer.page.getByRole('textbox', { name: 'Name' }).isDisabled()).toBe(true);
          expect(await axeViolations(viewer.page), 'settings for a viewer').toEqual([]);
          await screenshot(viewer.page, 'dashboard-settings-viewer-390');
          await openSection(viewer.page, 'Webhooks', true);
          await viewer.page.getByRole('table', { name: 'Webhook endpoints' }).waitFor();
          // The activity log is owners' and admins' (auditLog:read): a viewer's navigation does not offer it.
          expect(await viewer.page.getByRole('link', { name: 'Activity log' }).count()).toBe(0);
          expect(await viewer.page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
          // And the API itself refuses the viewer a write, CSRF token and all.
          const session = (await (await viewer.page.request.get(`${server.origin}/v1/session`)).json()) as {
            csrfToken: string;
            user: { role: string };
          };
          expect(session.user.role).toBe('viewer');
          const refused = await viewer.page.request.patch(`${server.origin}/v1/organization`, {
            headers: { 'x-csrf-token': session.csrfToken, origin: server.origin },
            data: { name: 'Renamed by a viewer' },
          });
          expect(refused.status()).toBe(403);
          expectSelfContained(viewer.watch, [/status of 401/]);
        } finally {
          await viewer.page.close();
        }
      }, 120_000);

      it('signing out ends the session: its cookie no longer answers, and the app shows the sign-in page', async () => {
        const { page } = owner;
        const cookie = (await page.context().cookies(server.origin)).find((entry) => entry.name === 'patron_session');
        expect(cookie?.httpOnly).toBe(true);
        expect(cookie?.sameSite).toBe('Lax');
        const asCookie = { cookie: `patron_session=${cookie!.value}` };
        expect((await fetch(`${server.origin}/v1/session`, { headers: asCookie })).status).toBe(200);
        await page.goto(`${server.origin}/dashboard/overview`, { waitUntil: 'networkidle' });
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in to Patron' }).waitFor();
        expect((await fetch(`${server.origin}/v1/session`, { headers: asCookie })).status).toBe(401);
        expectSelfContained(owner.watch, [/status of (400|401)/]);
        await page.close();
      });
    });
  },
);

if (chromiumMissing) {
  describe('/dashboard in Chromium', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
