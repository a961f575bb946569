// The dashboard's overview in headless Chromium over 1,000,000 orders on PostgreSQL (issue 20's figure: first
// meaningful paint ≤ 1.5 s), and the shell's size.
//
//   npm run bench:dashboard-overview        BENCH_ROUNDS (default 5) navigations per range
//
// The analytics dataset (bench/datasets/analytics-dataset.ts: one organization, 1,000,000 orders over 2024-2025 in
// Berlin) is built when missing. A dashboard owner is made with `patron user create`, signed in once through the
// one-time link; then each round opens a new tab on /dashboard/overview?from=…&to=…&tz=Europe/Berlin and times, from the
// navigation's start, until every chart holds its answer (the page's data-overview-state="ready": no request in
// flight, so every chart is drawn). That is later than a first meaningful paint, which the first chart already is:
// the figure errs on the slow side. The browser's cache is warm after the first round (hashed assets are immutable),
// as for a person who opens the dashboard daily; the first round, with a cold cache, is reported apart.
//
// The floor, in the same run: the same navigation over a range without orders (December 2023), where the page,
// session and organization cost the same and every analytics query answers at once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureAnalyticsDataset, TIMEZONE } from './datasets/analytics-dataset.js';
import { build, CLI, log, ROOT, saveResult, serverEnv, startServer, summarize, table } from './support/harness.js';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/browser/support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RANGES = [
  { label: 'floor: December 2023 (no orders)', from: '2023-12-01', to: '2023-12-31', hasOrders: false },
  { label: 'December 2025 (30 days, daily)', from: '2025-12-01', to: '2025-12-31', hasOrders: true },
  { label: '2025 (a year, weekly)', from: '2025-01-01', to: '2025-12-31', hasOrders: true },
  { label: '2024-2025 (two years, weekly)', from: '2024-01-01', to: '2025-12-31', hasOrders: true },
];

/** The gzipped size of the shell's scripts (what every page loads) and of the overview's own chunk. */
function bundleSizes(): { shellKb: number; overviewKb: number } {
  const html = readFileSync(join(ROOT, 'dashboard/dist/index.html'), 'utf8');
  // The entry script and the chunks it imports statically (index.html preloads them), as `npm run size:dashboard`.
  const scripts = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((match) => match[1]!);
  const gz = (file: string) => gzipSync(readFileSync(join(ROOT, 'dashboard/dist', file))).length / 1024;
  const assets = execFileSync('ls', [join(ROOT, 'dashboard/dist/assets')], { encoding: 'utf8' }).split('\n');
  const overview = assets.find((name) => /^OverviewPage-.*\.js$/.test(name));
  return {
    shellKb: scripts.reduce((sum, file) => sum + gz(file), 0),
    overviewKb: overview ? gz(`assets/${overview}`) : NaN,
  };
}

const READY_PROBE = `(() => {
  const check = () => {
    if (document.querySelector('[data-overview-state="ready"] .recharts-surface')) window.__overviewReadyAt = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

/** Waits for READY_PROBE's time (ms from the navigation's start). */
async function readyAt(page: Page): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const at = await page.evaluate<number | undefined>('window.__overviewReadyAt');
    if (at !== undefined) return at;
    if (Date.now() > deadline) throw new Error(`the overview was not ready within 60 s: ${page.url()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function main(): Promise<void> {
  const dataset = await ensureAnalyticsDataset();
  build();
  const workDir = mkdtempSync(join(tmpdir(), 'patron-bench-dashboard-'));
  const env = serverEnv({
    DATABASE_URL: dataset.databaseUrl,
    LOG_LEVEL: 'warn',
    PATRON_DATA_DIR: join(workDir, 'data'),
  });
  const server = await startServer('serve', [CLI, 'serve'], env, workDir);
  const chromium = await launchChromium();
  try {
    const email = `bench-${Date.now()}@bench.invalid`;
    const created = JSON.parse(
      execFileSync(
        process.execPath,
        [CLI, 'user', 'create', '--org', dataset.organizationId, '--email', email, '--role', 'owner', '--json'],
        { cwd: ROOT, env: { ...env, PATRON_URL: server.baseUrl }, encoding: 'utf8' },
      ),
    ) as { signInLink: string };
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const signIn = await context.newPage();
    await signIn.goto(created.signInLink);
    await signIn.waitForURL((url) => !url.pathname.endsWith('/sign-in'), { timeout: 30_000 });
    await signIn.close();

    const rows: string[][] = [];
    const results: Record<string, unknown> = {};
    for (const range of RANGES) {
      const times: number[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        const page = await context.newPage();
        // Checked every animation frame from the document's start, by a script the browser adds before the page's
        // own (the dashboard's CSP refuses a string evaluated in the page, as waitForFunction does): the time of the
        // first frame in which every chart held its answer.
        await page.addInitScript(READY_PROBE);
        const url = `${server.baseUrl}/dashboard/overview?from=${range.from}&to=${range.to}&tz=${encodeURIComponent(TIMEZONE)}`;
        await page.goto(url, { waitUntil: 'commit' });
        const ms = await readyAt(page);
        // The range measured is the one asked for: a range with orders must not say it has none.
        if (range.hasOrders && (await page.getByText('No orders in these days').count()) > 0)
          throw new Error(`${range.label}: the page says the range has no orders (${page.url()})`);
        // Round 0 warms the database's and the browser's caches for this range; it is not counted.
        if (round > 0) times.push(ms);
        else log(`${range.label}: first navigation ${ms.toFixed(0)} ms (not counted)`);
        await page.close();
      }
      const summary = summarize(times);
      results[range.label] = summary;
      rows.push([range.label, summary.p50.toFixed(0), Math.min(...times).toFixed(0), summary.max.toFixed(0)]);
    }
    const sizes = bundleSizes();
    const floor = (results[RANGES[0]!.label] as { p50: number }).p50;
    log(
      table(
        ['overview range (Europe/Berlin)', 'ready p50 ms', 'min', 'max', 'p50 against the floor'],
        rows.map((row) => [...row, `${(Number(row[1]) / floor).toFixed(2)} × floor`]),
      ),
    );
    log(
      `shell JavaScript ${sizes.shellKb.toFixed(1)} KB gzipped (≤ 250); overview chunk ${sizes.overviewKb.toFixed(1)} KB`,
    );
    saveResult('dashboard-overview', { rounds: ROUNDS, results, sizes });
    await context.close();
  } finally {
    await chromium.close();
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
