// What a change costs or saves per request: this build and an earlier one (BENCH_BASE_CLI) serve one route at the
// same time, each offered the same fixed rate open-loop, and the figure is the CPU each process used per request
// (user and system, all its threads). Serving at once, both meet the same machine at the same moment, which a
// comparison of runs in turn on this shared machine cannot promise (the access log's bench, `bench:organization`
// with BENCH_ONLY=logging, pairs two log levels the same way). The route is one of bench/list-latency.ts's, on the
// bench store database (PostgreSQL).
//
//   BENCH_BASE_CLI=dist-old/src/cli/main.js npm run bench:build-pair -- organization
//
// Build the base inside this checkout so that it finds node_modules, from the commit to compare with:
// `npx tsc -p tsconfig.build.json --outDir dist-old --incremental false` (without the last flag tsc reads dist/'s
// build info and writes only the files changed since). Routes: organization (default) and product (GET
// /v1/products/{id} with every include, the product with the most published reviews). Tunables (env): BENCH_RATE
// (requests/s to each build; 2,000 for organization, 600 for product), BENCH_WARMUP_S (8), BENCH_DURATION_S (15),
// BENCH_ROUNDS (3; the builds start in alternating order), BENCH_SKIP_BUILD=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { ensureStoreReviews } from './datasets/store-reviews.js';
import {
  CLI,
  ROOT,
  build,
  cpuSplitMs,
  databaseCpuMs,
  databaseUrl,
  log,
  saveResult,
  SERVER_NODE_ARGS,
  scheduledJobsSettled,
  serverEnv,
  startServer,
  table,
  type Server,
} from './support/harness.js';
import { PRODUCT_INCLUDES, mostReviewedProduct } from './support/list-routes.js';
import { openLoop } from './support/open-loop.js';

const ROUTE = process.argv[2] ?? 'organization';
const BASE_CLI = process.env.BENCH_BASE_CLI;
const RATE = Number(process.env.BENCH_RATE ?? (ROUTE === 'product' ? 600 : 2_000));
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function routePath(organizationId: string): Promise<string> {
  if (ROUTE === 'organization') return '/v1/organization';
  if (ROUTE !== 'product') throw new Error(`unknown route "${ROUTE}": organization or product`);
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const product = await mostReviewedProduct(client, organizationId);
    return `/v1/products/${product.id}?include=${PRODUCT_INCLUDES.join(',')}`;
  } finally {
    await client.end();
  }
}

function serverCpu(server: Server): { user: number; system: number } {
  const cpu = cpuSplitMs(server.child.pid);
  if (!cpu)
    throw new Error('bench:build-pair reads the CPU of each server process from /proc, which this machine lacks');
  return cpu;
}

interface Side {
  build: 'this' | 'base';
  requests: number;
  userUs: number;
  systemUs: number;
  p99Ms: number;
}

async function main(): Promise<void> {
  if (!BASE_CLI) throw new Error('BENCH_BASE_CLI names the dist/src/cli/main.js of the build to compare with');
  if (process.env.BENCH_SKIP_BUILD !== '1') build();
  const organization = (await ensureStoreReviews()).organizations['1']!;
  const key = organization.key;
  const path = await routePath(organization.id);
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-build-pair-'));
  const start = async (side: 'this' | 'base') => {
    const server = await startServer(
      `patron-${side}`,
      [...SERVER_NODE_ARGS, side === 'this' ? CLI : resolve(ROOT, BASE_CLI), 'serve'],
      serverEnv({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', PATRON_DATA_DIR: join(workDir, `data-${side}`) }),
      workDir,
    );
    await scheduledJobsSettled(`patron-${side}`, databaseUrl());
    return server;
  };
  log(`${path}: this build and ${BASE_CLI} at ${RATE} req/s each, at once, ${ROUNDS} round(s)`);
  const rounds: { this: Side; base: Side; postgresUs: number | null }[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? (['this', 'base'] as const) : (['base', 'this'] as const);
      const servers = new Map<'this' | 'base', Server>();
      for (const side of order) servers.set(side, await start(side));
      const both = (durationS: number) =>
        Promise.all(
          order.map((side) =>
            openLoop({
              baseUrl: servers.get(side)!.baseUrl,
              targets: [{ name: ROUTE, path }],
              headers: { authorization: `Bearer ${key}` },
              rate: RATE,
              durationS,
              connections: 16,
            }),
          ),
        );
      await both(WARMUP_S);
      const before = order.map((side) => serverCpu(servers.get(side)!));
      const postgresBefore = databaseCpuMs();
      const results = await both(DURATION_S);
      const postgresAfter = databaseCpuMs();
      const after = order.map((side) => serverCpu(servers.get(side)!));
      const sides = order.map((side, i): Side => {
        const result = results[i]!.targets[0]!;
        return {
          build: side,
          requests: result.requests,
          userUs: ((after[i]!.user - before[i]!.user) * 1000) / result.requests,
          systemUs: ((after[i]!.system - before[i]!.system) * 1000) / result.requests,
          p99Ms: result.latency.p99,
        };
      });
      const total = sides.reduce((sum, side) => sum + side.requests, 0);
      const postgresUs =
        postgresBefore !== null && postgresAfter !== null ? ((postgresAfter - postgresBefore) * 1000) / total : null;
      for (const side of order) await servers.get(side)!.stop();
      const [self, base] = ['this', 'base'].map((name) => sides.find((side) => side.build === name)!) as [Side, Side];
      rounds.push({ this: self, base, postgresUs });
      log(
        `  round ${round}: this ${(self.userUs + self.systemUs).toFixed(0)} µs/req, base ${(base.userUs + base.systemUs).toFixed(0)}` +
          ` (PostgreSQL ${postgresUs?.toFixed(0) ?? 'n/a'} µs/req for both)`,
      );
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const cpu = (side: Side) => side.userUs + side.systemUs;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  const differences = rounds.map((round) => cpu(round.this) - cpu(round.base));
  console.log(
    table(
      ['round', 'this µs/req (user+sys)', 'base µs/req (user+sys)', 'difference', 'p99 this / base ms'],
      rounds.map((round, i) => [
        String(i + 1),
        `${cpu(round.this).toFixed(0)} (${round.this.userUs.toFixed(0)}+${round.this.systemUs.toFixed(0)})`,
        `${cpu(round.base).toFixed(0)} (${round.base.userUs.toFixed(0)}+${round.base.systemUs.toFixed(0)})`,
        `${differences[i]! >= 0 ? '+' : ''}${differences[i]!.toFixed(1)}`,
        `${round.this.p99Ms} / ${round.base.p99Ms}`,
      ]),
    ),
  );
  const result = {
    route: ROUTE,
    path,
    base: BASE_CLI,
    rate: RATE,
    rounds: ROUNDS,
    thisCpuUsPerRequest: rounds.map((round) => Math.round(cpu(round.this))),
    baseCpuUsPerRequest: rounds.map((round) => Math.round(cpu(round.base))),
    medianDifferenceUs: Math.round(median(differences) * 10) / 10,
    medianRatio: Math.round(median(rounds.map((round) => cpu(round.this) / cpu(round.base))) * 1000) / 1000,
  };
  console.log(
    `${ROUTE}: this build ${result.medianDifferenceUs >= 0 ? '+' : ''}${result.medianDifferenceUs} µs of CPU per request against the base (median of ${ROUNDS} rounds; ratio ${result.medianRatio})`,
  );
  saveResult(`build-pair-${ROUTE}`, result);
}

await main();
