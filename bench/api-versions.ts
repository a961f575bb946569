// What the dated API versions cost (docs/api.md#api-versions): CPU per GET /v1/products?limit=20 (a list, whose
// `limit` a version changed) on the same server without the version layer (the floor), with it at the newest
// version, and with it for a caller two versions back (Patron-Version: 2026-11-20: its request transform runs and its
// answer carries Deprecation and Sunset), paired in one run.
//
//   npm run bench:api-versions
//
// Two server processes on the embedded engine (bench/support/api-versions-server.ts, each its own data directory and
// BENCH_PRODUCTS products, default 50), so that all of a request's CPU, the database's included, is the server's own.
// After a warm-up, BENCH_ROUNDS rounds (default 9) each run BENCH_REQUESTS (default 600) sequential requests of each
// case on one keep-alive connection, in an order that rotates per round; a round's figure is the server's CPU time
// (/proc/<pid>/stat) over its requests. Medians over the rounds; targets: newest ≤ 1.03 × floor, two back ≤ 1.10 ×.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, log, saveResult, serverEnv, startServer, type Server } from './support/harness.js';
import { FIRST_VERSION, LATEST_VERSION } from '../src/versions/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
// The first rounds of a fresh server ran up to 1.7× slower (JIT, the embedded engine's statistics): warm it well.
const WARMUP = 1500;
const PATH = '/v1/products?limit=20';

interface Case {
  label: 'floor' | 'newest' | 'two back';
  server: Server;
  key: string;
  version?: string;
  perRequestMs: number[];
}

async function serve(label: string, layer: 'on' | 'off'): Promise<{ server: Server; key: string; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), `patron-api-versions-${label}-`));
  const keyFile = join(dataDir, 'key');
  const env = serverEnv({
    PATRON_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BENCH_VERSION_LAYER: layer,
    BENCH_KEY_FILE: keyFile,
  });
  const server = await startServer(
    `api-versions-${label}`,
    ['--import', 'tsx', join(import.meta.dirname, 'support/api-versions-server.ts')],
    env,
    dataDir,
  );
  return { server, key: (await readFile(keyFile, 'utf8')).trim(), dataDir };
}

async function requests(target: Case, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${target.server.baseUrl}${PATH}`, {
      headers: {
        authorization: `Bearer ${target.key}`,
        ...(target.version ? { 'patron-version': target.version } : {}),
      },
    });
    if (response.status !== 200) throw new Error(`${target.label}: ${response.status} ${await response.text()}`);
    const served = response.headers.get('patron-version');
    if (target.label !== 'floor' && served !== (target.version ?? LATEST_VERSION))
      throw new Error(`${target.label}: served at ${served}`);
    await response.arrayBuffer();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const floor = await serve('floor', 'off');
  const layered = await serve('layered', 'on');
  const cases: Case[] = [
    { label: 'floor', server: floor.server, key: floor.key, perRequestMs: [] },
    { label: 'newest', server: layered.server, key: layered.key, perRequestMs: [] },
    { label: 'two back', server: layered.server, key: layered.key, version: FIRST_VERSION, perRequestMs: [] },
  ];
  try {
    for (const each of cases) await requests(each, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order, so that no case always runs first or after the same one.
      const order = cases.map((_, i) => cases[(i + round) % cases.length]!);
      for (const each of order) {
        const before = cpuMs(each.server.child.pid)!;
        await requests(each, REQUESTS);
        each.perRequestMs.push((cpuMs(each.server.child.pid)! - before) / REQUESTS);
      }
      log(
        `round ${round}: ${cases.map((each) => `${each.label} ${each.perRequestMs.at(-1)!.toFixed(3)} ms`).join(', ')}`,
      );
    }
  } finally {
    for (const side of [floor, layered]) {
      await side.server.stop();
      await rm(side.dataDir, { recursive: true, force: true });
    }
  }
  const [base, newest, old] = cases.map((each) => median(each.perRequestMs)) as [number, number, number];
  const line =
    `api versions cost: GET ${PATH} ${base.toFixed(3)} ms CPU without the version layer; at the newest version ` +
    `${newest.toFixed(3)} ms (${(newest / base).toFixed(3)}×, target ≤ 1.03); two versions back (${FIRST_VERSION}) ` +
    `${old.toFixed(3)} ms (${(old / base).toFixed(3)}×, target ≤ 1.10)`;
  saveResult('api-versions', {
    rounds: ROUNDS,
    requests: REQUESTS,
    cases: Object.fromEntries(cases.map((each) => [each.label, each.perRequestMs])),
    medianMs: { floor: base, newest, twoBack: old },
    ratios: { newest: newest / base, twoBack: old / base },
  });
  process.stdout.write(`${line}\n`);
}

await main();
