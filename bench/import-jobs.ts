// Import jobs: POST /v1/import-jobs of 100,000 orders × 3 items (CSV, earnLoyalty false), end to end (the upload's
// first byte to the job read back as succeeded), in rows per second, against the same rows sent as 100 synchronous
// POST /v1/orders/import requests of 1,000 rows one after another, in the same run; and the server's peak RSS growth
// during the job.
//
//   node --import tsx bench/import-jobs.ts        (npm run bench:import-jobs)
//
// Targets: the job ≥ 2 × the synchronous imports' rows/s; peak RSS growth ≤ 150 MB. Dataset: bench/datasets/store-
// dataset.ts (1,000,000 orders in 50 organizations, built when missing); the imports go to "Bench store 50", whose
// site, customers and products the rows name as a store sync does (site by domain, customer by email, product by
// slug). Patron is the compiled server as a child process. Every row creates a new order (new remoteIds per round);
// a round is the synchronous imports then the job, or the job first, turning round by round; everything imported
// (remoteId "imp-…") is deleted at the end. The job's progress is read every 250 ms, so its time is known to that.
// Tunables (env): BENCH_ROUNDS (2), BENCH_JOB_ROWS (100000), BENCH_SKIP_BUILD=1, BENCH_QUIET_WAIT_S.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ensureDataset } from './datasets/store-dataset.js';
import { body, cleanUp, references, type References } from './support/orders-import-rows.js';
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
const JOB_ROWS = Number(process.env.BENCH_JOB_ROWS ?? 100_000);
const REQUEST_ROWS = 1_000;
const TARGET_RATIO = 2;
const TARGET_RSS_MB = 150;

type Row = ReturnType<typeof body>['data'][number];

/** The rows of one round, as 1,000-row synchronous bodies and as one CSV (one line per item), made ahead of time. */
function roundRows(refs: References, prefix: string): { bodies: string[]; csv: string } {
  const bodies: string[] = [];
  const lines: string[][] = [];
  for (let batch = 0; batch < JOB_ROWS / REQUEST_ROWS; batch++) {
    const rows = body(refs, prefix, batch, 0).data.slice(0, REQUEST_ROWS);
    bodies.push(JSON.stringify({ data: rows, earnLoyalty: false }));
    for (const row of rows) lines.push(...csvLines(row));
  }
  const header = [
    'remoteId',
    'number',
    'site',
    'customer',
    'totalCents',
    'subtotalCents',
    'shippingCents',
    'taxCents',
    'currencyCode',
    'shippedAt',
    'createdAt',
    'metadata.channel',
    'metadata.batch',
    'items.product',
    'items.quantity',
    'items.unitPriceCents',
  ];
  return { bodies, csv: stringify([header, ...lines]) };
}

function csvLines(row: Row): string[][] {
  return row.items.map((item) => [
    row.remoteId,
    row.number,
    row.site,
    row.customer,
    String(row.totalCents),
    String(row.subtotalCents),
    String(row.shippingCents),
    String(row.taxCents),
    row.currencyCode,
    row.shippedAt ?? '',
    row.createdAt,
    row.metadata.channel,
    row.metadata.batch,
    item.product,
    String(item.quantity),
    String(item.unitPriceCents),
  ]);
}

interface Measured {
  ms: number;
  rowsPerSec: number;
  rssGrowthMb: number | null;
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
  detail?: string;
}

async function measure(server: Server, work: () => Promise<string | undefined>): Promise<Measured> {
  const cpu = [cpuMs(server.child.pid), databaseCpuMs()] as const;
  const t0 = performance.now();
  const { value: detail, rssGrowthMb } = await withRss(server, work);
  const ms = performance.now() - t0;
  const after = [cpuMs(server.child.pid), databaseCpuMs()] as const;
  const delta = (i: 0 | 1) => (cpu[i] === null || after[i] === null ? null : after[i]! - cpu[i]!);
  return {
    ms,
    rowsPerSec: (JOB_ROWS * 1000) / ms,
    rssGrowthMb,
    serverCpuMs: delta(0),
    databaseCpuMs: delta(1),
    ...(detail ? { detail } : {}),
  };
}

async function synchronous(server: Server, key: string, bodies: readonly string[]): Promise<string | undefined> {
  for (const [index, text] of bodies.entries()) {
    const response = await fetch(`${server.baseUrl}/v1/orders/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: text,
    });
    const answer = await response.text();
    if (response.status !== 200)
      throw new Error(`POST /v1/orders/import ${index} answered ${response.status}: ${answer.slice(0, 500)}`);
    const { created } = JSON.parse(answer) as { created: number };
    if (created !== REQUEST_ROWS) throw new Error(`POST /v1/orders/import ${index} created ${created} orders`);
  }
  return undefined;
}

async function job(server: Server, key: string, csv: string): Promise<string> {
  const t0 = performance.now();
  const response = await fetch(`${server.baseUrl}/v1/import-jobs?resource=orders&earnLoyalty=false`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: csv,
  });
  const started = (await response.json()) as { id: string; status: string; error: string | null };
  if (response.status !== 202)
    throw new Error(`POST /v1/import-jobs answered ${response.status}: ${JSON.stringify(started)}`);
  const uploadMs = performance.now() - t0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const poll = await fetch(`${server.baseUrl}/v1/import-jobs/${started.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const current = (await poll.json()) as {
      status: string;
      created: number;
      skipped: number;
      error: string | null;
      createdAt: string;
      startedAt: string | null;
      finishedAt: string | null;
    };
    if (current.status === 'queued' || current.status === 'running') continue;
    if (current.status !== 'succeeded' || current.created !== JOB_ROWS)
      throw new Error(
        `import job ${started.id} ended ${current.status} (${current.created} created, ${current.skipped} skipped): ${current.error}`,
      );
    const runMs = Date.parse(current.finishedAt!) - Date.parse(current.startedAt!);
    return `upload and staging ${uploadMs.toFixed(0)} ms; run ${runMs} ms (startedAt to finishedAt)`;
  }
}

async function main(): Promise<void> {
  const dataset = await ensureDataset();
  const org = dataset.organizations['50']!;
  build();
  const refs = await references(org.id);
  const prefix = `imp-${randomBytes(3).toString('hex')}`;
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-import-jobs-'));
  let server: Server | null = null;
  const results: { round: number; sync: Measured; job: Measured }[] = [];
  try {
    server = await startPatron('patron', workDir);
    log('warm-up: one synchronous import and one import job of 1,000 rows (not reported)');
    const warm = body(refs, `${prefix}-w`, 0, 0).data.slice(0, REQUEST_ROWS);
    await synchronous(server, org.key, [JSON.stringify({ data: warm, earnLoyalty: false })]);
    const warmJob = body(refs, `${prefix}-wj`, 0, 0).data.slice(0, REQUEST_ROWS);
    await job(
      server,
      org.key,
      stringify([
        ['remoteId', 'number', 'site', 'customer', 'items.product', 'items.quantity', 'items.unitPriceCents'],
        ...warmJob.flatMap((row) =>
          row.items.map((item) => [
            row.remoteId,
            row.number,
            row.site,
            row.customer,
            item.product,
            String(item.quantity),
            String(item.unitPriceCents),
          ]),
        ),
      ]),
    ).catch((error: unknown) => {
      // The warm-up job creates 1,000 orders, not JOB_ROWS: only its errors matter.
      if (!String(error).includes(`(${REQUEST_ROWS} created`)) throw error;
    });
    for (let round = 1; round <= ROUNDS; round++) {
      const sync = roundRows(refs, `${prefix}-s${round}`);
      const file = roundRows(refs, `${prefix}-j${round}`);
      await waitForQuiet(`round ${round}`);
      const jobFirst = round % 2 === 0;
      let syncResult: Measured | undefined;
      let jobResult: Measured | undefined;
      for (const kind of jobFirst ? ['job', 'sync'] : ['sync', 'job']) {
        if (kind === 'sync') syncResult = await measure(server, () => synchronous(server!, org.key, sync.bodies));
        else jobResult = await measure(server, () => job(server!, org.key, file.csv));
        log(`  round ${round} ${kind}: ${JSON.stringify(kind === 'sync' ? syncResult : jobResult)}`);
      }
      results.push({ round, sync: syncResult!, job: jobResult! });
    }
  } finally {
    await server?.stop();
    await rm(workDir, { recursive: true, force: true });
    await cleanUp(org.id);
  }
  const ratios = results.map((result) => result.job.rowsPerSec / result.sync.rowsPerSec);
  const sortedRatios = [...ratios].sort((a, b) => a - b);
  const ratio = sortedRatios[Math.floor(sortedRatios.length / 2)]!;
  const rss = Math.max(...results.map((result) => result.job.rssGrowthMb ?? 0));
  const fmt = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
  console.log(
    table(
      [
        'round',
        'sync rows/s',
        'job rows/s',
        'ratio',
        'job RSS growth MB',
        'sync CPU Patron/PG ms',
        'job CPU Patron/PG ms',
      ],
      results.map((result, index) => [
        String(result.round),
        fmt(result.sync.rowsPerSec),
        fmt(result.job.rowsPerSec),
        ratios[index]!.toFixed(2),
        fmt(result.job.rssGrowthMb, 1),
        `${fmt(result.sync.serverCpuMs)} / ${fmt(result.sync.databaseCpuMs)}`,
        `${fmt(result.job.serverCpuMs)} / ${fmt(result.job.databaseCpuMs)}`,
      ]),
    ),
  );
  console.log(
    `import job vs synchronous imports: ${ratio.toFixed(2)} × (target ≥ ${TARGET_RATIO} ×: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}); peak RSS growth ${rss.toFixed(1)} MB (target ≤ ${TARGET_RSS_MB} MB: ${rss <= TARGET_RSS_MB ? 'met' : 'NOT met'})`,
  );
  const result = { ratio, ratios, rssGrowthMb: rss, results };
  saveResult('import-jobs', result);
  console.log(`RESULT ${JSON.stringify({ ratio, rssGrowthMb: rss })}`);
}

await main();
