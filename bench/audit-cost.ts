// The audit log's cost on a write (docs/api.md#audit-log): CPU per PATCH /v1/products/{id} with the log on (the
// default) and off (AUDIT_LOG=off, an operator setting), paired in one run.
//
//   npm run bench:audit-cost
//
// Two `patron serve` processes on the embedded engine (each its own data directory, an organization and a key made
// with the CLI, one product), so that all of a request's CPU, the database's included, is the server process's own.
// After a warm-up, BENCH_ROUNDS rounds (default 9) alternate between the two servers, each round BENCH_REQUESTS
// (default 400) sequential PATCH requests on one keep-alive connection; a round's figure is the server's CPU time
// (/proc/<pid>/stat) over its requests. Medians over the rounds; the figure is on ÷ off (target ≤ 1.05).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, CLI, cpuMs, log, run, saveResult, serverEnv, startServer, type Server } from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const WARMUP = 300;

interface Side {
  label: 'on' | 'off';
  server: Server;
  key: string;
  productId: string;
  dataDir: string;
  perRequestMs: number[];
  perReadMs: number[];
}

async function side(label: 'on' | 'off'): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), `patron-audit-cost-${label}-`));
  const env = serverEnv({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(label === 'off' && { AUDIT_LOG: 'off' }) });
  const organization = JSON.parse(
    run(
      process.execPath,
      [CLI, 'org', 'create', '--name', `Audit ${label}`, '--api-requests-per-minute', '10000000', '--json'],
      env,
    ),
  );
  const { key } = JSON.parse(
    run(process.execPath, [CLI, 'key', 'create', '--org', organization.id, '--permissions', 'all', '--json'], env),
  );
  const server = await startServer(`audit-${label}`, [CLI, 'serve', '--no-dispatch', '--no-jobs'], env, dataDir);
  const imported = await fetch(`${server.baseUrl}/v1/products/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: [{ title: 'Bench', slug: 'bench', url: 'https://shop.example/bench' }] }),
  });
  if (!imported.ok) throw new Error(`import: ${imported.status} ${await imported.text()}`);
  const productId = ((await imported.json()) as { data: { id: string }[] }).data[0]!.id;
  return { label, server, key, productId, dataDir, perRequestMs: [], perReadMs: [] };
}

async function patches(target: Side, count: number, round: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${target.server.baseUrl}/v1/products/${target.productId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: `round ${round} edit ${i}` }),
    });
    if (response.status !== 200) throw new Error(`PATCH: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}

/** Reads never make an entry; they show whether the log's async context costs the requests that are not audited. */
async function reads(target: Side, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${target.server.baseUrl}/v1/organization`, {
      headers: { authorization: `Bearer ${target.key}` },
    });
    if (response.status !== 200) throw new Error(`GET: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  build();
  const sides = [await side('on'), await side('off')];
  try {
    for (const each of sides) await patches(each, WARMUP, -1);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so that neither always runs after the other.
      for (const each of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = cpuMs(each.server.child.pid)!;
        await patches(each, REQUESTS, round);
        each.perRequestMs.push((cpuMs(each.server.child.pid)! - before) / REQUESTS);
      }
      log(
        `round ${round}: on ${sides[0]!.perRequestMs.at(-1)!.toFixed(3)} ms, off ${sides[1]!.perRequestMs.at(-1)!.toFixed(3)} ms CPU a request`,
      );
    }
    for (const each of sides) await reads(each, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      for (const each of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = cpuMs(each.server.child.pid)!;
        await reads(each, REQUESTS);
        each.perReadMs.push((cpuMs(each.server.child.pid)! - before) / REQUESTS);
      }
    }
  } finally {
    for (const each of sides) {
      await each.server.stop();
      await rm(each.dataDir, { recursive: true, force: true });
    }
  }
  const on = median(sides[0]!.perRequestMs);
  const off = median(sides[1]!.perRequestMs);
  const ratio = on / off;
  const readOn = median(sides[0]!.perReadMs);
  const readOff = median(sides[1]!.perReadMs);
  const line =
    `audit log cost: PATCH /v1/products/{id} ${on.toFixed(3)} ms CPU with the log, ${off.toFixed(3)} ms without (AUDIT_LOG=off): ${ratio.toFixed(3)}× (target ≤ 1.05); ` +
    `GET /v1/organization ${readOn.toFixed(3)} vs ${readOff.toFixed(3)} ms: ${(readOn / readOff).toFixed(3)}×`;
  log(line);
  saveResult('audit-cost', {
    rounds: ROUNDS,
    requests: REQUESTS,
    on: sides[0]!.perRequestMs,
    off: sides[1]!.perRequestMs,
    medianOnMs: on,
    medianOffMs: off,
    ratio,
    reads: { on: sides[0]!.perReadMs, off: sides[1]!.perReadMs, medianOnMs: readOn, medianOffMs: readOff },
  });
  process.stdout.write(`${line}\n`);
}

await main();
