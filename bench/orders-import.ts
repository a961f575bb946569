// Issue 3, figure 4: POST /v1/orders/import of 1,000 rows with 3 items each, ≥ 10,000 order rows per second end to
// end (the HTTP request timed from the first byte sent to the last byte of the answer read).
//
//   node --import tsx bench/orders-import.ts
//
// Dataset: bench/datasets/store-dataset.ts; imports go to "Bench store 50" (4,000 customers, 2,000 products, 20,000 orders),
// whose site, customers and products the rows reference the way a store sync does: site by domain, customer by
// email, product by slug (variant omitted: each product has one). Patron is the compiled server as a child process.
// Sequence: 1 warm-up batch (creates, not reported), BENCH_BATCHES batches creating new remoteIds, then the same
// remoteIds again as updates (new totals and item quantities, so the items are replaced), one request at a time;
// then BENCH_STREAMS (2) clients at once doing the same with their own remoteIds (a sync with parallel workers).
// Then one create batch and one update batch run in process with a Kysely query log, to show where the time goes
// per statement. Everything imported (remoteId "imp-…") is deleted at the end, with its provenance and events, so
// the dataset keeps its counts.
// Tunables (env): BENCH_BATCHES (5), BENCH_ROWS (1000), BENCH_STREAMS (2), BENCH_SKIP_BUILD=1.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDataset, ITEMS_PER_ORDER } from './datasets/store-dataset.js';
import { body, cleanUp, references, ROWS } from './support/orders-import-rows.js';
import {
  build,
  capture,
  cpuMs,
  databaseCpuMs,
  log,
  saveResult,
  startPatron,
  table,
  waitForQuiet,
  type Server,
} from './support/harness.js';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);
const TARGET_ROWS_PER_SEC = 10_000;
/** Concurrent request streams of the second phase (a store sync with parallel workers). */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 2);

interface BatchResult {
  kind: 'create' | 'update';
  batch: number;
  ms: number;
  rowsPerSec: number;
  requestBytes: number;
  responseBytes: number;
  /** CPU the Patron process and the database backends spent on the batch (null where /proc is unavailable). */
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

/** A request body serialized ahead of time, so the client's own work stays out of the timed (and shared) CPU. */
interface Prepared {
  kind: 'create' | 'update';
  batch: number;
  rows: number;
  text: string;
}

function prepare(kind: 'create' | 'update', batch: number, payload: { data: unknown[] }): Prepared {
  return { kind, batch, rows: payload.data.length, text: JSON.stringify(payload) };
}

interface Sent extends Prepared {
  status: number;
  answer: string;
  ms: number;
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

async function send(server: Server, key: string, prepared: Prepared): Promise<Sent> {
  const cpuBefore = [cpuMs(server.child.pid), databaseCpuMs()] as const;
  const t0 = performance.now();
  const response = await fetch(`${server.baseUrl}/v1/orders/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: prepared.text,
  });
  const answer = await response.text();
  const ms = performance.now() - t0;
  const cpuAfter = [cpuMs(server.child.pid), databaseCpuMs()] as const;
  const delta = (index: 0 | 1) =>
    cpuBefore[index] === null || cpuAfter[index] === null ? null : cpuAfter[index]! - cpuBefore[index]!;
  return { ...prepared, status: response.status, answer, ms, serverCpuMs: delta(0), databaseCpuMs: delta(1) };
}

/** Checks the answer (every row imported, none skipped) once the timing is over. */
function verify(sent: Sent): BatchResult {
  const { kind, batch, status, answer: text, ms } = sent;
  if (status !== 200)
    throw new Error(`POST /v1/orders/import (${kind} batch ${batch}) answered ${status}: ${text.slice(0, 2000)}`);
  const answer = JSON.parse(text) as { data: unknown[]; skipped: unknown[] };
  if (answer.data.length !== sent.rows || answer.skipped.length) {
    throw new Error(
      `POST /v1/orders/import (${kind} batch ${batch}): ${answer.data.length} imported, skipped ${JSON.stringify(answer.skipped).slice(0, 2000)}`,
    );
  }
  const result = {
    kind,
    batch,
    ms,
    rowsPerSec: (sent.rows * 1000) / ms,
    requestBytes: Buffer.byteLength(sent.text),
    responseBytes: Buffer.byteLength(text),
    serverCpuMs: sent.serverCpuMs,
    databaseCpuMs: sent.databaseCpuMs,
  };
  log(
    `  ${kind} batch ${batch}: ${ms.toFixed(0)} ms, ${result.rowsPerSec.toFixed(0)} rows/s, CPU Patron ${result.serverCpuMs} ms, PostgreSQL ${result.databaseCpuMs} ms`,
  );
  return result;
}

const runBatch = async (
  server: Server,
  key: string,
  { kind, batch, payload }: { kind: 'create' | 'update'; batch: number; payload: { data: unknown[] } },
) => verify(await send(server, key, prepare(kind, batch, payload)));

const medianBatch = (results: BatchResult[]) =>
  [...results].sort((a, b) => a.rowsPerSec - b.rowsPerSec)[Math.floor(results.length / 2)]!;
const median = (results: BatchResult[]) => medianBatch(results).rowsPerSec;

async function main(): Promise<void> {
  const dataset = await ensureDataset();
  const org = dataset.organizations['50']!;
  build();
  const refs = await references(org.id);
  const prefix = `imp-${randomBytes(3).toString('hex')}`;
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-import-'));
  let server: Server | null = null;
  try {
    server = await startPatron('patron', workDir);
    log('warm-up batch (creates, not reported)');
    await runBatch(server, org.key, { kind: 'create', batch: 0, payload: body(refs, `${prefix}-w`, 0, 0) });

    const busy = await waitForQuiet('import batches');
    const creates: BatchResult[] = [];
    for (let batch = 1; batch <= BATCHES; batch++) {
      const prepared = prepare('create', batch, body(refs, prefix, batch, 0));
      creates.push(verify(await send(server, org.key, prepared)));
    }
    const updates: BatchResult[] = [];
    for (let batch = 1; batch <= BATCHES; batch++) {
      const prepared = prepare('update', batch, body(refs, prefix, batch, 1));
      updates.push(verify(await send(server, org.key, prepared)));
    }

    // Phase 2: STREAMS clients at once, each sending BATCHES create batches then the same rows as updates: the
    // throughput a sync with parallel workers gets (the two cores then serve Node and PostgreSQL at the same time).
    const concurrent: Record<string, unknown> = { streams: STREAMS };
    for (const [kind, version] of [
      ['create', 0],
      ['update', 1],
    ] as const) {
      const prepared = Array.from({ length: STREAMS }, (_, stream) =>
        Array.from({ length: BATCHES }, (_, index) =>
          prepare(kind, index + 1, body(refs, `${prefix}-s${stream}`, index + 1, version)),
        ),
      );
      const started = performance.now();
      const sent = await Promise.all(
        prepared.map(async (stream) => {
          const results: Sent[] = [];
          for (const batch of stream) results.push(await send(server!, org.key, batch));
          return results;
        }),
      );
      const wallMs = performance.now() - started;
      const batches = sent.map((stream) => stream.map(verify));
      const rowsPerSec = (STREAMS * BATCHES * ROWS * 1000) / wallMs;
      concurrent[kind] = {
        rowsPerSec: Math.round(rowsPerSec),
        wallMs: Math.round(wallMs),
        medianBatchMs: Math.round(medianBatch(batches.flat()).ms),
      };
      log(
        `${STREAMS} streams, ${kind}: ${rowsPerSec.toFixed(0)} rows/s (${STREAMS * BATCHES} batches in ${wallMs.toFixed(0)} ms)`,
      );
    }
    await server.stop();
    server = null;

    // Where the time goes: one create and one update batch in process, every statement timed.
    const breakdown: Record<string, unknown> = {};
    for (const [kind, version] of [
      ['create', 0],
      ['update', 1],
    ] as const) {
      const captured = await capture('POST', '/v1/orders/import', org.key, {
        body: body(refs, `${prefix}-c`, 1, version),
      });
      if (captured.status !== 200)
        throw new Error(
          `in-process ${kind} answered ${captured.status}: ${JSON.stringify(captured.body).slice(0, 2000)}`,
        );
      const sqlMs = captured.statements.reduce((sum, s) => sum + s.durationMs, 0);
      breakdown[kind] = {
        totalMs: Math.round(captured.ms),
        sqlMs: Math.round(sqlMs),
        statements: captured.statements.map((s) => ({
          sql: s.sql.replace(/\s+/g, ' ').slice(0, 160),
          ms: Math.round(s.durationMs * 10) / 10,
        })),
      };
      log(
        `in process ${kind}: ${captured.ms.toFixed(0)} ms total, ${sqlMs.toFixed(0)} ms in ${captured.statements.length} statements`,
      );
      for (const s of captured.statements)
        log(`    ${s.durationMs.toFixed(1).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 140)}`);
    }

    const overall = (results: BatchResult[]) =>
      (results.length * ROWS * 1000) / results.reduce((sum, r) => sum + r.ms, 0);
    console.log(
      `POST /v1/orders/import, ${ROWS} rows × ${ITEMS_PER_ORDER} items, ${BATCHES} batches each, one request at a time, node ${process.version}`,
    );
    console.log(
      table(
        ['batch', 'kind', 'ms', 'rows/s', 'request KB', 'response KB', 'Patron CPU ms', 'PostgreSQL CPU ms'],
        [...creates, ...updates].map((r) => [
          String(r.batch),
          r.kind,
          r.ms.toFixed(0),
          r.rowsPerSec.toFixed(0),
          (r.requestBytes / 1024).toFixed(0),
          (r.responseBytes / 1024).toFixed(0),
          String(r.serverCpuMs ?? '–'),
          String(r.databaseCpuMs ?? '–'),
        ]),
      ),
    );
    const createRate = overall(creates);
    const updateRate = overall(updates);
    console.log(
      `creates: ${createRate.toFixed(0)} rows/s overall, median batch ${median(creates).toFixed(0)} (target ≥ ${TARGET_ROWS_PER_SEC}: ${createRate >= TARGET_ROWS_PER_SEC ? 'met' : 'NOT met'})`,
    );
    for (const kind of ['create', 'update'] as const) {
      const phase = concurrent[kind] as { rowsPerSec: number; medianBatchMs: number };
      console.log(
        `${STREAMS} streams, ${kind}s: ${phase.rowsPerSec} rows/s, median batch ${phase.medianBatchMs} ms (target ≥ ${TARGET_ROWS_PER_SEC}: ${phase.rowsPerSec >= TARGET_ROWS_PER_SEC ? 'met' : 'NOT met'})`,
      );
    }
    console.log(
      `updates: ${updateRate.toFixed(0)} rows/s overall, median batch ${median(updates).toFixed(0)} (target ≥ ${TARGET_ROWS_PER_SEC}: ${updateRate >= TARGET_ROWS_PER_SEC ? 'met' : 'NOT met'})`,
    );
    saveResult('orders-import', {
      date: new Date().toISOString(),
      node: process.version,
      organizationId: org.id,
      rows: ROWS,
      itemsPerRow: ITEMS_PER_ORDER,
      batches: BATCHES,
      machineBusyBefore: busy,
      creates,
      updates,
      createRowsPerSec: Math.round(createRate),
      updateRowsPerSec: Math.round(updateRate),
      medianCreateRowsPerSec: Math.round(median(creates)),
      medianUpdateRowsPerSec: Math.round(median(updates)),
      meetsCreate: createRate >= TARGET_ROWS_PER_SEC,
      meetsUpdate: updateRate >= TARGET_ROWS_PER_SEC,
      concurrent,
      breakdown,
    });
  } finally {
    await server?.stop();
    await cleanUp(org.id);
    await rm(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
