/**
 * `patron serve` as a real child process: the embedded quick start (first and second start on one data dir) and
 * serving a PostgreSQL database given by DATABASE_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.js';
import { createOrganization } from '../../src/resources/organization/service.js';
import { DEMO_OWNER_PASSWORD, OPERATION_EXAMPLES } from '../../src/demo/examples.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { childEnv, BUILT_CLI, exitOf, freePort, ROOT } from '../support/processes.js';
import { answers200, untilReady } from '../support/ready.js';
import { LATEST_VERSION } from '../../src/versions/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ANY_KEY = /sk_(?:test_)?[0-9A-Za-z]{32,}/g;
/** How long SIGTERM may take to end an idle server. */
const SHUTDOWN_LIMIT_MS = 5_000;

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

interface Served {
  child: ChildProcess;
  baseUrl: string;
  /** The JSON log lines. */
  stdout(): string;
  /** How many reads stdout's pipe has delivered so far (a write of the server's arrives as one read, or fewer). */
  stdoutReads(): number;
  /** The start-up banner (and nothing else on a clean start). */
  stderr(): string;
  /** Sends the signal and resolves with how the process ended and how long it took (SIGKILL after 15 s). */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Spawns `serve`, waits until GET /readyz answers 200 and the start-up banner has been printed (on stderr). */
async function serve(env: Record<string, string | undefined>): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [BUILT_CLI, 'serve'], {
    cwd: ROOT,
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stdout = '';
  let stdoutReads = 0;
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    stdoutReads += 1;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;

  let ready = false;
  await untilReady(
    child,
    async () => (ready ||= await answers200(`${baseUrl}/readyz`)) && /Patron is serving[\s\S]*\n\n/.test(stderr),
    { timeoutMs: 45_000, output },
  );

  return {
    child,
    baseUrl,
    stdout: () => stdout,
    stdoutReads: () => stdoutReads,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      const started = performance.now();
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const exit = await exitOf(child);
      clearTimeout(timer);
      return { ...exit, ms: performance.now() - started };
    },
  };
}

async function getOrganization(url: string, key?: string) {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

afterAll(async () => {
  for (const child of children) {
    child.kill('SIGKILL');
    await exitOf(child);
  }
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.skipIf(Boolean(postgresUrl))('serve on the embedded database', () => {
  let dataDir: string;
  let demoKey: string;
  let demoOrganizationId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'patron-serve-'));
    tempDirs.push(dataDir);
  });

  it('first start: prints a demo key, a curl line that works and a signed-in docs link, and stops cleanly on SIGTERM', async () => {
    const server = await serve({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    let sentJustBeforeExit = false;
    try {
      const banner = server.stderr();
      const curl = /curl -H "Authorization: Bearer (sk_[0-9A-Za-z]{32,})" (http:\/\/\S+\/v1\/organization)/.exec(
        banner,
      );
      expect(curl, banner).not.toBeNull();
      const [, key, url] = curl!;
      expect(url).toBe(`${server.baseUrl}/v1/organization`);
      // The key is printed on a line of its own too, and it is the same key.
      expect(banner).toMatch(new RegExp(`^\\s+${key}$`, 'm'));
      // So is the link that opens the API reference signed in with it.
      expect(banner).toMatch(new RegExp(`^\\s+${server.baseUrl}/docs#key=${key}$`, 'm'));
      demoKey = key!;
      // Beside it, labelled, a test key: it acts on the organization's test data (docs/api.md#test-mode).
      const testKey = /^and a test key[^\n]*\n\s+(sk_test_[0-9A-Za-z]{32,})$/m.exec(banner)?.[1];
      expect(testKey, banner).toBeDefined();
      const createdId = /Created the demo organization "Demo" \(([0-9a-f-]{36})\)/.exec(banner)?.[1];
      expect(createdId).toMatch(UUID);

      const response = await getOrganization(url!, demoKey);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: createdId,
        name: 'Demo',
        livemode: true,
        timezone: 'UTC',
        plan: { apiRequestsPerMinute: 600, loyaltyEventsPerMinute: 120, loyaltyStampsPerMinute: 120 },
        settings: expect.any(Object),
        apiVersion: LATEST_VERSION,
      });
      expect(Array.isArray(response.body.settings)).toBe(false);
      demoOrganizationId = createdId!;
      const test = await getOrganization(url!, testKey!);
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ name: 'Demo', livemode: false });
      expect(test.body.id).not.toBe(createdId);

      // The demo owner's one-time sign-in link, beside the key: it signs in once, and never reaches the logs.
      const link = new RegExp(`^\\s+${server.baseUrl}/dashboard/sign-in#token=([A-Za-z0-9_-]{43})$`, 'm').exec(banner);
      expect(banner).toContain('owner@demo.example');
      expect(link, banner).not.toBeNull();
      const signIn = () =>
        fetch(`${server.baseUrl}/v1/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signInToken: link![1] }),
        });
      const signedIn = await signIn();
      expect(signedIn.status).toBe(201);
      expect(((await signedIn.json()) as { user: { email: string; role: string } }).user).toMatchObject({
        email: 'owner@demo.example',
        role: 'owner',
      });
      expect((await signIn()).status).toBe(401);
      // The documented sign-in example, as /docs sends it, works on this fresh start: the banner prints its password.
      expect(banner).toContain(DEMO_OWNER_PASSWORD);
      const example = OPERATION_EXAMPLES.createSession!.body;
      const withPassword = await fetch(`${server.baseUrl}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(example),
      });
      expect(withPassword.status).toBe(201);

      // Every response carries x-request-id: success, error, unknown route, health; an incoming one is echoed.
      const answers = await Promise.all([
        fetch(url!, { headers: { authorization: `Bearer ${demoKey}` } }),
        fetch(url!),
        fetch(url!, { headers: { authorization: 'Bearer sk_0000000000000000000000000000000000000000' } }),
        fetch(`${server.baseUrl}/v1/no-such-thing`, { headers: { authorization: `Bearer ${demoKey}` } }),
        fetch(`${server.baseUrl}/readyz`),
        fetch(`${server.baseUrl}/healthz`),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 401, 401, 404, 200, 200]);
      for (const answer of answers) expect(answer.headers.get('x-request-id')).toMatch(/^\S{1,128}$/);
      const ids = answers.map((answer) => answer.headers.get('x-request-id'));
      expect(new Set(ids).size).toBe(ids.length);
      const echoed = await fetch(url!, { headers: { authorization: `Bearer ${demoKey}`, 'x-request-id': 'trace-42' } });
      expect(echoed.headers.get('x-request-id')).toBe('trace-42');

      // The secret appears only in the banner on stderr (its own line, the curl line, the docs link), never in the
      // request logs, which are JSON lines on stdout and nothing else.
      expect(server.stderr().match(ANY_KEY)).toEqual([demoKey, testKey, demoKey, demoKey]);
      expect(server.stdout()).not.toMatch(ANY_KEY);
      expect(server.stdout()).not.toContain(link![1]);
      // Request lines are written asynchronously (docs/api.md#request-logs): the last request's line still arrives
      // without another request to push it out.
      await expect.poll(() => server.stdout(), { timeout: 2_000, interval: 50 }).toContain('"reqId":"trace-42"');
      const lines = server.stdout().trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
        expect.objectContaining({
          msg: 'request completed',
          reqId: 'trace-42',
          method: 'GET',
          url: '/v1/organization',
          statusCode: 200,
          organizationId: demoOrganizationId,
        }),
      );
      // Lines leave in batches rather than one write each: requests sent one after another would otherwise each
      // have their line arrive on its own (docs/api.md#request-logs). A batch leaves at most every 100 ms (or per
      // 8 KB), so the bound follows the time the requests took and a slow machine does not fail it. The count starts
      // once the line of the last request before (trace-42) has been read, above: nothing logged earlier is still due.
      const readsBefore = server.stdoutReads();
      const inTurn = 30;
      const started = performance.now();
      for (let i = 0; i < inTurn; i++) {
        await fetch(url!, { headers: { authorization: `Bearer ${demoKey}`, 'x-request-id': `in-turn-${i}` } });
      }
      const tookMs = performance.now() - started;
      await expect
        .poll(() => server.stdout(), { timeout: 2_000, interval: 50 })
        .toContain(`"reqId":"in-turn-${inTurn - 1}"`);
      expect(server.stdoutReads() - readsBefore).toBeLessThanOrEqual(Math.ceil(tookMs / 100) + 3);
      // A line logged just before SIGTERM is written too.
      await fetch(url!, { headers: { authorization: `Bearer ${demoKey}`, 'x-request-id': 'last-before-exit' } });
      sentJustBeforeExit = true;
    } finally {
      const exit = await server.stop('SIGTERM');
      // Only when it was sent: a failure earlier in the test must be the one reported.
      if (sentJustBeforeExit) expect(server.stdout()).toContain('"reqId":"last-before-exit"');
      expect(exit.code).toBe(0);
      expect(exit.signal).toBeNull();
      expect(exit.ms).toBeLessThan(SHUTDOWN_LIMIT_MS);
    }
  });

  it('second start on the same dir: no new key (says how to make one), and the old key still works', async () => {
    expect(demoKey).toBeDefined();
    const server = await serve({ PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      const banner = server.stderr();
      expect(banner).not.toMatch(ANY_KEY);
      expect(banner).not.toMatch(/Created the demo organization/);
      expect(banner).toMatch(/key create --org/);

      const response = await getOrganization(`${server.baseUrl}/v1/organization`, demoKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: demoOrganizationId, name: 'Demo' });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    } finally {
      const exit = await server.stop('SIGTERM');
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.ms).toBeLessThan(SHUTDOWN_LIMIT_MS);
    }
  });
});

describe.skipIf(!postgresUrl)('serve on PostgreSQL (DATABASE_URL)', () => {
  let testDatabase: TestDatabase;
  let dataDir: string;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'patron-serve-pg-'));
    tempDirs.push(dataDir);
  });

  afterAll(async () => {
    await testDatabase?.drop();
  });

  it('serves the database, creates no demo organization and says how to create one', async () => {
    const server = await serve({
      DATABASE_URL: testDatabase.url,
      PATRON_DATA_DIR: dataDir,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    });
    try {
      const banner = server.stderr();
      expect(banner).toContain('PostgreSQL');
      expect(banner).not.toMatch(ANY_KEY);
      expect(banner).not.toMatch(/demo/i);
      expect(banner).toMatch(/org create --name/);
      const db = testDatabase.database.db;
      expect(await db.selectFrom('organizations').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('api_keys').selectAll().execute()).toEqual([]);

      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'postgres' });
      expect(ready.headers.get('x-request-id')).toBeTruthy();

      // What an operator creates in the database, the running server serves at once.
      const organization = await createOrganization(db, { name: 'Postgres Pastries', timezone: 'Europe/Berlin' });
      const { key } = await createKey(db, { organizationId: organization.id, permissions: ['all'] });
      const response = await getOrganization(`${server.baseUrl}/v1/organization`, key);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        id: organization.id,
        name: 'Postgres Pastries',
        timezone: 'Europe/Berlin',
      });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    } finally {
      const exit = await server.stop('SIGTERM');
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.ms).toBeLessThan(SHUTDOWN_LIMIT_MS);
    }
  });
});

describe('serve that cannot start', () => {
  /** Runs `patron` to its end, with a 30 s guard; resolves with its exit, its stderr and how long it ran. */
  async function runToExit(args: string[], env: Record<string, string | undefined>) {
    const started = performance.now();
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const exit = await exitOf(child);
    clearTimeout(guard);
    children.delete(child);
    return { ...exit, stderr, ms: performance.now() - started };
  }

  // What loading the app alone costs here (`key create --help` loads the composition root, which imports every
  // resource, as serve does), so the limit measures what serve does after.
  let loadingMs: number;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'patron-serve-fail-'));
    tempDirs.push(dataDir);
    loadingMs = (await runToExit(['key', 'create', '--help'], {})).ms;
  });

  it('exits 1 within 5 s, naming the port and EADDRINUSE, when another process listens on the port', async () => {
    const port = await freePort();
    const occupier = createServer();
    await new Promise<void>((resolve) => occupier.listen(port, '127.0.0.1', resolve));
    try {
      const run = await runToExit(['serve'], { PATRON_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      expect(run, run.stderr).toMatchObject({ code: 1, signal: null });
      expect(run.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(run.stderr).toContain('EADDRINUSE');
      expect(run.ms - loadingMs).toBeLessThan(5_000);
    } finally {
      await new Promise((resolve) => occupier.close(resolve));
    }
  });

  it('exits 1 within 5 s, naming HOST, when HOST does not resolve', async () => {
    const port = await freePort();
    const run = await runToExit(['serve'], {
      PATRON_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: 'no-such-host.invalid',
    });
    expect(run, run.stderr).toMatchObject({ code: 1, signal: null });
    expect(run.stderr).toMatch(/cannot listen on no-such-host\.invalid:\d+: HOST does not resolve/);
    expect(run.ms - loadingMs).toBeLessThan(5_000);
  });
});
