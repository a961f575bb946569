// Issue 3, figure 3: GET /v1/customers?search=<substring>, p50 ≤ 10 ms.
//
//   node --import tsx bench/customers-search.ts
//
// Dataset: bench/datasets/store-dataset.ts (200,000 customers over 50 organizations; "Bench store 01" has 4,000). Patron is the
// compiled server (`node dist/src/cli/main.js serve`, LOG_LEVEL=warn) as a child process. For each search term:
// the number of matching customers (in the organization and in the whole table), sequential latency over
// BENCH_SEQUENTIAL requests (p50/p99), and EXPLAIN (ANALYZE, BUFFERS) of the exact statement Patron runs (captured in
// process with a Kysely query log; run on a connection with Patron's settings, jit off). The search is one LIKE over
// email, names and phone as one text, served by the organization-scoped trigram index of migration 0006.
// One term is also measured under load (BENCH_CONNECTIONS connections).
// Then the same on one organization holding 100,000 customers ("Bench big customers", created here with set-based SQL
// and deleted at the end, so the dataset keeps its counts; BENCH_BIG_ORG=0 skips it). While it exists the customers
// count differs from the dataset's, and ensureDataset() in another bench started meanwhile would regenerate the data:
// run no other store benchmark at the same time.
// Tunables (env): BENCH_SEQUENTIAL (200), BENCH_CONNECTIONS (50), BENCH_WARMUP_S (5), BENCH_DURATION_S (15),
// BENCH_SKIP_BUILD=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKey } from '../src/auth/keys.js';
import { openDatabase } from '../src/db/engine.js';
import { CEILING, EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, ensureDataset, sqlArray } from './datasets/store-dataset.js';
import {
  build,
  capture,
  databaseUrl,
  load,
  log,
  saveResult,
  sequential,
  startPatron,
  table,
  type LatencySummary,
  type LoadMeasurement,
  type Server,
} from './support/harness.js';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const BIG_ORG = process.env.BENCH_BIG_ORG !== '0';
const BIG_ORG_NAME = 'Bench big customers';
const BIG_CUSTOMERS = 100_000;
const TARGET_P50_MS = 10;

/** Search terms: what each one exercises. */
const TERMS: { term: string; why: string }[] = [
  { term: 'smith', why: 'a common last name (~1.7 % of customers), also in their emails' },
  { term: 'garcia.12', why: 'an email fragment matching a handful of customers' },
  { term: 'mar', why: 'a 3-character prefix of many names (Mary, Mark, Martin, Martinez, Margaret…)' },
  { term: 'example.org', why: 'the email domain of a quarter of the customers' },
  { term: '4155', why: 'a phone-number fragment' },
  { term: 'zzqx', why: 'matches nobody' },
  { term: 'jo', why: '2 characters: too short for a trigram index' },
];
const LOAD_TERM = 'smith';

interface TermResult {
  term: string;
  why: string;
  matchesInOrganization: number;
  matchesInTable: number;
  pageRows: number;
  sequential: LatencySummary;
  meetsTarget: boolean;
  plan: string;
  executionMs: number;
}

/** 100,000 customers in one more organization, set-based like the dataset (names and emails drawn the same way). */
async function createBigOrganization(): Promise<{ id: string; key: string }> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(`delete from organizations where name = $1`, [BIG_ORG_NAME]);
    const t0 = performance.now();
    const { rows } = await client.query<{ id: string }>(
      `insert into organizations (id, name, api_requests_per_minute) values (gen_random_uuid(), $1, $2) returning id`,
      [BIG_ORG_NAME, CEILING],
    );
    const id = rows[0]!.id;
    // Names and emails drawn the same way as the dataset's customers (bench/datasets/store-dataset.ts).
    await client.query(
      `insert into customers (organization_id, id, email, phone, first_name, last_name, country, created_at, updated_at)
       select $1::uuid, gen_random_uuid(),
              lower(first_name) || '.' || lower(last_name) || '.' || g || '@' || (${sqlArray(EMAIL_DOMAINS)})[1 + g % ${EMAIL_DOMAINS.length}],
              '+1' || (2000000000 + floor(random() * 7999999999))::bigint, first_name, last_name, 'US', ts, ts
       from (select g, now() - random() * interval '1095 days' as ts,
                    (${sqlArray(FIRST_NAMES)})[1 + floor(random() * ${FIRST_NAMES.length})::int] as first_name,
                    (${sqlArray(LAST_NAMES)})[1 + floor(random() * ${LAST_NAMES.length})::int] as last_name
             from generate_series(1, $2::int) g) s`,
      [id, BIG_CUSTOMERS],
    );
    await client.query('analyze customers');
    log(
      `created "${BIG_ORG_NAME}" with ${BIG_CUSTOMERS.toLocaleString('en-US')} customers in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const database = await openDatabase({ databaseUrl: databaseUrl(), dataDir: 'memory://', poolSize: 2 });
    try {
      const { key } = await createKey(database.db, { organizationId: id, permissions: ['all'], name: 'bench' });
      return { id, key };
    } finally {
      await database.close();
    }
  } finally {
    await client.end();
  }
}

async function dropBigOrganization(): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(`delete from organizations where name = $1`, [BIG_ORG_NAME]);
    await client.query('vacuum (analyze) customers');
    log(`deleted "${BIG_ORG_NAME}"`);
  } finally {
    await client.end();
  }
}

async function measureTerms(
  server: Server,
  org: { id: string; key: string },
  label: string,
): Promise<{ terms: TermResult[]; load: LoadMeasurement }> {
  const client = new pg.Client({ connectionString: databaseUrl(), options: '-c jit=off' });
  await client.connect();
  const terms: TermResult[] = [];
  try {
    for (const { term, why } of TERMS) {
      const path = `/v1/customers?search=${encodeURIComponent(term)}`;
      const captured = await capture('GET', path, org.key);
      if (captured.status !== 200)
        throw new Error(`GET ${path} answered ${captured.status}: ${JSON.stringify(captured.body)}`);
      const list = captured.statements.find((s) => /as _sort/.test(s.sql));
      if (!list) throw new Error(`no list statement captured for ${path}`);
      const explain = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) ${list.sql}`,
        list.parameters,
      );
      const plan = explain.rows.map((row) => row['QUERY PLAN']).join('\n');
      const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN);
      const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      // The list's own condition (src/resources/customers/list.ts), so the counts are what the search selects.
      const condition = `((lower(email) || ' ' || coalesce(lower(first_name), '') || ' ' || coalesce(lower(last_name), '') || ' ' || coalesce(phone, '')) like lower($1))`;
      const inOrg = await client.query<{ n: string }>(
        `select count(*) as n from customers where organization_id = $2 and ${condition}`,
        [like, org.id],
      );
      const inTable = await client.query<{ n: string }>(`select count(*) as n from customers where ${condition}`, [
        like,
      ]);
      const seq = await sequential(
        `${server.baseUrl}${path}`,
        { headers: { authorization: `Bearer ${org.key}` } },
        SEQUENTIAL,
      );
      const result: TermResult = {
        term,
        why,
        matchesInOrganization: Number(inOrg.rows[0]!.n),
        matchesInTable: Number(inTable.rows[0]!.n),
        pageRows: captured.body.data.length,
        sequential: seq,
        meetsTarget: seq.p50 <= TARGET_P50_MS,
        plan,
        executionMs,
      };
      log(
        `  ${label} "${term}": ${result.matchesInOrganization} in the organization, ${result.matchesInTable} in the table; ` +
          `p50 ${seq.p50} ms, p99 ${seq.p99} ms; SQL ${executionMs} ms`,
      );
      terms.push(result);
    }
  } finally {
    await client.end();
  }
  const loadPath = `/v1/customers?search=${encodeURIComponent(LOAD_TERM)}`;
  const loaded = await load(
    `${label} search=${LOAD_TERM}`,
    server,
    { path: loadPath, connections: CONNECTIONS, headers: { authorization: `Bearer ${org.key}` } },
    { warmupS: WARMUP_S, durationS: DURATION_S },
  );
  return { terms, load: loaded };
}

function print(title: string, terms: TermResult[], loaded: LoadMeasurement): void {
  console.log(title);
  console.log(
    table(
      ['search', 'in org', 'in table', 'page', 'p50 ms', 'p90 ms', 'p99 ms', 'SQL ms', `p50 ≤ ${TARGET_P50_MS} ms`],
      terms.map((t) => [
        JSON.stringify(t.term),
        String(t.matchesInOrganization),
        String(t.matchesInTable),
        String(t.pageRows),
        String(t.sequential.p50),
        String(t.sequential.p90),
        String(t.sequential.p99),
        String(t.executionMs),
        t.meetsTarget ? 'met' : 'NOT met',
      ]),
    ),
  );
  console.log(
    `under load (search=${LOAD_TERM}, ${CONNECTIONS} connections): ${loaded.requestsPerSec.toFixed(0)} req/s, p50 ${loaded.latencyP50Ms} ms, ` +
      `p99 ${loaded.latencyP99Ms} ms, non-2xx ${loaded.non2xx}, errors ${loaded.errors}`,
  );
}

async function main(): Promise<void> {
  const dataset = await ensureDataset();
  const org = dataset.organizations['1']!;
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-customers-'));
  let server: Server | null = null;
  let bigCreated = false;
  try {
    server = await startPatron('patron', workDir);
    const small = await measureTerms(server, org, 'org with 4,000');
    print(
      `GET /v1/customers?search=… on "Bench store 01" (4,000 customers; 200,000 in the table), ${SEQUENTIAL} sequential requests per term`,
      small.terms,
      small.load,
    );
    const result: Record<string, unknown> = {
      date: new Date().toISOString(),
      node: process.version,
      sequential: SEQUENTIAL,
      connections: CONNECTIONS,
      organization4000: { organizationId: org.id, terms: small.terms, load: small.load },
    };
    if (BIG_ORG) {
      await server.stop();
      server = null;
      const big = await createBigOrganization();
      bigCreated = true;
      server = await startPatron('patron-big', workDir);
      const large = await measureTerms(server, big, 'org with 100,000');
      print(
        `GET /v1/customers?search=… on "${BIG_ORG_NAME}" (100,000 customers; 300,000 in the table)`,
        large.terms,
        large.load,
      );
      result.organization100000 = { organizationId: big.id, terms: large.terms, load: large.load };
    }
    saveResult('customers-search', result);
  } finally {
    await server?.stop();
    if (bigCreated) await dropBigOrganization();
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
