/**
 * What the browser suites share: Debian's Chromium (/usr/bin/chromium) driven through playwright-core, and
 * `patron serve` as a child process bound to every interface (HOST=0.0.0.0) and reached through the machine's
 * hostname, so that a page is loaded the way a person on another machine would load it: plain http, a host that is
 * not localhost. Nothing here leaves the machine; `watchPage` records every request a page makes so that a suite can
 * prove it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { inject, vi } from 'vitest';
import { BUILT_CLI, childEnv, exitOf, freePort, ROOT, sleep, type Exit } from '../support/processes.js';
import { migratedDataDir } from '../support/database.js';
import { answers200, untilReady } from '../support/ready.js';
import { loopbackCertificate } from '../support/webhooks.js';
import { SEEDED_ORIGIN, type SeededDemo } from './seeded-demo.js';

export const CHROMIUM = '/usr/bin/chromium';
/** The flags Chromium is started with (plus where to keep its profile and how to be driven). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
] as const;
export const chromiumMissing = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} is not installed (apt-get install -y chromium); the browser suites are skipped`;
export const SCREENSHOTS = join(ROOT, 'test/browser/screenshots');

// A first start seeds the demo world, and under tsx compiles the server first: 48-111 s were seen on a machine busy
// with other builds and browsers, where CI alone takes a few seconds.
const READY_WITHIN_MS = 180_000;

/** SIGKILLs the child if this process exits first (a worker ended before its afterAll), so none outlives a run. */
function endWithThisProcess(child: ChildProcess): void {
  const end = () => child.kill('SIGKILL');
  process.once('exit', end);
  child.once('exit', () => process.off('exit', end));
}

export interface LaunchedChromium {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Starts Chromium with exactly CHROMIUM_FLAGS (Playwright's own launch adds many more), a fresh profile and a
 * DevTools port, and connects Playwright to it.
 */
export async function launchChromium(): Promise<LaunchedChromium> {
  const profile = await mkdtemp(join(tmpdir(), 'patron-chromium-'));
  const child = spawn(
    CHROMIUM,
    [...CHROMIUM_FLAGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  endWithThisProcess(child);
  let stderr = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium did not start within 30 s:\n${stderr}`)), 30_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code ?? signal}) before it listened:\n${stderr}`));
    });
  });
  const browser = await chromium.connectOverCDP(endpoint);
  return {
    browser,
    close: async () => {
      // Disconnecting may hang on a browser that stopped answering; the process is ended either way.
      await Promise.race([browser.close().catch(() => {}), sleep(5_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exitOf(child);
        clearTimeout(timer);
      }
      await rm(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

export interface ServedOnHostname {
  child: ChildProcess;
  /** http://<os.hostname()>:<port>: the origin a page is loaded from. */
  origin: string;
  /** The demo key a first embedded start prints. */
  key: string;
  /**
   * stdout (JSON logs) and stderr so far. stderr begins with what a first start prints of the demo (its keys, its
   * owner's one-time sign-in link on this origin), then the server's own.
   */
  stdout(): string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * What a first start prints of the demo world, for a copy of the run's seeded data dir served on `origin`: the lines a
 * suite reads its keys and sign-in link from (src/cli/serve.ts).
 */
function seededBanner(seeded: SeededDemo, origin: string): string {
  return [
    '',
    'Created the demo organization "Demo" (seeded once for the run: test/browser/seeded-demo.ts),',
    'with a sample store, loyalty program and reviews to try, and a key with every permission:',
    `  ${seeded.key}`,
    'and a test key with every permission, acting only on its test data (test mode: nothing it does touches live data):',
    `  ${seeded.testKey}`,
    `  curl -H "Authorization: Bearer ${seeded.key}" ${origin}/v1/organization`,
    'or open the API reference signed in with it, and send any request from the page:',
    `  ${origin}/docs#key=${seeded.key}`,
    `Sign in to the dashboard as its owner (${seeded.ownerEmail}) with this one-time link, valid 24 hours:`,
    `  ${seeded.signInLink.replace(SEEDED_ORIGIN, origin)}`,
    `or with its demo password: ${seeded.password}`,
    '',
  ].join('\n');
}

/**
 * `patron serve` on the embedded database in a new data dir, bound to HOST=0.0.0.0 on a free port; resolves once
 * /readyz answers 200 through the machine's hostname and the demo key is known. The data dir is a copy of the run's
 * seeded demo world (test/browser/seeded-demo.ts) when there is one, so the start seeds nothing.
 */
export async function serveOnHostname(
  env: Record<string, string | undefined> = {},
  // A first start seeds the demo world, which takes well over a minute on a loaded machine.
  { readyWithinMs = READY_WITHIN_MS }: { readyWithinMs?: number } = {},
): Promise<ServedOnHostname> {
  // Seeded once per run (test/browser/seeded-demo.ts); without it, migrated once per run and seeded by the first start.
  const seeded = inject('seededDemo');
  const dataDir = await migratedDataDir('patron-browser-');
  if (seeded) {
    await rm(join(dataDir, 'pgdata'), { recursive: true, force: true });
    await cp(seeded.dataDir, dataDir, { recursive: true });
  }
  const port = await freePort();
  const child = spawn(process.execPath, [BUILT_CLI, 'serve'], {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'warn', ...env, PATRON_DATA_DIR: dataDir, HOST: '0.0.0.0', PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  endWithThisProcess(child);
  const origin = `http://${hostname()}:${port}`;
  let stdout = '';
  let stderr = seeded ? seededBanner(seeded, origin) : '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const exit = await exitOf(child);
    clearTimeout(timer);
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    return exit;
  };

  let ready = false;
  let key: string | undefined;
  try {
    await untilReady(
      child,
      async () => {
        ready ||= await answers200(`${origin}/readyz`);
        key = /Bearer (sk_[0-9A-Za-z]+)/.exec(stderr)?.[1];
        return ready && key !== undefined;
      },
      { timeoutMs: readyWithinMs, output: () => `on ${origin}\n${output()}` },
    );
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) await stop('SIGKILL');
    else await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    throw error;
  }
  return { child, origin, key: key!, stdout: () => stdout, stderr: () => stderr, stop };
}

export interface PageWatch {
  /** Every URL the page requested, in order. */
  requests: string[];
  /**
   * Console messages of type error, and page errors. Chromium logs every answer of 4xx or 5xx the page fetched as
   * one ("Failed to load resource: the server responded with a status of 404"), so a suite that sends requests
   * expected to fail filters those out.
   */
  errors: string[];
  /** Requests to any origin but `origin` (data: and blob: URLs never leave the page). */
  foreign(): string[];
  /** Console errors that name the Content Security Policy. */
  cspErrors(): string[];
}

/** Records what a page requests and every error it reports, from now on. */
export function watchPage(page: Page, origin: string): PageWatch {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return {
    requests,
    errors,
    foreign: () => requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin),
    cspErrors: () => errors.filter((text) => /Content Security Policy|Content-Security-Policy/i.test(text)),
  };
}

/** Writes a full-page screenshot to test/browser/screenshots/<name>.png (gitignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  // A picture half-way through a transition is still a picture: waiting is best effort here.
  await settled(page).catch(() => {});
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/**
 * A TLS-terminating proxy in front of `target` (what an operator puts in front of Patron for https), listening on
 * every interface and reached through the machine's hostname; its certificate is self-signed, so a page opened
 * through it needs a context with ignoreHTTPSErrors.
 */
export async function httpsProxy(target: string): Promise<{ origin: string; close(): Promise<void> }> {
  const { key, cert } = await loopbackCertificate();
  const upstream = new URL(target);
  const server = createHttpsServer({ key, cert }, (request, response) => {
    const forwarded = httpRequest(
      {
        host: '127.0.0.1',
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
  return {
    origin: `https://${hostname()}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Operation {
  /** The OpenAPI tag the operation is listed under. */
  tag: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as the document names it, under the server URL /v1: '/organization', '/products/{productId}'. */
  path: string;
}

/**
 * The API reference at /docs (Scalar) driven as a person drives it: open it, fill the bearer key in, open an
 * operation's "Test Request" client, send, read the status it shows.
 */
export const docs = {
  /** Opens origin/docs (plus `fragment`, e.g. '#key=sk_…') and waits until the operations are listed. */
  async open(page: Page, origin: string, fragment = ''): Promise<void> {
    await page.goto(`${origin}/docs${fragment}`, { waitUntil: 'load' });
    await docs.sidebar(page).locator('li[data-sidebar-id*="/tag/"]').first().waitFor({ timeout: 30_000 });
  },

  /** The reference's navigation (the API client has one of its own, hidden until opened). */
  sidebar: (page: Page) => page.locator('aside[aria-label^="Sidebar for"]'),

  /** The tags the sidebar lists, in order. */
  async tags(page: Page): Promise<string[]> {
    const ids = await docs
      .sidebar(page)
      .locator('li[data-sidebar-id]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-sidebar-id') ?? ''));
    return [...new Set(ids.map((id) => /\/tag\/([^/]+)$/.exec(id)?.[1]).filter((tag) => tag !== undefined))];
  },

  /** Types the key into the reference's Authentication box (bearerAuth); every operation's client then sends it. */
  async authorize(page: Page, key: string): Promise<void> {
    await page.getByPlaceholder('Token').filter({ visible: true }).first().fill(key);
  },

  /** Scrolls the reference to the operation (through the sidebar) and opens its "Test Request" client. */
  async openOperation(page: Page, operation: Operation): Promise<void> {
    const id = `/tag/${operation.tag}/${operation.method}${operation.path}`;
    const sidebar = docs.sidebar(page);
    const group = sidebar.locator(`li[data-sidebar-id$="/tag/${operation.tag}"] > div > button`);
    if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
    await sidebar.locator(`li[data-sidebar-id$="${id}"] button`).first().click();
    const section = page.locator(`section[id$="${id}"]`);
    await section.locator('.show-api-client-button').click();
    await docs.sendButton(page).waitFor();
  },

  /** Shows the open client's own list of operations (hidden behind a toggle until asked for). */
  async showClientSidebar(page: Page): Promise<void> {
    const toggle = docs.client(page).locator('.scalar-sidebar-toggle');
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    await docs.client(page).locator('li[data-sidebar-id]').first().waitFor();
  },

  /**
   * Moves the open client to another operation through its own list (as a person does to try several in a row),
   * and waits until the client marks it (or its example) selected. An operation with named examples is a group
   * whose button opens its first example; one without is a single button.
   */
  async selectInClient(page: Page, operation: Operation): Promise<void> {
    const client = docs.client(page);
    const tagGroup = client.locator(`li[data-sidebar-id$="/tag/${operation.tag}"] > div > button`);
    if ((await tagGroup.getAttribute('aria-expanded')) === 'false') await tagGroup.click();
    const id = `/tag/${operation.tag}/${operation.method}${operation.path}`;
    const item = client.locator(`li[data-sidebar-id$="${id}"]`);
    const group = item.locator(':scope > div > button');
    if ((await group.count()) === 0) {
      await item.locator(':scope > button').click();
    } else {
      // A click on an open group closes it (the client may have opened it beside another selection): open it only
      // when closed, then take its first example.
      if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
      await item.locator(`li[data-sidebar-id*="${id}/example/"] button`).first().click();
    }
    await item.locator('button[aria-selected="true"]').first().waitFor();
  },

  /**
   * The client's Send button, named for screen readers "Send <method> request to <url>": the client's own list has
   * operations whose summaries begin with "Send" too.
   */
  sendButton: (page: Page) => docs.client(page).getByRole('button', { name: /^\s*Send \w+ request to / }),

  /** The open API client (the "Test Request" modal). */
  client: (page: Page) => page.getByRole('dialog', { name: 'API Client' }),

  /** Types a value into a row of the open client (a path variable, query parameter or header, by its name). */
  async fill(page: Page, name: string, value: string): Promise<void> {
    // The value is a code editor (contenteditable): it takes typed keys, not fill().
    const editor = docs
      .client(page)
      .locator(`tr[id="${name}"]`)
      .first()
      .locator('[aria-label$=" Value"] [role="textbox"]');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(value);
    // The client writes edits to its request debounced (about 330 ms in this Scalar); a Send before that sends the
    // old value, and nothing on the page shows when it has happened.
    await page.waitForTimeout(1_000);
  },

  /**
   * Clicks Send in the open client; resolves with the status the server answered and the status line the page
   * shows for it.
   */
  async send(
    page: Page,
    origin: string,
    { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
  ): Promise<{ method: string; url: string; status: number; authorization: string | undefined; shown: string }> {
    const answered = page.waitForResponse((response) => response.url().startsWith(`${origin}/v1/`), {
      timeout: timeoutMs,
    });
    await docs.sendButton(page).click();
    const response = await answered;
    const status = response.status();
    const shown = docs
      .client(page)
      .getByText(new RegExp(`^${status}\\b`))
      .first();
    await shown.waitFor();
    return {
      method: response.request().method(),
      url: response.url(),
      status,
      authorization: (await response.request().allHeaders())['authorization'],
      shown: (await shown.textContent()) ?? '',
    };
  },

  /** Closes the open client. */
  async closeClient(page: Page): Promise<void> {
    await page.keyboard.press('Escape');
    await docs.client(page).waitFor({ state: 'hidden' });
  },
};

/** axe-core's own script, injected into a page through the DevTools protocol (which a page's CSP does not govern). */
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** The offending elements' selectors and what axe found wrong with each. */
  nodes: { target: string; summary: string }[];
}

/**
 * Waits until no CSS transition or animation is running: a drawer or dialog fading in is, for a moment, text at a
 * fraction of its opacity, which axe measures as too little contrast and a screenshot catches half drawn.
 */
export async function settled(page: Page, withinMs = 10_000): Promise<void> {
  // Polled with evaluate (through the DevTools protocol): waitForFunction evaluates a string in the page, which the
  // dashboard's Content-Security-Policy (no 'unsafe-eval') refuses.
  await vi.waitFor(
    async () => {
      const running = await page.evaluate<number>(
        `document.getAnimations().filter((animation) => animation.playState === 'running' && animation.effect?.getTiming().iterations !== Infinity).length`,
      );
      if (running > 0) throw new Error(`${running} transitions still running after ${withinMs} ms`);
    },
    { timeout: withinMs, interval: 50 },
  );
}

/**
 * Runs axe-core (WCAG 2.0/2.1 A and AA rules and best practices) on the page as it is now, once its transitions have
 * ended, and returns the violations of the impacts given (serious and critical by default).
 */
export async function axeViolations(
  page: Page,
  impacts: readonly string[] = ['serious', 'critical'],
): Promise<AxeViolation[]> {
  await settled(page);
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`window.axe
    .run(document, { resultTypes: ['violations'] })
    .then((results) => results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.join(' '), summary: node.failureSummary || '' })),
    })))`);
  return violations.filter((violation) => violation.impact !== null && impacts.includes(violation.impact));
}

/** dashboard/dist's index.html: what `npm run build` writes and the server serves at /dashboard. */
const DASHBOARD_INDEX = join(ROOT, 'dashboard/dist/index.html');
const DASHBOARD_SOURCES = [
  'dashboard/src',
  'dashboard/index.html',
  'dashboard/vite.config.ts',
  'clients/typescript/src',
];

async function newestChange(path: string): Promise<number> {
  const stats = await stat(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  const entries = await readdir(path);
  const times = await Promise.all(entries.map((entry) => newestChange(join(path, entry))));
  return Math.max(stats.mtimeMs, ...times);
}

/**
 * Builds the typed client and the dashboard (as `npm run build` does) when dashboard/dist is missing or older than
 * their sources, so the browser suite tests the dashboard of this checkout, fresh clone included.
 */
export async function ensureDashboardBuilt(): Promise<void> {
  const built = await stat(DASHBOARD_INDEX).then(
    (stats) => stats.mtimeMs,
    () => 0,
  );
  const sources = Math.max(...(await Promise.all(DASHBOARD_SOURCES.map((path) => newestChange(join(ROOT, path))))));
  if (built > sources) return;
  for (const workspace of ['@patron/client', '@patron/dashboard']) {
    // NODE_ENV is 'test' under vitest; Vite would then bundle React's development build.
    const child = spawn('npm', ['run', 'build', '-w', workspace], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    endWithThisProcess(child);
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exit = await exitOf(child);
    if (exit.code !== 0)
      throw new Error(`npm run build -w ${workspace} failed (${exit.code ?? exit.signal}):\n${output}`);
  }
}

/**
 * Signs in on the dashboard with a one-time link (`…/dashboard/sign-in#token=…`, which `npm start` prints for the demo
 * owner and `patron user create` prints for a new user), opened on `origin`; resolves once the signed-in layout shows
 * (the organization's name in the header).
 */
export async function signIn(page: Page, origin: string, link: string): Promise<void> {
  const { pathname, hash } = new URL(link);
  await page.goto(`${origin}${pathname}${hash}`, { waitUntil: 'load' });
  await page.getByTestId('organization-name').waitFor({ timeout: 30_000 });
}
