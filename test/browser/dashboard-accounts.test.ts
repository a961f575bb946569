/**
 * Accounts and passwords in the dashboard, in Chromium against a real `patron serve` whose mail goes to a real SMTP
 * server on 127.0.0.1 (docs/dashboard.md#passwords-and-sign-in-links): "Forgot password?" on the sign-in page → the
 * neutral confirmation → the mail → its link signs in and leads to choosing a password (a weak one refused beside its
 * field) → signing in with that password; changing the password from the account page in the header (current + new);
 * a used link's page offers a new link instead of a dead end. Screenshots at 1280 and 390 px go to
 * test/browser/screenshots/, and axe finds no serious or critical violation on any page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_OWNER_PASSWORD } from '../../src/demo/examples.js';
import { postgresUrl } from '../support/database.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import {
  axeViolations,
  chromiumMissing,
  ensureDashboardBuilt,
  launchChromium,
  screenshot,
  serveOnHostname,
  watchPage,
  type LaunchedChromium,
  type PageWatch,
  type ServedOnHostname,
} from './support.js';

const TEST_TIMEOUT = 180_000;
const EMAIL = 'grace.accounts@demo.example';
const FIRST_PASSWORD = 'violet tractor seventeen';
const SECOND_PASSWORD = 'amber canoe orchard lantern';

describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))('dashboard accounts and passwords', () => {
  let server: ServedOnHostname;
  let chromium: LaunchedChromium;
  let smtp: SmtpReceiver;
  let page: Page;
  let watch: PageWatch;
  /** The link of the first mail, used once by the first flow and opened again by the last. */
  let usedLink = '';

  /** The sign-in link of the `n`th mail (1-based) received for EMAIL (the demo world mails its customers too). */
  async function linkOfMail(n: number): Promise<string> {
    const mail = await vi.waitFor(
      () => {
        const mails = smtp.received.filter((each) => each.envelopeTo.includes(EMAIL));
        if (mails.length < n) throw new Error(`expected ${n} mails to ${EMAIL}, received ${mails.length}`);
        return mails[n - 1]!;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(mail.parsed.subject).toBe('Reset your Patron password');
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=[A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? '')?.[1];
    expect(link, mail.parsed.text).toBeDefined();
    expect(new URL(link!).origin).toBe(server.origin);
    return link!;
  }

  async function check(name: string): Promise<void> {
    try {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await screenshot(page, `dashboard-accounts-${name}-${width}`);
        const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        // What sticks out, named in the failure: the deepest elements whose right edge passes the viewport.
        const overflowing =
          scrollWidth > width
            ? await page.evaluate<string>(
                `[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > ${width} && el.children.length === 0).slice(0, 5).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right)).join('; ')`,
              )
            : '';
        expect(scrollWidth, `${name}: document width at ${width} px (${overflowing})`).toBeLessThanOrEqual(width);
        expect(await axeViolations(page), `${name} at ${width} px`).toEqual([]);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }

  /** An input by its label (a required one's label ends in Mantine's asterisk). */
  const field = (name: string) => page.getByLabel(new RegExp(`^${name}\\s*\\*?$`));
  /** The error Mantine shows under an input: its aria-describedby names it. */
  async function errorOf(name: string): Promise<string> {
    const input = field(name);
    const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
    const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()));
    return texts.join(' ');
  }

  async function signInWithPassword(password: string): Promise<void> {
    await page.goto(`${server.origin}/dashboard/sign-in`, { waitUntil: 'networkidle' });
    await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
    await page.getByRole('textbox', { name: 'Password' }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('organization-name').waitFor();
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Patron' }).waitFor();
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    smtp = await startSmtpReceiver();
    [server, chromium] = await Promise.all([
      serveOnHostname({ SMTP_URL: smtp.url, MAIL_FROM: 'Patron <patron@demo.example>' }),
      launchChromium(),
    ]);
    // A colleague the demo owner invites: a user without a password yet.
    const ownerSignIn = await fetch(`${server.origin}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@demo.example', password: DEMO_OWNER_PASSWORD }),
    });
    expect(ownerSignIn.status).toBe(201);
    const cookie = ownerSignIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrfToken } = (await ownerSignIn.json()) as { csrfToken: string };
    const invited = await fetch(`${server.origin}/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken },
      body: JSON.stringify({ email: EMAIL, name: 'Grace Hopper', role: 'admin' }),
    });
    expect(invited.status, await invited.clone().text()).toBe(201);

    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watch = watchPage(page, server.origin);
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), chromium?.close(), smtp?.close()]);
  });

  it(
    'forgot password → mail on loopback SMTP → link → choose a password → sign in with it',
    async () => {
      await page.goto(`${server.origin}/dashboard/sign-in`, { waitUntil: 'networkidle' });
      await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
      await check('sign-in');
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.getByRole('heading', { name: 'Forgot your password?', level: 1 }).waitFor();
      await check('forgot');

      await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
      await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
      const confirmation = page.getByTestId('reset-requested');
      await confirmation.waitFor();
      // Neutral: it never says whether the email has an account.
      expect(await confirmation.innerText()).toMatch(/If an account uses this email/);
      await check('forgot-sent');

      usedLink = await linkOfMail(1);
      const { pathname, hash } = new URL(usedLink);
      await page.goto(`${server.origin}${pathname}${hash}`, { waitUntil: 'load' });
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
      // The token left the address bar before it was used.
      expect(page.url()).not.toContain('token=');
      await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
      expect(await field('Current password').count()).toBe(0);
      await check('choose-password');

      // Too easy to guess: the API's message beside the field.
      await field('New password').fill('password123');
      await field('New password again').fill('password123');
      await page.getByRole('button', { name: 'Save password' }).click();
      await expect.poll(() => errorOf('New password')).toMatch(/too easy to guess/);
      await check('choose-password-weak');

      await field('New password').fill(FIRST_PASSWORD);
      await field('New password again').fill(FIRST_PASSWORD);
      await page.getByRole('button', { name: 'Save password' }).click();
      await page.getByRole('status').filter({ hasText: 'Password saved' }).waitFor();
      await check('choose-password-saved');

      await signOut();
      await signInWithPassword(FIRST_PASSWORD);
      expect(await page.getByTestId('user-email').innerText()).toBe(EMAIL);
    },
    TEST_TIMEOUT,
  );

  it(
    'changes the password from the account page in the header: current and new, each error beside its field',
    async () => {
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Change your password' }).waitFor();
      await check('change-password');

      await field('Current password').fill('not my password at all');
      await field('New password').fill(SECOND_PASSWORD);
      await field('New password again').fill(SECOND_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => errorOf('Current password')).toMatch(/current password is not right/);

      await field('Current password').fill(FIRST_PASSWORD);
      await field('New password').fill(SECOND_PASSWORD);
      await field('New password again').fill('something else');
      await page.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => errorOf('New password again')).toMatch(/two passwords differ/);

      await field('New password again').fill(SECOND_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
      await check('change-password-saved');

      await signOut();
      await signInWithPassword(SECOND_PASSWORD);
      await signOut();
    },
    TEST_TIMEOUT,
  );

  it(
    'shows a used link a helpful page that mails a new link',
    async () => {
      const { pathname, hash } = new URL(usedLink);
      await page.goto(`${server.origin}${pathname}${hash}`, { waitUntil: 'load' });
      const dead = page.getByTestId('dead-link');
      await dead.waitFor();
      expect(await dead.innerText()).toMatch(/expired or was already used/);
      await check('used-link');

      await dead.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
      await dead.getByRole('button', { name: 'Email me a new link' }).click();
      await page.getByTestId('reset-requested').waitFor();
      const fresh = await linkOfMail(2);
      expect(fresh).not.toBe(usedLink);
      // The new link works: it signs in and leads to choosing a new password (no current one asked).
      const { pathname: path, hash: fragment } = new URL(fresh);
      await page.goto(`${server.origin}${path}${fragment}`, { waitUntil: 'load' });
      await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
      await page.getByRole('link', { name: 'Not now' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

      expect(watch.foreign()).toEqual([]);
      expect(watch.cspErrors()).toEqual([]);
      expect(watch.errors.filter((text) => !/status of (400|401|403)/.test(text))).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
