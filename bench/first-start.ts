// The first `npm start` against a restart: GET /v1/organization at saturation on the embedded engine, served by the
// process that has just created the data directory and seeded the demo organization, and then by a restart of the
// same build on the same directory (the floor: the same server and data without anything left over from the seed).
// Rounds alternate; each prints both figures and their ratio. The demo organization's plan allows 600 requests a
// minute and a running embedded server cannot have it raised (the CLI would need the data directory), so past the
// first few hundred the answers are 429: each still goes through routing, the key lookup, the rate limiter and the
// error serializer, the same in every server measured, so the ratios compare the per-request cost of the processes.
// With BENCH_BASE_CLI (the dist/src/cli/main.js of an earlier build, for example one compiled inside this checkout, so
// that it finds node_modules, with `npx tsc -p tsconfig.build.json --outDir dist-old --incremental false`), the base's
// first start is measured in the same rounds too.
//
//   npm run bench:first-start                  (node --import tsx bench/first-start.ts)
//
// Tunables (env): BENCH_CONNECTIONS (8), BENCH_WARMUP_S (3), BENCH_DURATION_S (15), BENCH_ROUNDS (3),
// BENCH_BASE_CLI, BENCH_SKIP_BUILD=1. No PostgreSQL or Redis needed.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  autocannon,
  build,
  CLI,
  log,
  saveResult,
  SERVER_NODE_ARGS,
  serverEnv,
  startServer,
  table,
} from './support/harness.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASE_CLI = process.env.BENCH_BASE_CLI;
const KEY = /sk_[0-9A-Za-z]{32,}/;

interface Measured {
  label: string;
  requestsPerSec: number;
}

async function serveAndMeasure(
  label: string,
  { cli, dataDir, workDir, key }: { cli: string; dataDir: string; workDir: string; key?: string },
) {
  const server = await startServer(
    label,
    [...SERVER_NODE_ARGS, cli, 'serve'],
    serverEnv({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
    workDir,
  );
  try {
    // The first start prints the demo key on stderr, which the harness writes to the server's log file.
    const bearer = key ?? KEY.exec(readFileSync(server.logFile, 'utf8'))?.[0];
    if (!bearer) throw new Error(`${label}: no key printed:\n${readFileSync(server.logFile, 'utf8')}`);
    const url = `${server.baseUrl}/v1/organization`;
    const headers = { authorization: `Bearer ${bearer}` };
    const probe = await fetch(url, { headers });
    if (probe.status !== 200) throw new Error(`${label}: GET /v1/organization answered ${probe.status}`);
    await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_S, headers });
    const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
    if (result.errors) throw new Error(`${label}: ${result.errors} errors`);
    log(`  ${label}: ${result.requests.average.toFixed(0)} answers/s (${result.non2xx} refused beyond the plan)`);
    return { measured: { label, requestsPerSec: result.requests.average }, key: bearer };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  build();
  const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-first-start-'));
  const rounds: { first: Measured; restart: Measured; baseFirst?: Measured }[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}`);
      let baseFirst: Measured | undefined;
      if (BASE_CLI) {
        baseFirst = (
          await serveAndMeasure('base first start', { cli: BASE_CLI, dataDir: join(workDir, `base-${round}`), workDir })
        ).measured;
      }
      const dataDir = join(workDir, `data-${round}`);
      const first = await serveAndMeasure('first start', { cli: CLI, dataDir, workDir });
      const restart = (await serveAndMeasure('restart', { cli: CLI, dataDir, workDir, key: first.key })).measured;
      rounds.push({ first: first.measured, restart, ...(baseFirst ? { baseFirst } : {}) });
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  const ratios = rounds.map((r) => r.first.requestsPerSec / r.restart.requestsPerSec);
  const baseRatios = rounds.flatMap((r) => (r.baseFirst ? [r.first.requestsPerSec / r.baseFirst.requestsPerSec] : []));
  console.log(
    `\nGET /v1/organization, embedded engine, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s, node ${process.version}`,
  );
  console.log(
    table(
      ['round', ...(BASE_CLI ? ['base first start'] : []), 'first start', 'restart', 'first / restart'],
      rounds.map((r, i) => [
        String(i + 1),
        ...(r.baseFirst ? [r.baseFirst.requestsPerSec.toFixed(0)] : []),
        r.first.requestsPerSec.toFixed(0),
        r.restart.requestsPerSec.toFixed(0),
        ratios[i]!.toFixed(3),
      ]),
    ),
  );
  console.log(`first start / restart, median: ${median(ratios).toFixed(3)}`);
  if (baseRatios.length) console.log(`first start / base first start, median: ${median(baseRatios).toFixed(3)}`);
  saveResult('first-start', {
    date: new Date().toISOString(),
    node: process.version,
    connections: CONNECTIONS,
    rounds,
    firstOverRestart: median(ratios),
    ...(baseRatios.length ? { firstOverBaseFirst: median(baseRatios) } : {}),
  });
}

await main();
