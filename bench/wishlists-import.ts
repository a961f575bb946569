// Wishlists, figure 2: POST /v1/wishlists/import of 1,000 rows with 5 items each, in rows per second, against
// POST /v1/products/import of 1,000 rows in the same run (the floor: the simplest import of as many rows).
//
//   node --import tsx bench/wishlists-import.ts        (npm run bench:wishlists-import)
//
// Target: wishlists ≥ 0.7 × products (rows/s, medians). Database patron_bench_wishlists (bench/datasets/wishlists-
// dataset.ts, generated when missing); each run makes a fresh organization there ("Wishlists import <hex>", rate-limit
// ceiling 100,000,000 a minute, a key with permissions all), gives it 1,000 customers and a catalog of 2,000 products
// (set-based SQL), and deletes it at the end (deleteOrganization, as `patron org delete` does), with what the run
// imported; organizations an interrupted run left behind are deleted first. Patron is the compiled server
// (`node dist/src/cli/main.js serve`, LOG_LEVEL=warn) as a child process, one request at a time, each body serialized
// before its request is timed (first byte sent to last byte of the answer read).
// A wishlist row: customer by email (row i → customer i), name, a new remoteId, 5 distinct catalog products by slug
// (no variant, no note), as a store sync sends them. A product row: a new slug, title, description, imageUrl, url
// (no variants, tags or sites). For context, not for the target, a third import: product rows with 5 variants each
// (a parent and 5 children per row, the shape of a wishlist row). One warm-up import of each (not reported), then
// BENCH_ROUNDS (5) rounds of one import of each kind, the one that goes first turning round by round; every round's
// rows are new (new remoteIds and slugs), so every row is created. Then each round's bodies are sent again in the
// same order: every row unchanged (nothing written, nothing sent). The figure is the median round of each kind; each
// round's ratio is given too. Then one create of each kind runs in process with a Kysely query log, to show where
// the time goes per statement.
// The machine's PostgreSQL runs without autovacuum: the tables the imports write are vacuumed (with ANALYZE) before
// and after a run, and analyzed after the warm-up, as autovacuum would once the wishlist tables have rows.
// Other tunables: BENCH_SKIP_BUILD=1, BENCH_QUIET_WAIT_S / BENCH_QUIET_BUSY (harness: wait for a quieter machine first).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKey } from '../src/auth/keys.js';
import { openDatabase } from '../src/db/engine.js';
import { deleteOrganization } from '../src/db/organization-delete.js';
import { createOrganization } from '../src/resources/organization/service.js';
import { DATABASE, ensureWishlistsDataset } from './datasets/wishlists-dataset.js';
import { CEILING } from './datasets/store-dataset.js';
import {
  build,
  capture,
  cpuMs,
  databaseCpuMs,
  databaseUrl,
  log,
  machineCpuMs,
  saveResult,
  startPatron,
  table,
  waitForQuiet,
  type Server,
} from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROWS = 1_000;
const ITEMS_PER_ROW = 5;
const CUSTOMERS = 1_000;
const CATALOG = 2_000;
const TARGET_RATIO = 0.7;
const ORGANIZATION_PREFIX = 'Wishlists import ';

/** products: the floor. products-variants: informational, a parent and 5 children per row, as a wishlist row. */
type Kind = 'wishlists' | 'products' | 'products-variants';
const KINDS: Kind[] = ['wishlists', 'products', 'products-variants'];
const PATHS: Record<Kind, string> = {
  wishlists: '/v1/wishlists/import',
  products: '/v1/products/import',
  'products-variants': '/v1/products/import',
};
const VARIANTS = ['xs', 's', 'm', 'l', 'xl'];
type Action = 'created' | 'unchanged';

interface Prepared {
  kind: Kind;
  action: Action;
  round: number;
  text: string;
}

interface BatchResult {
  kind: Kind;
  action: Action;
  round: number;
  ms: number;
  rowsPerSec: number;
  requestKB: number;
  responseKB: number;
  /** CPU the Patron process and the database's backends spent on the request (null where /proc is unavailable). */
  patronCpuMs: number | null;
  databaseCpuMs: number | null;
  /** Busy CPU of everything else on the machine meanwhile, in cores (2 in all). */
  backgroundCores: number | null;
}

const pick = <T>(values: readonly T[], n: number): T[] => {
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(Math.floor(Math.random() * values.length));
  return [...chosen].map((i) => values[i]!);
};

const customerEmail = (i: number) => `shopper${i}@example.com`;
const catalogSlug = (i: number) => `catalog-${i}`;
const catalog = Array.from({ length: CATALOG }, (_, i) => catalogSlug(i + 1));

function wishlistsBody(tag: string, round: number) {
  const names = ['Birthday', 'Holidays', 'Someday', 'For the flat', 'Gift ideas'];
  return {
    data: Array.from({ length: ROWS }, (_, i) => ({
      customer: customerEmail(i + 1),
      name: `${names[i % names.length]} ${tag}-${round}`,
      remoteId: `wl-${tag}-${round}-${i}`,
      items: pick(catalog, ITEMS_PER_ROW).map((product) => ({ product })),
    })),
  };
}

function productsBody(tag: string, round: number, withVariants = false) {
  return {
    data: Array.from({ length: ROWS }, (_, i) => {
      const slug = `imp-${tag}-${withVariants ? 'v' : 'p'}${round}-${i}`;
      return {
        slug,
        title: `Imported product ${round}-${i}`,
        description: `The imported product ${round}-${i}, a round ${round} arrival.`,
        imageUrl: `https://cdn.example.com/p/${slug}.jpg`,
        url: `https://shop.example.com/products/${slug}`,
        ...(withVariants
          ? {
              variants: VARIANTS.map((size, v) => ({
                slug: size,
                title: size.toUpperCase(),
                priceCents: 1_000 + 250 * v,
                currencyCode: 'USD',
              })),
            }
          : {}),
      };
    }),
  };
}

const bodyOf = (kind: Kind, tag: string, round: number) =>
  kind === 'wishlists' ? wishlistsBody(tag, round) : productsBody(tag, round, kind === 'products-variants');

async function send(server: Server, key: string, prepared: Prepared): Promise<BatchResult> {
  const before = [cpuMs(server.child.pid), databaseCpuMs(DATABASE), machineCpuMs()] as const;
  const client = process.cpuUsage();
  const t0 = performance.now();
  const response = await fetch(`${server.baseUrl}${PATHS[prepared.kind]}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: prepared.text,
  });
  const answer = await response.text();
  const ms = performance.now() - t0;
  const clientUsage = process.cpuUsage(client);
  const after = [cpuMs(server.child.pid), databaseCpuMs(DATABASE), machineCpuMs()] as const;
  const delta = (i: 0 | 1 | 2) => (before[i] === null || after[i] === null ? null : after[i]! - before[i]!);
  const what = `POST ${PATHS[prepared.kind]} (${prepared.kind}, round ${prepared.round}, ${prepared.action})`;
  if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${answer.slice(0, 2000)}`);
  const counts = JSON.parse(answer) as { skipped: unknown[]; created: number; updated: number; unchanged: number };
  if (counts[prepared.action] !== ROWS || counts.skipped.length)
    throw new Error(
      `${what}: created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, skipped ${JSON.stringify(counts.skipped).slice(0, 1000)}`,
    );
  const [patron, database, machine] = [delta(0), delta(1), delta(2)];
  const result: BatchResult = {
    kind: prepared.kind,
    action: prepared.action,
    round: prepared.round,
    ms: Math.round(ms * 10) / 10,
    rowsPerSec: Math.round((ROWS * 1000) / ms),
    requestKB: Math.round(Buffer.byteLength(prepared.text) / 1024),
    responseKB: Math.round(Buffer.byteLength(answer) / 1024),
    patronCpuMs: patron,
    databaseCpuMs: database,
    backgroundCores:
      machine === null || patron === null || database === null
        ? null
        : Math.round(((machine - patron - database - (clientUsage.user + clientUsage.system) / 1000) / ms) * 100) / 100,
  };
  log(
    `  ${what}: ${ms.toFixed(0)} ms, ${result.rowsPerSec} rows/s, CPU Patron ${patron} ms, PostgreSQL ${database} ms, background ${result.backgroundCores} cores`,
  );
  return result;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The tables the imports write (and the deletes empty again). */
const WRITTEN =
  'products, product_variants, customers, wishlists, wishlist_items, product_wishlist_counts, events, import_job_records';

/**
 * VACUUM (ANALYZE) or ANALYZE of the tables the imports write. The machine's PostgreSQL runs without autovacuum
 * (conf.d/90-ci.conf), so without this the rows earlier runs deleted stay in the tables and their indexes, and the
 * planner keeps the statistics of empty wishlist tables.
 */
async function maintain(command: 'vacuum (analyze)' | 'analyze'): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
  await client.connect();
  try {
    const t0 = performance.now();
    await client.query(`${command} ${WRITTEN}`);
    log(`${command} ${WRITTEN}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
}

/** Deletes the organizations of this benchmark (the run's own, or those an interrupted run left). */
async function deleteOrganizations(where: { id: string } | { leftovers: true }): Promise<void> {
  const database = await openDatabase({ databaseUrl: databaseUrl(DATABASE), dataDir: 'memory://', poolSize: 2 });
  try {
    const ids =
      'id' in where
        ? [where.id]
        : (
            await database.db
              .selectFrom('organizations')
              .select('id')
              .where('name', 'like', `${ORGANIZATION_PREFIX}%`)
              .execute()
          ).map((row) => row.id);
    for (const id of ids) {
      const deleted = await deleteOrganization(database.db, id, { batchRows: 10_000 });
      const total = Object.values(deleted).reduce((sum, n) => sum + n, 0);
      log(`deleted organization ${id}${'id' in where ? '' : ' (left by an interrupted run)'}: ${total} rows`);
    }
  } finally {
    await database.close();
  }
}

/** A fresh organization with a key, 1,000 customers and a 2,000-product catalog. */
async function freshOrganization(tag: string): Promise<{ id: string; key: string }> {
  const database = await openDatabase({ databaseUrl: databaseUrl(DATABASE), dataDir: 'memory://', poolSize: 2 });
  let organization: { id: string };
  let key: string;
  try {
    organization = await createOrganization(database.db, {
      name: `${ORGANIZATION_PREFIX}${tag}`,
      apiRequestsPerMinute: CEILING,
    });
    ({ key } = await createKey(database.db, {
      organizationId: organization.id,
      permissions: ['all'],
      name: 'wishlists import bench',
    }));
  } finally {
    await database.close();
  }
  const client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
  await client.connect();
  try {
    await client.query(
      `insert into customers (organization_id, id, email, first_name, last_name)
         select $1, gen_random_uuid(), 'shopper' || g || '@example.com', 'First' || g, 'Last' || g
         from generate_series(1, ${CUSTOMERS}) g`,
      [organization.id],
    );
    await client.query(
      `insert into products (organization_id, id, slug, title, description)
         select $1, gen_random_uuid(), 'catalog-' || g, 'Catalog product ' || g, 'Catalog product ' || g || '.'
         from generate_series(1, ${CATALOG}) g`,
      [organization.id],
    );
    await client.query('analyze customers, products');
  } finally {
    await client.end();
  }
  return { id: organization.id, key };
}

async function main(): Promise<void> {
  await ensureWishlistsDataset();
  await deleteOrganizations({ leftovers: true });
  await maintain('vacuum (analyze)');
  build();
  const tag = randomBytes(3).toString('hex');
  const organization = await freshOrganization(tag);
  log(`organization ${organization.id}: ${CUSTOMERS} customers, ${CATALOG} catalog products`);
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-wishlists-import-'));
  let server: Server | null = null;
  try {
    server = await startPatron('patron', workDir, { DATABASE_URL: databaseUrl(DATABASE) });
    const prepare = (kind: Kind, action: Action, round: number): Prepared => ({
      kind,
      action,
      round,
      text: JSON.stringify(bodyOf(kind, tag, round)),
    });
    log('warm-up (one import of each, not reported)');
    for (const kind of KINDS) await send(server, organization.key, prepare(kind, 'created', 0));
    // What autovacuum would do on a production server once the wishlist tables grew from nothing (50 rows + 10 %).
    await maintain('analyze');

    const busy = await waitForQuiet('imports');
    const bodies = new Map<string, Prepared>();
    const results: BatchResult[] = [];
    // Which import goes first turns round by round (wishlists, products, products-variants; then products first…).
    const orderOf = (round: number) => KINDS.map((_, k) => KINDS[(k + round - 1) % KINDS.length]!);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of orderOf(round)) {
        const prepared = prepare(kind, 'created', round);
        bodies.set(`${kind}/${round}`, prepared);
        results.push(await send(server, organization.key, prepared));
      }
    }
    log('the same bodies again: every row unchanged');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of orderOf(round))
        results.push(await send(server, organization.key, { ...bodies.get(`${kind}/${round}`)!, action: 'unchanged' }));
    }
    await server.stop();
    server = null;

    // Where the time goes: one create of each in process, every statement timed.
    const breakdown: Record<string, unknown> = {};
    for (const kind of KINDS) {
      const captured = await capture('POST', PATHS[kind], organization.key, {
        body: bodyOf(kind, tag, ROUNDS + 1),
        database: DATABASE,
      });
      if (captured.status !== 200)
        throw new Error(
          `in-process ${kind} import answered ${captured.status}: ${JSON.stringify(captured.body).slice(0, 2000)}`,
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
        `in process, ${kind} create: ${captured.ms.toFixed(0)} ms total, ${sqlMs.toFixed(0)} ms in ${captured.statements.length} statements`,
      );
      for (const s of captured.statements)
        log(`    ${s.durationMs.toFixed(1).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 140)}`);
    }

    /** Wishlists against one of the product imports, for created or unchanged rows: medians and each round's ratio. */
    const figure = (action: Action, against: Exclude<Kind, 'wishlists'>) => {
      const of = (kind: Kind) => results.filter((r) => r.kind === kind && r.action === action);
      const wishlists = median(of('wishlists').map((r) => r.rowsPerSec));
      const floor = median(of(against).map((r) => r.rowsPerSec));
      const perRound = of('wishlists').map((w) =>
        round3(w.rowsPerSec / of(against).find((p) => p.round === w.round)!.rowsPerSec),
      );
      return {
        action,
        against,
        wishlistsRowsPerSec: Math.round(wishlists),
        againstRowsPerSec: Math.round(floor),
        ratio: round3(wishlists / floor),
        ratioPerRound: perRound,
        medianRatioOfRounds: round3(median(perRound)),
        ...(against === 'products' && action === 'created' ? { meets: wishlists / floor >= TARGET_RATIO } : {}),
      };
    };
    const figures = (['created', 'unchanged'] as const).flatMap((action) =>
      (['products', 'products-variants'] as const).map((against) => figure(action, against)),
    );
    const medianCpuMs = Object.fromEntries(
      (['created', 'unchanged'] as const).flatMap((action) =>
        KINDS.map((kind) => {
          const mine = results.filter((r) => r.kind === kind && r.action === action);
          const of = (field: 'patronCpuMs' | 'databaseCpuMs') => {
            const values = mine.map((r) => r[field]);
            return values.every((v) => v !== null) ? median(values as number[]) : null;
          };
          return [`${kind} ${action}`, { patron: of('patronCpuMs'), database: of('databaseCpuMs') }];
        }),
      ),
    );

    console.log(
      `POST /v1/wishlists/import (${ROWS} rows × ${ITEMS_PER_ROW} items) vs POST /v1/products/import (${ROWS} rows; and ${ROWS} rows × ${VARIANTS.length} variants), ${ROUNDS} rounds, one request at a time, node ${process.version}`,
    );
    console.log(
      table(
        [
          'round',
          'import',
          'rows',
          'ms',
          'rows/s',
          'request KB',
          'response KB',
          'Patron CPU ms',
          'PG CPU ms',
          'background cores',
        ],
        results.map((r) => [
          String(r.round),
          r.kind,
          r.action,
          r.ms.toFixed(0),
          String(r.rowsPerSec),
          String(r.requestKB),
          String(r.responseKB),
          String(r.patronCpuMs ?? '–'),
          String(r.databaseCpuMs ?? '–'),
          String(r.backgroundCores ?? '–'),
        ]),
      ),
    );
    for (const f of figures)
      console.log(
        `${f.action}: wishlists ${f.wishlistsRowsPerSec} rows/s (${f.wishlistsRowsPerSec * ITEMS_PER_ROW} items/s) vs ${f.against} ${f.againstRowsPerSec} rows/s (medians): ${f.ratio.toFixed(3)} × ` +
          `(rounds ${f.ratioPerRound.join(', ')}; median ${f.medianRatioOfRounds})` +
          (f.meets === undefined ? '' : ` (target ≥ ${TARGET_RATIO}: ${f.meets ? 'met' : 'NOT met'})`),
      );
    saveResult('wishlists-import', {
      date: new Date().toISOString(),
      node: process.version,
      database: DATABASE,
      organizationId: organization.id,
      rows: ROWS,
      itemsPerRow: ITEMS_PER_ROW,
      customers: CUSTOMERS,
      catalog: CATALOG,
      rounds: ROUNDS,
      machineBusyBefore: busy,
      figures,
      medianCpuMs,
      results,
      breakdown,
    });
  } finally {
    await server?.stop();
    await deleteOrganizations({ id: organization.id });
    await maintain('vacuum (analyze)');
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
