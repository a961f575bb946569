/**
 * Two `serve` processes sharing one PostgreSQL database and one Redis: an organization gets exactly its allowance
 * across both (two in-memory limiters would let ~1,200 of 1,000+ requests through instead of ~600), and an allowance
 * the operator lowers with `patron org update` governs both within 5 s (docs/api.md#plan-changes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresUrl, redisUrl, type TestDatabase } from '../support/database.js';
import { BUILT_CLI, childEnv, exitOf, freePort, ROOT, sleep } from '../support/processes.js';
import { answers200, untilReady } from '../support/ready.js';

const TOTAL_REQUESTS = 1_000;
const IN_FLIGHT = 50;
const BURST = 600; // apiRequestsPerMinute default
const REFILL_PER_SECOND = BURST / 60;

const children = new Set<ChildProcess>();
function spawnCli(args: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** Runs a `--json` CLI command and returns its one JSON object. */
async function cliJson(args: string[], env: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  const run = spawnCli([...args, '--json'], env);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 45_000);
  const exit = await exitOf(run.child);
  clearTimeout(timer);
  expect(exit.code, run.stderr()).toBe(0);
  const lines = run.stdout().trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
}

async function startServe(env: Record<string, string | undefined>): Promise<Server> {
  const port = await freePort();
  const run = spawnCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  const output = () => `stdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`;
  await untilReady(run.child, () => answers200(`${baseUrl}/readyz`), { timeoutMs: 45_000, output });
  return { child: run.child, baseUrl, output };
}

interface Answer {
  server: number;
  status: number;
  retryAfter: string | null;
  body: unknown;
}

describe.skipIf(!postgresUrl || !redisUrl)('rate limit across two serve processes (PostgreSQL + Redis)', () => {
  let testDatabase: TestDatabase;
  let dataDir: string;
  let redis: Redis;
  let organizationId: string | undefined;
  let loweredOrganizationId: string | undefined;
  let servers: Server[] = [];
  let env: Record<string, string | undefined>;
  /** Both processes, started by the first test that needs them. */
  const bothServers = async () => {
    if (servers.length === 0) servers = await Promise.all([startServe(env), startServe(env)]);
    return servers;
  };

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'patron-multiprocess-'));
    redis = new Redis(redisUrl!);
    env = {
      DATABASE_URL: testDatabase.url,
      REDIS_URL: redisUrl,
      PATRON_DATA_DIR: dataDir,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
      const exited = await Promise.race([exitOf(child), sleep(10_000).then(() => null)]);
      if (!exited) {
        child.kill('SIGKILL');
        await exitOf(child);
      }
    }
    // Only this organization's own bucket: nothing global is touched.
    for (const id of [organizationId, loweredOrganizationId]) if (id) await redis?.del(`patron:rl:org:${id}`);
    redis?.disconnect();
    await testDatabase?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('the organization gets exactly its allowance across both processes', async () => {
    const organization = await cliJson(['org', 'create', '--name', 'Shared Bucket Bakery'], env);
    organizationId = organization.id as string;
    const created = await cliJson(['key', 'create', '--org', organizationId], env);
    const key = created.key as string;
    expect(key).toMatch(/^sk_[0-9A-Za-z]{32,}$/);
    // A fresh organization has a fresh bucket.
    expect(await redis.exists(`patron:rl:org:${organizationId}`)).toBe(0);

    await bothServers();

    const answers: Answer[] = [];
    let next = 0;
    const started = performance.now();
    let lastAnswer = started;
    const worker = async () => {
      while (next < TOTAL_REQUESTS) {
        const server = next++ % 2;
        const response = await fetch(`${servers[server]!.baseUrl}/v1/organization`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const body: unknown = await response.json();
        lastAnswer = performance.now();
        answers.push({ server, status: response.status, retryAfter: response.headers.get('retry-after'), body });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const elapsedSeconds = (lastAnswer - started) / 1000;

    const count = (server: number, status: number) =>
      answers.filter((answer) => answer.server === server && answer.status === status).length;
    const ok = answers.filter((answer) => answer.status === 200);
    const limited = answers.filter((answer) => answer.status === 429);
    const ceiling = BURST + Math.ceil(REFILL_PER_SECOND * elapsedSeconds) + 1;
    console.log(
      `multiprocess rate limit: ${answers.length} requests in ${elapsedSeconds.toFixed(2)} s: ` +
        `${ok.length} × 200 (allowed ${BURST}..${ceiling}), ${limited.length} × 429; ` +
        `process A ${count(0, 200)} × 200 / ${count(0, 429)} × 429, process B ${count(1, 200)} × 200 / ${count(1, 429)} × 429`,
    );

    expect(answers).toHaveLength(TOTAL_REQUESTS);
    expect(ok.length + limited.length, 'only 200 and 429 answers').toBe(TOTAL_REQUESTS);
    expect(ok.length).toBeGreaterThanOrEqual(BURST);
    expect(ok.length).toBeLessThanOrEqual(ceiling);

    for (const answer of ok) {
      expect(answer.body).toMatchObject({ id: organizationId, plan: { apiRequestsPerMinute: BURST } });
    }
    for (const answer of limited) {
      expect(answer.body).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.any(String) } });
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(Number(answer.retryAfter))).toBe(true);
    }
    for (const server of [0, 1]) {
      expect(count(server, 200), `process ${server} answered 200`).toBeGreaterThan(0);
      expect(count(server, 429), `process ${server} answered 429`).toBeGreaterThan(0);
    }

    // The shared bucket lives in Redis, and neither process fell back to a per-process bucket.
    const bucket = await redis.hgetall(`patron:rl:org:${organizationId}`);
    expect(Number(bucket.tokens)).toBeLessThan(BURST);
    for (const server of servers) expect(server.output()).not.toMatch(/falling back to per-process buckets/);
  });

  it('an apiRequestsPerMinute lowered with `patron org update` governs the bucket of both processes within 5 s', async () => {
    const organization = await cliJson(['org', 'create', '--name', 'Downgraded Deli'], env);
    loweredOrganizationId = organization.id as string;
    const key = (await cliJson(['key', 'create', '--org', loweredOrganizationId], env)).key as string;
    const [a, b] = await bothServers();
    const get = (server: Server) =>
      fetch(`${server.baseUrl}/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
    for (const server of [a!, b!]) {
      // Both processes have served the organization at 600 (whatever either keeps per process is warm).
      expect((await get(server)).headers.get('ratelimit-policy')).toBe('"org";q=600;w=60');
    }

    const updated = await cliJson(['org', 'update', loweredOrganizationId, '--api-requests-per-minute', '60'], env);
    const changedAt = performance.now();
    expect(updated).toMatchObject({ changed: true, organization: { plan: { apiRequestsPerMinute: 60 } } });

    for (const server of [a!, b!]) {
      await expect
        .poll(async () => (await get(server)).headers.get('ratelimit-policy'), {
          message: `process at ${server.baseUrl} within 5 s`,
          timeout: Math.max(0, 5_000 - (performance.now() - changedAt)),
          interval: 100,
        })
        .toBe('"org";q=60;w=60');
    }

    // The lowered ceiling clamps the shared bucket (598 tokens were left): of 100 more requests across both
    // processes, about 60 pass (plus the refill of 1 per second while they run), the rest are 429.
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const response = await get(i % 2 === 0 ? a! : b!);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    const seconds = (performance.now() - started) / 1000;
    const ok = statuses.filter((status) => status === 200).length;
    expect(ok).toBeLessThanOrEqual(60 + Math.ceil(seconds) + 1);
    expect(ok).toBeGreaterThanOrEqual(50);
    expect(statuses.filter((status) => status === 429).length).toBe(100 - ok);
    const bucket = await redis.hgetall(`patron:rl:org:${loweredOrganizationId}`);
    expect(Number(bucket.tokens)).toBeLessThan(60);
  });
});
