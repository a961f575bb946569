/**
 * /docs in a real browser (Debian's Chromium, headless), loaded the way a person on another machine loads it:
 * `patron serve` bound to HOST=0.0.0.0 and reached through the machine's hostname over plain http, and through a
 * TLS-terminating proxy over https. The page must render every operation from that origin alone (nothing from a CDN,
 * nothing upgraded to https), without a Content Security Policy error, and its "Test Request" client must reach the
 * API with the key (docs/api.md#the-api-reference).
 */
import { hostname } from 'node:os';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
import {
  chromiumMissing,
  docs,
  httpsProxy,
  launchChromium,
  screenshot,
  serveOnHostname,
  watchPage,
  type LaunchedChromium,
  type PageWatch,
  type ServedOnHostname,
} from './support.js';

const ORGANIZATION = { tag: 'organization', method: 'GET', path: '/organization' } as const;
type Json = Record<string, any>;

// The page does not depend on the engine: it runs on the embedded database only (once per CI run).
describe.skipIf(chromiumMissing !== null || Boolean(postgresUrl))(
  '/docs in Chromium, served on HOST=0.0.0.0 and opened by hostname',
  () => {
    let server: ServedOnHostname;
    let chromium: LaunchedChromium;
    let context: BrowserContext;
    let documentTags: string[];
    let document: Json;

    beforeAll(async () => {
      // The demo world's webhook examples name a receiver on this machine (docs/api.md#documented-examples-and-the-demo-world).
      [server, chromium] = await Promise.all([
        serveOnHostname({ ALLOW_HTTP_WEBHOOKS: '1', WEBHOOK_ALLOW_PRIVATE_HOSTS: '1' }),
        launchChromium(),
      ]);
      context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
      document = (await (await fetch(`${server.origin}/openapi.json`)).json()) as Json;
      documentTags = (document.tags as { name: string }[]).map((tag) => tag.name);
    }, 120_000);

    afterAll(async () => {
      await Promise.allSettled([
        server?.stop(),
        (async () => {
          await context?.close().catch(() => {});
          await chromium?.close();
        })(),
      ]);
    });

    /** A new page whose requests and errors are recorded from the start. */
    async function newPage(origin: string, on: BrowserContext = context): Promise<{ page: Page; watch: PageWatch }> {
      const page = await on.newPage();
      // Every refusal by the Content Security Policy, whether or not the console reports it.
      await page.addInitScript(
        "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (event) => window.__cspViolations.push(event.blockedURI + ' ' + event.violatedDirective));",
      );
      return { page, watch: watchPage(page, origin) };
    }

    /** Nothing left the origin, and the page reported no error (a CSP refusal is one). */
    function expectSelfContained(watch: PageWatch): void {
      expect(watch.foreign(), 'requests to another origin').toEqual([]);
      expect(watch.cspErrors(), 'Content Security Policy errors').toEqual([]);
      expect(watch.errors, 'console errors').toEqual([]);
    }

    it('is served on a non-loopback hostname', () => {
      expect(hostname()).not.toMatch(/^(localhost|127\.|\[?::1)/);
      expect(server.origin).toBe(`http://${hostname()}:${new URL(server.origin).port}`);
    });

    it('renders every tag and operation over plain http from its own origin only, without a CSP error', async () => {
      const { page, watch } = await newPage(server.origin);
      try {
        await docs.open(page, server.origin);
        await expect.poll(() => docs.tags(page), { timeout: 15_000 }).toEqual(documentTags);
        await page.getByRole('heading', { name: 'Patron API' }).first().waitFor();
        await page.locator('section[id$="/tag/organization/GET/organization"]').waitFor();
        expect(await page.title()).toBe('Patron API reference');
        // The page, its two scripts and the document, all from the origin it was opened on (http, not upgraded).
        expect(watch.requests).toEqual(
          expect.arrayContaining([
            `${server.origin}/docs`,
            `${server.origin}/docs/scalar.js`,
            `${server.origin}/docs/init.js`,
            `${server.origin}/openapi.json`,
          ]),
        );
        await screenshot(page, 'docs');
        // No control that needs Scalar's cloud: the "Ask AI" agent is turned off (docs/api.md#the-api-reference).
        expect(await page.getByText(/Ask AI/i).count(), '"Ask AI" controls').toBe(0);
        expect(await page.getByPlaceholder(/Ask AI/i).count(), '"Ask AI" inputs').toBe(0);
        expect(await page.evaluate<string[]>('window.__cspViolations'), 'CSP violation events').toEqual([]);
        expectSelfContained(watch);
      } finally {
        await page.close();
      }
    });

    it('authorized with the key, "Test Request" on GET /v1/organization answers 200 in the page', async () => {
      const { page, watch } = await newPage(server.origin);
      try {
        await docs.open(page, server.origin);
        await docs.authorize(page, server.key);
        await docs.openOperation(page, ORGANIZATION);
        const answer = await docs.send(page, server.origin);
        expect(answer).toMatchObject({ status: 200, authorization: `Bearer ${server.key}` });
        expect(answer.shown).toMatch(/^200\b/);
        await expect.poll(() => docs.client(page).textContent()).toContain('"name": "Demo"');
        await screenshot(page, 'docs-test-request');
        expectSelfContained(watch);
      } finally {
        await page.close();
      }
    });

    it("the banner's sign-in link opens the reference with the key filled in, and takes the key out of the address bar", async () => {
      const link = /^\s+(http:\/\/\S+\/docs#key=sk_\S+)$/m.exec(server.stderr())?.[1];
      expect(link, server.stderr()).toBeDefined();
      // The banner names the loopback address for HOST=0.0.0.0; from another machine it is the same path.
      const fragment = new URL(link!).hash;
      const { page, watch } = await newPage(server.origin);
      try {
        await docs.open(page, server.origin, fragment);
        // The key is gone from the address; the reference may have put its own section there since
        // (#description/introduction), depending on how fast the page settled.
        const address = new URL(page.url());
        expect(`${address.origin}${address.pathname}`).toBe(`${server.origin}/docs`);
        expect(address.hash).not.toContain('key=');
        expect(page.url()).not.toContain(server.key);
        await docs.openOperation(page, ORGANIZATION);
        const answer = await docs.send(page, server.origin);
        expect(answer).toMatchObject({ status: 200, authorization: `Bearer ${server.key}` });
        expect(watch.requests.join('\n')).not.toContain(server.key);
        // Kept for this page only: nothing the browser keeps for the site holds it.
        const stored = await page.evaluate<string>(
          'JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie])',
        );
        expect(stored).not.toContain(server.key);
        expectSelfContained(watch);
      } finally {
        await page.close();
      }
    });

    // A key cannot act for a dashboard session: the reference says so on those operations, and "Test Request" with the
    // key gets their documented 403. Signing in (public) sends the demo owner's demo password: its documented 201.
    it('"Test Request" with its pre-filled example answers the documented success status on every operation a key may call', async () => {
      const operations = Object.entries(document.paths as Record<string, Json>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation: operation as Json })),
      );
      const failures: string[] = [];
      const reopened: string[] = [];
      let sent = 0;
      // Each page opens "Test Request" once and then moves from operation to operation through the client's own list,
      // as a person trying several in a row does; closing and reopening the client for each one cost about four
      // seconds an operation on two cores. Two pages take operations from one queue: the examples work once each in
      // any order, and the reference's rendering, not the server, is what each operation waits for.
      const queue = [...operations];
      const worker = async () => {
        const { page, watch } = await newPage(server.origin);
        let refusals = 0;
        const openClient = async () => {
          await docs.openOperation(page, ORGANIZATION);
          await docs.showClientSidebar(page);
        };
        // A client that did not send may not answer any more clicks: the page starts afresh.
        const reload = async () => {
          await docs.open(page, server.origin);
          await docs.authorize(page, server.key);
        };
        try {
          await docs.open(page, server.origin);
          await docs.authorize(page, server.key);
          await openClient();
          for (let next = queue.shift(); next; next = queue.shift()) {
            const { path, method, operation } = next;
            // Session-only operations refuse every key, and test-mode-only ones a live key, as this one is
            // (docs/api.md#test-mode).
            const refusedToKey = operation['x-session-only'] || operation['x-test-mode-only'] ? '403' : null;
            if (refusedToKey) refusals += 1;
            const success = refusedToKey
              ? [refusedToKey]
              : Object.keys(operation.responses).filter((status) => status.startsWith('2'));
            const name = `${operation.operationId} (${method.toUpperCase()} ${path})`;
            try {
              const target = { tag: operation.tags[0], method: method.toUpperCase() as 'GET', path };
              let answer: Awaited<ReturnType<typeof docs.send>>;
              try {
                await docs.selectInClient(page, target);
                answer = await docs.send(page, server.origin, { timeoutMs: 10_000 });
              } catch {
                // An operation the client's list did not bring up, or whose request did not come back in time, is
                // tried once more from the reference's own "Test Request" button, as a person would, and is named
                // in the output (a walk that passes needed none).
                reopened.push(name);
                await reload();
                await docs.openOperation(page, target);
                answer = await docs.send(page, server.origin);
                await docs.closeClient(page);
                await openClient();
              }
              sent += 1;
              // The request is the operation's own: its method, and its path with the example's values filled in.
              const pathPattern = new RegExp(`^/v1${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
              if (answer.method !== method.toUpperCase() || !pathPattern.test(new URL(answer.url).pathname))
                failures.push(`${name}: sent ${answer.method} ${answer.url}`);
              if (!success.includes(String(answer.status))) failures.push(`${name}: ${answer.status} ${answer.url}`);
              // The example's query (a bulk update's filter) is sent, not left out as optional.
              const query = (operation.parameters ?? []).filter(
                (parameter: Json) => parameter.examples?.[operation.operationId],
              );
              for (const parameter of query) {
                const sentValue = new URL(answer.url).searchParams.get(parameter.name);
                if (sentValue !== parameter.examples[operation.operationId].value)
                  failures.push(`${name}: ${parameter.name} not sent`);
              }
            } catch (error) {
              failures.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
              // Start the client afresh for the next operation; a page that cannot leaves the rest to the other.
              await screenshot(page, `docs-example-${operation.operationId}`).catch(() => {});
              await reload();
              await openClient();
            }
          }
          // Chromium logs nothing but the answers here: none failed but the refusals above, which it logs as errors.
          const refused = watch.errors.filter((error) => /status of 40[13] /.test(error));
          expect(refused.length, refused.join('\n')).toBeLessThanOrEqual(refusals);
          expectSelfContained({ ...watch, errors: watch.errors.filter((error) => !refused.includes(error)) });
        } finally {
          await page.close();
        }
      };
      const pages = await Promise.allSettled(Array.from({ length: 2 }, worker));
      for (const ended of pages) if (ended.status === 'rejected') failures.push(`a page stopped: ${ended.reason}`);
      if (reopened.length > 0) console.log(`sent from the reference's own "Test Request": ${reopened.join(', ')}`);
      expect(failures).toEqual([]);
      expect(sent).toBe(operations.length);
    }, 600_000);

    it('works over https behind a TLS-terminating proxy: everything from the https origin, "Test Request" too', async () => {
      const proxy = await httpsProxy(`http://127.0.0.1:${new URL(server.origin).port}`);
      const secure = await chromium.browser.newContext({
        viewport: { width: 1280, height: 900 },
        ignoreHTTPSErrors: true,
      });
      try {
        const { page, watch } = await newPage(proxy.origin, secure);
        await docs.open(page, proxy.origin);
        await expect.poll(() => docs.tags(page), { timeout: 15_000 }).toEqual(documentTags);
        await docs.authorize(page, server.key);
        await docs.openOperation(page, ORGANIZATION);
        expect(await docs.send(page, proxy.origin)).toMatchObject({ status: 200 });
        expect(watch.requests.every((url) => url.startsWith(`${proxy.origin}/`))).toBe(true);
        expectSelfContained(watch);
      } finally {
        await secure.close();
        await proxy.close();
      }
    });
  },
);

if (chromiumMissing) {
  describe('/docs in Chromium', () => {
    it.skip(chromiumMissing!, () => {});
  });
}
