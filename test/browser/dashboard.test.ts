/**
 * The dashboard in a real browser (Debian's Chromium, headless), loaded the way a person on another machine loads it:
 * `patron serve` bound to HOST=0.0.0.0, reached through the machine's hostname over plain http, at a desktop width
 * (1280 px) and a phone's (390 px). Every page must load from that origin alone, without a Content Security Policy
 * error or any other console error, and without a serious or critical axe-core violation (docs/dashboard.md#tests).
 *
 * The signed-in steps need the sessions endpoints (POST /v1/session and the demo owner's link that the first start
 * prints): they run once the API document has them, and are reported as skipped, with the reason, until then.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
import { ROOT } from '../support/processes.js';
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

/** Whether this checkout's API has the dashboard's session endpoints (the committed contract document says). */
const sessionsMissing = (() => {
  const document = JSON.parse(readFileSync(join(ROOT, 'test/contract/openapi.json'), 'utf8')) as {
    paths: Record<string, unknown>;
  };
  return document.paths['/session']
    ? null
    : 'POST /v1/session is not in the API yet (the sessions backend of the dashboard contract): signing in cannot be tested';
})();

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
        if (sessionsMissing) expect(response.status()).toBe(404);
        else expect([response.status(), envelope.error.message]).toEqual([400, expect.stringMatching(/email/)]);
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

    describe.skipIf(sessionsMissing !== null)('signed in', () => {
      /** The demo owner's one-time link, which the first start prints beside the key. */
      const demoLink = () => {
        const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=\S+)/.exec(server.stderr())?.[1];
        expect(link, server.stderr()).toBeDefined();
        return link!;
      };

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
        const { page, watch } = await newPage('desktop');
        try {
          await signIn(page, server.origin, demoLink());
          expect(page.url()).toBe(`${server.origin}/dashboard/overview`);
          expect(await page.getByTestId('organization-name').textContent()).toBe('Demo');
          await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
          await page.locator('.recharts-surface').first().waitFor();
          for (const viewport of VIEWPORTS) {
            await page.setViewportSize({ width: viewport.width, height: viewport.height });
            for (const path of ['overview', 'settings']) {
              await page.goto(`${server.origin}/dashboard/${path}`, { waitUntil: 'networkidle' });
              await page.getByRole('heading', { level: 1 }).waitFor();
              await expectNoSidewaysScroll(page, viewport.width);
              expect(await axeViolations(page), `${path} at ${viewport.width} px`).toEqual([]);
              await screenshot(page, `dashboard-${path}-${viewport.width}`);
            }
          }
          await page.getByRole('button', { name: 'Sign out' }).click();
          await page.getByRole('heading', { name: 'Sign in to Patron' }).waitFor();
          // Before signing in, and after signing out, the app asks for its session and is told 401: Chromium logs that.
          expectSelfContained(watch, [/status of 401/]);
        } finally {
          await page.close();
        }
      }, 240_000);
    });

    if (sessionsMissing) {
      describe('signed in', () => {
        it.skip(sessionsMissing, () => {});
      });
    }

    // Until the sessions backend lands: the signed-in layout with GET /v1/session answered in the browser with a
    // session of the demo organization, and every other /v1 request sent with the demo key (the dashboard's client
    // sends none). It proves the layout, the overview's charts on the demo data and the settings page, not signing in.
    describe.skipIf(sessionsMissing === null)(
      'signed in with a stand-in session (until the sessions backend lands)',
      () => {
        async function standInSession(page: Page): Promise<void> {
          const organization = (await (
            await fetch(`${server.origin}/v1/organization`, { headers: { authorization: `Bearer ${server.key}` } })
          ).json()) as { id: string; name: string };
          const session = {
            user: {
              id: '00000000-0000-7000-8000-000000000001',
              organizationId: organization.id,
              email: 'owner@demo.example',
              name: 'Demo owner',
              role: 'owner',
              hasPassword: false,
              createdAt: new Date().toISOString(),
              lastSignedInAt: null,
            },
            organization: { id: organization.id, name: organization.name },
            permissions: ['all'],
            grantablePermissions: ['customers:read', 'customers:write', 'organization:write'],
            csrfToken: 'stand-in',
            expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          };
          await page.route(`${server.origin}/v1/**`, async (route) => {
            const url = new URL(route.request().url());
            if (url.pathname === '/v1/session') return route.fulfill({ json: session });
            if (url.pathname === '/v1/users' || url.pathname === '/v1/keys')
              return route.fulfill({ json: { data: [], nextCursor: null } });
            return route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${server.key}` } });
          });
        }

        for (const viewport of VIEWPORTS) {
          it(`the layout, the overview and the settings at ${viewport.width} px pass axe and fit the width`, async () => {
            const { page, watch } = await newPage(viewport.name);
            try {
              await standInSession(page);
              await page.goto(`${server.origin}/dashboard/`, { waitUntil: 'networkidle' });
              await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
              expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
              expect(await page.getByTestId('organization-name').textContent()).toBe('Demo');
              await page.locator('.recharts-surface').first().waitFor();
              await expect.poll(() => page.getByText('Other products').count(), { timeout: 15_000 }).toBeGreaterThan(0);
              await expectNoSidewaysScroll(page, viewport.width);
              expect(await axeViolations(page), 'overview').toEqual([]);
              await screenshot(page, `dashboard-overview-${viewport.width}`);

              if (viewport.width < 768) {
                await page.getByRole('button', { name: 'Open navigation' }).click();
                await page.getByRole('link', { name: 'Settings' }).waitFor({ state: 'visible' });
                await screenshot(page, `dashboard-navigation-${viewport.width}`);
              }
              await page.getByRole('link', { name: 'Settings' }).click();
              await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
              await page.getByRole('textbox', { name: 'Name' }).waitFor();
              expect(await page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Demo');
              await expectNoSidewaysScroll(page, viewport.width);
              expect(await axeViolations(page), 'settings').toEqual([]);
              await screenshot(page, `dashboard-settings-${viewport.width}`);

              for (const section of [
                'Customers',
                'Loyalty',
                'Reviews',
                'Store data',
                'Webhooks',
                'Imports & exports',
              ]) {
                if (viewport.width < 768) await page.getByRole('button', { name: 'Open navigation' }).click();
                await page.getByRole('link', { name: section }).click();
                await page.getByRole('heading', { name: section, level: 1 }).waitFor();
              }
              expect(await axeViolations(page), 'a placeholder page').toEqual([]);
              expectSelfContained(watch);
            } finally {
              await page.close();
            }
          });
        }

        it('a validation error of PATCH /v1/organization shows under its field', async () => {
          const { page, watch } = await newPage('desktop');
          try {
            await standInSession(page);
            await page.goto(`${server.origin}/dashboard/settings`, { waitUntil: 'networkidle' });
            const name = page.getByRole('textbox', { name: 'Name' });
            await name.waitFor();
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
            expectSelfContained(watch, [/status of 400/]);
          } finally {
            await page.close();
          }
        });
      },
    );
  },
);

if (chromiumMissing) {
  describe('/dashboard in Chromium', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
