// Issue 5, reward figures (indicative here; the lead measures on a quiet machine):
//   1. GET /v1/loyalty-rewards?limit=50&include=customer,membership,rule filtered on customer.email: p99 ≤ 25 ms at
//      50 connections (autocannon cycles through 200 members' emails);
//   2. POST /v1/loyalty-rewards: ≥ 1,000 issues per second at 50 connections (200 members in turn);
//   3. the nightly expiry of the due rewards (expireAllDueRewards, 1,000 per batch, organization by organization, 01..49):
//      ≤ 30 s for the 100,000 due among 1,000,000.
//
//   node --import tsx bench/loyalty-rewards.ts
//
// Dataset: bench/datasets/loyalty-dataset.ts (generated when missing), organization "Bench store 01" for 1 and 2 (20,000
// rewards, 4,000 members), all 50 organizations for 3. Patron runs compiled (`node dist/src/cli/main.js serve`).
// Before the loads, the list request is run once in process and its statements explained (EXPLAIN ANALYZE, BUFFERS).
// Everything the benchmark writes is removed afterwards (the issued rewards with their activity and events; the
// expired rewards are put back to pending), so the dataset stays reusable.
// Tunables (env): BENCH_CONNECTIONS (50), BENCH_WARMUP_S (5), BENCH_DURATION_S (15), BENCH_SKIP_BUILD=1,
// BENCH_ONLY=list|issue|expiry.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/engine.js';
import { expireAllDueRewards } from '../src/resources/loyalty/engine/rewards/transitions.js';
import { ensureLoyaltyDataset } from './datasets/loyalty-dataset.js';
import {
  build,
  capture,
  databaseUrl,
  load,
  log,
  saveResult,
  startPatron,
  type LoadMeasurement,
  type Server,
} from './support/harness.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 5);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ONLY = process.env.BENCH_ONLY;
const MEMBERS = 200;
const BENCH_REASON = 'bench issue';

const listPath = (email: string) =>
  `/v1/loyalty-rewards?limit=50&include=customer,membership,rule&filter=${encodeURIComponent(JSON.stringify({ 'customer.email': email }))}`;

async function explain(path: string, key: string): Promise<{ sql: string; ms: number; buffers: string | null }[]> {
  const { status, body, statements } = await capture('GET', path, key);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body)}`);
  const client = new pg.Client({ connectionString: databaseUrl(), options: '-c jit=off' });
  await client.connect();
  try {
    const results = [];
    for (const statement of statements.filter((s) => !/api_keys/.test(s.sql))) {
      const runs: { ms: number; plan: string }[] = [];
      for (let i = 0; i < 6; i++) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers) ${statement.sql}`,
          statement.parameters,
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        runs.push({ ms: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? NaN), plan });
      }
      const median = runs.slice(1).sort((a, b) => a.ms - b.ms)[2]!;
      log(
        `  ${median.ms.toFixed(3)} ms  ${statement.sql.replace(/\s+/g, ' ').slice(0, 140)}\n${median.plan.replace(/^/gm, '      ')}`,
      );
      results.push({ sql: statement.sql, ms: median.ms, buffers: /Buffers: ([^\n]+)/.exec(median.plan)?.[1] ?? null });
    }
    return results;
  } finally {
    await client.end();
  }
}

async function expiry(): Promise<{ expired: number; seconds: number; restoredSeconds: number }> {
  const database = await openDatabase({ databaseUrl: databaseUrl(), dataDir: 'memory://', poolSize: 4 });
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const { rows: orgs } = await client.query<{ id: string }>(
      `select id from organizations where name like 'Bench store %' and name <> 'Bench store 50' order by name`,
    );
    const started = new Date();
    const t0 = performance.now();
    let expired = 0;
    for (const org of orgs) expired += await expireAllDueRewards(database.db, org.id, started, 1000);
    const seconds = (performance.now() - t0) / 1000;
    log(`  expired ${expired} rewards in ${seconds.toFixed(1)} s`);
    // Put the dataset back: the rewards this run expired become pending and due again; their feed rows and events go.
    const t1 = performance.now();
    await client.query('begin');
    await client.query(
      `update loyalty_rewards r set status = 'pending', fulfillment = jsonb_set(fulfillment, '{status}', '"active"'), updated_at = r.created_at
       from loyalty_activity a
       where a.organization_id = r.organization_id and a.loyalty_reward_id = r.id and a.type = 'rewardExpired' and a.created_at >= $1`,
      [started],
    );
    await client.query(`delete from loyalty_activity where type = 'rewardExpired' and created_at >= $1`, [started]);
    await client.query(`delete from events where name = 'loyaltyReward.expired' and created_at >= $1`, [started]);
    await client.query('commit');
    return { expired, seconds, restoredSeconds: (performance.now() - t1) / 1000 };
  } finally {
    await client.end();
    await database.close();
  }
}

const dataset = await ensureLoyaltyDataset();
const org = dataset.organizations['1']!;
const result: Record<string, unknown> = { connections: CONNECTIONS, durationS: DURATION_S, dataset: dataset.loyalty };

const client = new pg.Client({ connectionString: databaseUrl() });
await client.connect();
const { rows: members } = await client.query<{ id: string; email: string }>(
  `select m.id, c.email from loyalty_memberships m join customers c on c.organization_id = m.organization_id and c.id = m.customer_id
   where m.organization_id = $1 order by m.id limit $2`,
  [org.id, MEMBERS],
);
await client.end();
const headers = { authorization: `Bearer ${org.key}` };

if (!ONLY || ONLY === 'list' || ONLY === 'issue') {
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-rewards-'));
  let server: Server | undefined;
  try {
    if (!ONLY || ONLY === 'list') {
      log('EXPLAIN of the list request (customer.email filter, three includes)');
      result.listStatements = await explain(listPath(members[0]!.email), org.key);
    }
    server = await startPatron('patron', workDir);
    if (!ONLY || ONLY === 'list') {
      const check = await fetch(`${server.baseUrl}${listPath(members[0]!.email)}`, { headers });
      const body = (await check.json()) as { data: { customer?: unknown; membership?: unknown; rule?: unknown }[] };
      if (check.status !== 200 || !body.data.length || !('membership' in body.data[0]!))
        throw new Error(`list check failed: ${check.status}`);
      const requests = members.map((member) => ({ method: 'GET', path: listPath(member.email), headers }));
      const list: LoadMeasurement = await load(
        'GET /loyalty-rewards customer.email',
        server,
        { path: listPath(members[0]!.email), connections: CONNECTIONS, headers, requests },
        { warmupS: WARMUP_S, durationS: DURATION_S },
      );
      result.list = { ...list, targetP99Ms: 25, meetsTarget: list.latencyP99Ms <= 25 };
    }
    if (!ONLY || ONLY === 'issue') {
      const started = new Date();
      const requests = members.map((member) => ({
        method: 'POST',
        path: '/v1/loyalty-rewards',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          data: {
            loyaltyMembershipId: member.id,
            reward: { type: 'freeShipping', maximumValueCents: null },
            reason: BENCH_REASON,
          },
        }),
      }));
      try {
        const issue = await load(
          'POST /loyalty-rewards',
          server,
          { path: '/v1/loyalty-rewards', connections: CONNECTIONS, requests },
          { warmupS: WARMUP_S, durationS: DURATION_S },
        );
        result.issue = { ...issue, targetPerSec: 1000, meetsTarget: issue.requestsPerSec >= 1000 };
      } finally {
        const cleanup = new pg.Client({ connectionString: databaseUrl() });
        await cleanup.connect();
        await cleanup.query(`delete from loyalty_activity where organization_id = $1 and reason = $2`, [
          org.id,
          BENCH_REASON,
        ]);
        const { rowCount } = await cleanup.query(
          `delete from loyalty_rewards where organization_id = $1 and reason = $2`,
          [org.id, BENCH_REASON],
        );
        await cleanup.query(
          `delete from events where organization_id = $1 and name = 'loyaltyReward.issued' and created_at >= $2`,
          [org.id, started],
        );
        await cleanup.end();
        log(`  removed the ${rowCount} rewards the issue run created`);
      }
    }
  } finally {
    await server?.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

if (!ONLY || ONLY === 'expiry') {
  log('nightly expiry of every bench organization (1,000 per batch)');
  const measured = await expiry();
  result.expiry = { ...measured, targetSeconds: 30, meetsTarget: measured.seconds <= 30 };
}

saveResult('loyalty-rewards', result);
