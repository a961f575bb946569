// Issue 3, figure 4, by CPU time: where a POST /v1/orders/import of 1,000 rows × 3 items spends its CPU, in Node and
// in the PostgreSQL backend, per statement. CPU time barely moves when the shared machine is busy, while wall times
// there swing by 3-10×, so this is the figure to compare a change against (bench/orders-import.ts gives the
// end-to-end rate on a quiet machine).
//
//   node --import tsx bench/orders-import-cpu.ts
//
// In process (createRuntime + app.inject on patron_bench_store, organization 50, the bodies of bench/orders-import.ts),
// BENCH_ROUNDS rounds (default 7, the first discarded as warm-up) of one create batch then the same remoteIds as an
// update batch. Node CPU is process.cpuUsage() around the request (body parsing and validation included, the
// response serialized); PostgreSQL CPU is the backend's on-CPU time from /proc/<pid>/schedstat around each statement
// (the server runs on this machine). Medians over the measured rounds. Imported orders are deleted at the end.
// Tunables (env): BENCH_ROUNDS (7), BENCH_ROWS (1000), BENCH_TAGS=1 (two tags per row, one shared by all rows),
// BENCH_EXPLAIN=1 (before each insert, update or delete of the import transaction, run it once under
// EXPLAIN (ANALYZE, BUFFERS) in a savepoint rolled back, and print the plan: trigger and index times per statement),
// BENCH_PROFILE=<file.cpuprofile> (a V8 CPU profile of the measured rounds only, for Chrome DevTools or speedscope),
// BENCH_DATABASE=<name> (another database holding "Bench store 50", e.g. a copy of part of the dataset to try indexes
// on; used as it is: no dataset check, no migrations; a key is created there for the run).
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createKey } from '../src/auth/keys.js';
import { createRuntime } from '../src/compose.js';
import { loadConfig } from '../src/config/index.js';
import type { Database } from '../src/db/engine.js';
import type { DB } from '../src/db/schema.js';
import { body, cleanUp, references } from './support/orders-import-rows.js';
import { ensureDataset } from './datasets/store-dataset.js';
import { databaseUrl, log, saveResult, SECRET, table } from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TAGS = process.env.BENCH_TAGS === '1';
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const PROFILE = process.env.BENCH_PROFILE;
const DATABASE = process.env.BENCH_DATABASE;

/** On-CPU nanoseconds of a process so far (first field of schedstat). */
const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

interface Statement {
  label: string;
  wallMs: number;
  pgCpuMs: number;
}

let statements: Statement[] = [];
let recording = false;

/** A pg client that books its backend's CPU time to each statement it sends. */
class MeasuredClient extends pg.Client {
  override query(...args: unknown[]): any {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string }).text ?? '');
    const pid = (this as unknown as { processID: number }).processID;
    if (!recording || typeof args[args.length - 1] === 'function')
      return (super.query as (...a: unknown[]) => unknown)(...args);
    const send = super.query.bind(this) as (...a: unknown[]) => Promise<{ rows: Record<string, string>[] }>;
    const explained =
      EXPLAIN && /^\s*(insert|update|delete)/i.test(text) ? explain(send, text, args[1]) : Promise.resolve();
    return explained.then(() => {
      const cpu0 = cpuNs(pid);
      const t0 = performance.now();
      return send(...args).then((result) => {
        statements.push({
          label: text.replace(/\s+/g, ' ').trim().slice(0, 110),
          wallMs: performance.now() - t0,
          pgCpuMs: (cpuNs(pid) - cpu0) / 1e6,
        });
        return result;
      });
    });
  }
}

async function explain(
  send: (...a: unknown[]) => Promise<{ rows: Record<string, string>[] }>,
  text: string,
  parameters: unknown,
): Promise<void> {
  await send('savepoint bench_explain');
  const plan = await send(`explain (analyze, buffers) ${text}`, parameters);
  await send('rollback to savepoint bench_explain');
  log(
    `${text.replace(/\s+/g, ' ').trim().slice(0, 110)}\n${plan.rows.map((row) => `    ${Object.values(row)[0]}`).join('\n')}`,
  );
}

/** Organization 50 of another database, with a new key. */
async function keyIn(url: string): Promise<{ id: string; key: string }> {
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  try {
    const { id } = await db
      .selectFrom('organizations')
      .select('id')
      .where('name', '=', 'Bench store 50')
      .executeTakeFirstOrThrow();
    const { key } = await createKey(db, { organizationId: id, permissions: ['all'], name: 'bench' });
    return { id, key };
  } finally {
    await db.destroy();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const url = databaseUrl(DATABASE);
  const org = DATABASE ? await keyIn(url) : (await ensureDataset()).organizations['50']!;
  const refs = await references(org.id, url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    options: '-c jit=off',
    Client: MeasuredClient,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const database: Database = {
    engine: 'postgres',
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
  const config = loadConfig({ DATABASE_URL: url, PATRON_SECRET_KEY: SECRET, LOG_LEVEL: 'warn' });
  config.secretKey = SECRET;
  const runtime = await createRuntime(config, { database, logger: false });
  const prefix = `imp-${randomBytes(3).toString('hex')}`;
  type Run = { wallMs: number; nodeCpuMs: number; pgCpuMs: number; statements: Statement[] };
  const runs: Record<'create' | 'update', Run[]> = { create: [], update: [] };
  try {
    await runtime.app.ready();
    const profiler = PROFILE ? new Session() : null;
    for (let round = 0; round < ROUNDS; round++) {
      if (round === 1 && profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      for (const [kind, version] of [
        ['create', 0],
        ['update', 1],
      ] as const) {
        const payload = body(refs, prefix, round, version) as { data: Record<string, unknown>[] };
        if (TAGS) payload.data.forEach((row, i) => (row.tags = ['synced', `batch-${round}-${i % 10}`]));
        const text = JSON.stringify(payload);
        statements = [];
        recording = true;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const response = await runtime.app.inject({
          method: 'POST',
          url: '/v1/orders/import',
          headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
          payload: text,
        });
        const wallMs = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        recording = false;
        if (response.statusCode !== 200)
          throw new Error(`${kind} round ${round}: ${response.statusCode} ${response.body.slice(0, 1000)}`);
        const run = {
          wallMs,
          nodeCpuMs: (cpu.user + cpu.system) / 1000,
          pgCpuMs: statements.reduce((sum, s) => sum + s.pgCpuMs, 0),
          statements,
        };
        log(
          `  ${kind} round ${round}: ${wallMs.toFixed(0)} ms wall, Node CPU ${run.nodeCpuMs.toFixed(0)} ms, PostgreSQL CPU ${run.pgCpuMs.toFixed(0)} ms`,
        );
        if (round > 0) runs[kind].push(run);
      }
    }
    if (profiler && PROFILE) {
      writeFileSync(PROFILE, JSON.stringify((await profiler.post('Profiler.stop')).profile));
      profiler.disconnect();
      log(`CPU profile of the measured rounds: ${PROFILE}`);
    }
  } finally {
    await runtime.close();
    await database.close();
    await cleanUp(org.id, url);
  }

  const summary: Record<string, unknown> = {};
  for (const kind of ['create', 'update'] as const) {
    const measured = runs[kind];
    const labels = [...new Set(measured.flatMap((run) => run.statements.map((s) => s.label)))];
    const rows = labels.map((label) => {
      const of = (pick: (s: Statement) => number) =>
        median(
          measured.map((run) => run.statements.filter((s) => s.label === label).reduce((sum, s) => sum + pick(s), 0)),
        );
      return { label, pgCpuMs: of((s) => s.pgCpuMs), wallMs: of((s) => s.wallMs) };
    });
    const totals = {
      wallMs: median(measured.map((run) => run.wallMs)),
      nodeCpuMs: median(measured.map((run) => run.nodeCpuMs)),
      pgCpuMs: median(measured.map((run) => run.pgCpuMs)),
    };
    console.log(
      `\n${kind}: median of ${measured.length}: wall ${totals.wallMs.toFixed(0)} ms, Node CPU ${totals.nodeCpuMs.toFixed(0)} ms, PostgreSQL CPU ${totals.pgCpuMs.toFixed(0)} ms`,
    );
    console.log(
      table(
        ['PG CPU ms', 'wall ms', 'statement'],
        rows.map((r) => [r.pgCpuMs.toFixed(1), r.wallMs.toFixed(1), r.label]),
      ),
    );
    summary[kind] = { ...totals, statements: rows };
  }
  saveResult('orders-import-cpu', {
    date: new Date().toISOString(),
    node: process.version,
    rounds: ROUNDS - 1,
    tags: TAGS,
    ...summary,
  });
}

await main();
