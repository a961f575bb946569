// Export jobs: POST /v1/export-jobs of 1,000,000 orders without includes to CSV, from the POST to the job read back as
// succeeded, in rows per second; against `psql \copy` of the same columns to a file in the same run (the floor);
// the server's peak RSS growth during the export; and GET /v1/orders (limit 50) p99 under an open-loop load during
// an export against the same load without one.
//
//   node --import tsx bench/export-jobs.ts        (npm run bench:export-jobs)
//
// Targets: ≥ 100,000 rows/s; ≥ 0.5 × the floor's rows/s; peak RSS growth ≤ 150 MB; p99 during ≤ 2 × p99 without.
// Dataset: bench/datasets/analytics-dataset.ts (one organization with 1,000,000 orders, built when missing). Patron
// is the compiled server as a child process, with EXPORT_MAX_ROWS=1000000 (the default allows 100,000). A round is
// the floor, the export alone, the open-loop load alone, then the same load during exports; the downloaded
// file of the first export is checked (a header and one line per order). The job is read every 100 ms. The load runs
// BENCH_LOAD_S seconds alone, then as long again with exports started one after another until it ends (the last
// export may outlast it), so every request meets an export.
// Tunables (env): BENCH_ROUNDS (2), BENCH_RATE (list requests per second, 40), BENCH_LOAD_S (15), BENCH_QUIET_WAIT_S.
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ensureAnalyticsDataset } from './datasets/analytics-dataset.js';
import { openLoop } from './support/open-loop.js';
import {
  build,
  cpuMs,
  databaseCpuMs,
  log,
  saveResult,
  startPatron,
  table,
  waitForQuiet,
  withRss,
  type Server,
} from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RATE = Number(process.env.BENCH_RATE ?? 40);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_S ?? 15);
const ROWS = 1_000_000;
const TARGET_ROWS_PER_SEC = 100_000;
const TARGET_FLOOR_RATIO = 0.5;
const TARGET_RSS_MB = 150;
const TARGET_P99_RATIO = 2;
const DATABASE = 'patron_bench_analytics';

/**
 * The floor: psql's \copy of the columns the export writes (the order's fields, its one metadata key), in the
 * export's order, as CSV with a header, into a file.
 */
function floor(databaseUrl: string, organizationId: string, file: string): number {
  const query = `select id, site_id, customer_id, remote_id, number, total_cents, subtotal_cents, shipping_cents,
    tax_cents, currency_code, shipped_at, delivered_at, cancelled_at, metadata->>'channel', notes, created_at, updated_at
    from orders where organization_id = '${organizationId}' order by created_at desc, id desc`;
  const t0 = performance.now();
  execFileSync('psql', [databaseUrl, '-q', '-c', `\\copy (${query.replace(/\s+/g, ' ')}) to '${file}' csv header`]);
  const ms = performance.now() - t0;
  const bytes = statSync(file).size;
  rmSync(file);
  log(`  floor: ${ms.toFixed(0)} ms, ${(bytes / 1e6).toFixed(0)} MB`);
  return (ROWS * 1000) / ms;
}

interface Exported {
  id: string;
  ms: number;
  rowsPerSec: number;
  rssGrowthMb: number | null;
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

async function exportOrders(server: Server, key: string): Promise<Exported> {
  const pid = server.child.pid;
  const cpu = [cpuMs(pid), databaseCpuMs(DATABASE)];
  const t0 = performance.now();
  const { value: id, rssGrowthMb } = await withRss(server, () => runExport(server, key));
  const ms = performance.now() - t0;
  const after = [cpuMs(pid), databaseCpuMs(DATABASE)];
  const delta = (i: number) =>
    cpu[i] === null || cpu[i] === undefined || after[i] === null || after[i] === undefined ? null : after[i]! - cpu[i]!;
  return {
    id,
    ms,
    rowsPerSec: (ROWS * 1000) / ms,
    rssGrowthMb,
    serverCpuMs: delta(0),
    databaseCpuMs: delta(1),
  };
}

/** Makes the export and reads it every 100 ms until it succeeded: its id. */
async function runExport(server: Server, key: string): Promise<string> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const response = await fetch(`${server.baseUrl}/v1/export-jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ resource: 'orders', format: 'csv' }),
  });
  const started = (await response.json()) as { id: string };
  if (response.status !== 202) throw new Error(`POST /v1/export-jobs: ${response.status} ${JSON.stringify(started)}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const poll = await fetch(`${server.baseUrl}/v1/export-jobs/${started.id}`, { headers });
    const job = (await poll.json()) as { status: string; rowsProcessed: number; error: string | null };
    if (job.status === 'queued' || job.status === 'running') continue;
    if (job.status !== 'succeeded' || job.rowsProcessed !== ROWS)
      throw new Error(`export ${started.id} ended ${job.status} with ${job.rowsProcessed} rows: ${job.error}`);
    return started.id;
  }
}

/** The downloaded file holds a header and one line per order (no order has notes with line breaks here). */
async function checkDownload(server: Server, key: string, id: string): Promise<void> {
  const response = await fetch(`${server.baseUrl}/v1/export-jobs/${id}/download`, {
    headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
  });
  if (response.status !== 200) throw new Error(`download answered ${response.status}`);
  const text = Buffer.from(await response.arrayBuffer());
  const plain = text[0] === 0x1f && text[1] === 0x8b ? gunzipSync(text) : text;
  let lines = 0;
  for (const byte of plain) if (byte === 0x0a) lines += 1;
  if (lines !== ROWS + 1) throw new Error(`the export's file has ${lines} lines, not ${ROWS + 1}`);
  const header = plain.subarray(0, plain.indexOf(0x0a)).toString();
  log(`  download: ${(text.length / 1e6).toFixed(1)} MB as sent, ${lines} lines; header ${header}`);
}

async function listLoad(server: Server, key: string, seconds: number) {
  const result = await openLoop({
    baseUrl: server.baseUrl,
    targets: [{ name: 'orders', path: '/v1/orders?limit=50' }],
    headers: { authorization: `Bearer ${key}` },
    rate: RATE,
    durationS: seconds,
  });
  const target = result.targets[0]!;
  if (target.errors) throw new Error(`GET /v1/orders: ${target.errors} errors`);
  return target.latency;
}

async function main(): Promise<void> {
  const dataset = await ensureAnalyticsDataset();
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-export-jobs-'));
  let server: Server | null = null;
  const rounds: {
    round: number;
    floorRowsPerSec: number;
    alone: Exported;
    p99Without: number;
    p99During: number;
    during: Exported;
  }[] = [];
  try {
    server = await startPatron('patron', workDir, {
      DATABASE_URL: dataset.databaseUrl,
      EXPORT_MAX_ROWS: String(ROWS),
    });
    log('warm-up: 5 s of the list load (not reported)');
    await listLoad(server, dataset.key, 5);
    for (let round = 1; round <= ROUNDS; round++) {
      await waitForQuiet(`round ${round}`);
      const floorRowsPerSec = floor(dataset.databaseUrl, dataset.organizationId, join(workDir, 'floor.csv'));
      const alone = await exportOrders(server, dataset.key);
      log(`  export alone: ${JSON.stringify(alone)}`);
      if (round === 1) await checkDownload(server, dataset.key, alone.id);
      const without = await listLoad(server, dataset.key, LOAD_SECONDS);
      log(`  list alone (${LOAD_SECONDS} s at ${RATE}/s): ${JSON.stringify(without)}`);
      // Exports one after another for as long as the load runs, so every request meets one.
      let loading = true;
      const load = listLoad(server, dataset.key, LOAD_SECONDS).finally(() => (loading = false));
      const exports: Exported[] = [];
      while (loading) exports.push(await exportOrders(server, dataset.key));
      const during = await load;
      const withExport = exports[0]!;
      log(
        `  list during ${exports.length} exports: ${JSON.stringify(during)}; first export ${JSON.stringify(withExport)}`,
      );
      rounds.push({
        round,
        floorRowsPerSec,
        alone,
        p99Without: without.p99,
        p99During: during.p99,
        during: withExport,
      });
    }
  } finally {
    await server?.stop();
    await rm(workDir, { recursive: true, force: true });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rowsPerSec = median(rounds.map((r) => r.alone.rowsPerSec));
  const floorRatio = median(rounds.map((r) => r.alone.rowsPerSec / r.floorRowsPerSec));
  const rss = Math.max(...rounds.flatMap((r) => [r.alone.rssGrowthMb ?? 0, r.during.rssGrowthMb ?? 0]));
  const p99Ratio = median(rounds.map((r) => r.p99During / r.p99Without));
  const fmt = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
  console.log(
    table(
      ['round', 'floor rows/s', 'export rows/s', 'ratio', 'RSS growth MB', 'CPU Patron/PG ms', 'p99 without/during ms'],
      rounds.map((r) => [
        String(r.round),
        fmt(r.floorRowsPerSec),
        fmt(r.alone.rowsPerSec),
        (r.alone.rowsPerSec / r.floorRowsPerSec).toFixed(2),
        fmt(r.alone.rssGrowthMb, 1),
        `${fmt(r.alone.serverCpuMs)} / ${fmt(r.alone.databaseCpuMs)}`,
        `${r.p99Without.toFixed(1)} / ${r.p99During.toFixed(1)}`,
      ]),
    ),
  );
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `export of ${ROWS} orders to CSV: ${rowsPerSec.toFixed(0)} rows/s (target ≥ ${TARGET_ROWS_PER_SEC}: ${verdict(rowsPerSec >= TARGET_ROWS_PER_SEC)}); ` +
      `${floorRatio.toFixed(2)} × psql \\copy (target ≥ ${TARGET_FLOOR_RATIO}: ${verdict(floorRatio >= TARGET_FLOOR_RATIO)}); ` +
      `peak RSS growth ${rss.toFixed(1)} MB (target ≤ ${TARGET_RSS_MB}: ${verdict(rss <= TARGET_RSS_MB)}); ` +
      `GET /v1/orders p99 during ${p99Ratio.toFixed(2)} × without (target ≤ ${TARGET_P99_RATIO}: ${verdict(p99Ratio <= TARGET_P99_RATIO)})`,
  );
  const result = { rowsPerSec, floorRatio, rssGrowthMb: rss, p99Ratio, rate: RATE, rounds };
  saveResult('export-jobs', result);
  console.log(`RESULT ${JSON.stringify({ rowsPerSec, floorRatio, rssGrowthMb: rss, p99Ratio })}`);
}

await main();
