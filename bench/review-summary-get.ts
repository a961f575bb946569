// Issue 6, figure 2: GET /v1/products/{id}/review-summary, p99 ≤ 10 ms at 50 connections.
//
//   node --import tsx bench/review-summary-get.ts
//
// Needs a local PostgreSQL (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres): a database
// patron_bench_review_summaries is created (dropped first if it exists) with one organization, BENCH_PRODUCTS products
// and a written summary for each (current and previous, as after a regeneration; every tenth one suppressed), made
// by the built-in generator from bench/datasets/review-summary-data.ts. Patron runs compiled (`node dist/src/cli/main.js
// serve`, LOG_LEVEL=warn) as a child process; autocannon cycles through 500 of the products. A sequential sample
// (one request at a time) is taken too. The database is dropped at the end unless BENCH_KEEP=1.
// Tunables (env): BENCH_PRODUCTS (2000), BENCH_CONNECTIONS (50), BENCH_WARMUP_S (5), BENCH_DURATION_S (15),
// BENCH_SEQUENTIAL (300), BENCH_SKIP_BUILD=1, BENCH_KEEP=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createKey } from '../src/auth/keys.js';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import {
  summarizeReviews,
  EXTRACTIVE_MODEL_ID,
  EXTRACTIVE_VERSION,
} from '../src/resources/review-summaries/generators/extractive/index.js';
import { createOrganization } from '../src/resources/organization/service.js';
import { benchReviews } from './datasets/review-summary-data.js';
import { CEILING } from './datasets/store-dataset.js';
import {
  ADMIN_URL,
  build,
  databaseUrl,
  load,
  log,
  saveResult,
  sequential,
  startPatron,
  type Server,
} from './support/harness.js';

const DATABASE = 'patron_bench_review_summaries';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 300);
const TARGET_P99_MS = 10;
const CYCLED = 500;

function version(reviews: number, generatedAt: Date) {
  const input = benchReviews(reviews);
  return {
    ...summarizeReviews(input),
    reviewCount: input.length,
    newestReviewAt: input.at(-1)!.createdAt.toISOString(),
    modelId: EXTRACTIVE_MODEL_ID,
    promptVersion: EXTRACTIVE_VERSION,
    generatedAt: generatedAt.toISOString(),
  };
}

async function createDataset(): Promise<{ key: string; productIds: string[] }> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists "${DATABASE}" with (force)`);
  await admin.query(`create database "${DATABASE}"`);
  await admin.end();
  const database = await openDatabase({ databaseUrl: databaseUrl(DATABASE), dataDir: 'memory://', poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    const organization = await createOrganization(database.db, {
      name: 'Bench review summaries',
      apiRequestsPerMinute: CEILING,
    });
    const { key } = await createKey(database.db, { organizationId: organization.id, permissions: ['all'] });
    const previous = version(60, new Date(Date.now() - 3 * 86_400_000));
    const current = version(80, new Date(Date.now() - 86_400_000));
    const { rows } = await sql<{ id: string }>`
      insert into products (organization_id, id, slug, title)
      select ${organization.id}::uuid, gen_random_uuid(), 'bench-product-' || n, 'Bench product ' || n
      from generate_series(1, ${PRODUCTS}::int) as n
      returning id`.execute(database.db);
    await sql`
      insert into review_summaries (organization_id, product_id, current, previous, suppressed_at, reviews_fingerprint, summary_fingerprint)
      select ${organization.id}::uuid, p.id, ${JSON.stringify(current)}::jsonb, ${JSON.stringify(previous)}::jsonb,
        case when row_number() over (order by p.id) % 10 = 0 then now() end, 'bench', 'bench'
      from products p where p.organization_id = ${organization.id}::uuid`.execute(database.db);
    await sql`analyze products`.execute(database.db);
    await sql`analyze review_summaries`.execute(database.db);
    log(
      `dataset: ${rows.length} products with summaries (${JSON.stringify(current).length} bytes of JSON each, with previous)`,
    );
    return { key, productIds: rows.map((row) => row.id) };
  } finally {
    await database.close();
  }
}

const { key, productIds } = await createDataset();
build();
const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-review-summary-'));
const headers = { authorization: `Bearer ${key}` };
const path = (productId: string) => `/v1/products/${productId}/review-summary`;
let server: Server | undefined;
try {
  server = await startPatron('patron', workDir, { DATABASE_URL: databaseUrl(DATABASE) });
  const check = await fetch(`${server.baseUrl}${path(productIds[0]!)}`, { headers });
  const body = (await check.json()) as { productId?: string; previous?: unknown };
  if (check.status !== 200 || body.productId !== productIds[0] || !body.previous)
    throw new Error(`GET check failed: ${check.status} ${JSON.stringify(body).slice(0, 200)}`);
  const sample = await sequential(`${server.baseUrl}${path(productIds[1]!)}`, { headers }, SEQUENTIAL);
  log(`  sequential: p50 ${sample.p50} ms, p99 ${sample.p99} ms`);
  const requests = productIds.slice(0, CYCLED).map((productId) => ({ method: 'GET', path: path(productId), headers }));
  const measured = await load(
    'GET /products/{id}/review-summary',
    server,
    { path: path(productIds[0]!), connections: CONNECTIONS, headers, requests },
    { warmupS: WARMUP_S, durationS: DURATION_S },
  );
  saveResult('review-summary-get', {
    products: productIds.length,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    sequential: sample,
    load: measured,
    targetP99Ms: TARGET_P99_MS,
    meetsTarget: measured.latencyP99Ms <= TARGET_P99_MS && measured.non2xx === 0 && measured.errors === 0,
  });
} finally {
  await server?.stop();
  await rm(workDir, { recursive: true, force: true });
  if (process.env.BENCH_KEEP !== '1') {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists "${DATABASE}" with (force)`);
    await admin.end();
  }
}
