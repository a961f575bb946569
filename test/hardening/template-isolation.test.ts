/**
 * One organization's heavy template does not stall another organization (docs/api.md#rendering-limits): `patron serve`
 * as a real process; one organization previews a template of three nested 10,000-step loops 8 times at once while
 * another organization's GET /v1/organization runs as an open loop (each request sent on its schedule, its latency
 * counted from when it was due, so a stalled server cannot hide behind a slowed-down client). The bystander's p99 during
 * the previews is printed beside its idle p99 and held to 50 ms where the machine leaves room (see the comparison); every
 * preview answers 422 naming the time limit, and the server's request thread spends about what the bystander's
 * requests cost it idle. Runs on PGlite, or on PostgreSQL when
 * DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../bench/support/harness.js';
import { migrateToLatest, openDatabase } from '../../src/db/engine.js';
import { createTenant } from '../support/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { sleep } from '../support/processes.js';
import { call, killAll, startServe, type ServeProcess } from './processes.js';

/** Requests per second of the bystander's load: light, so that its p99 is the server's answer time, not a queue. */
const RATE = 100;
const PREVIEWS = 8;
/** The bound on the bystander's p99 while the previews run. */
const P99_BOUND_MS = 50;
const LOOPS = (bound: string) =>
  `{% for a in (1..${bound}) %}{% for b in (1..${bound}) %}{% for c in (1..${bound}) %}x{% endfor %}{% endfor %}{% endfor %}`;

let testDatabase: TestDatabase | undefined;
let tempDir: string;
let server: ServeProcess;
let heavyKey: string;
let bystanderKey: string;

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'patron-template-isolation-'));
  // The organizations and their keys are made before serve starts: the embedded database is single-process.
  const database = postgresUrl
    ? (testDatabase = await createTestDatabase()).database
    : await openDatabase({ dataDir: tempDir });
  if (!postgresUrl) await migrateToLatest(database.db);
  ({ key: heavyKey } = await createTenant(database.db, { name: 'Heavy templates', apiRequestsPerMinute: 1_000_000 }));
  ({ key: bystanderKey } = await createTenant(database.db, { name: 'Bystander', apiRequestsPerMinute: 1_000_000 }));
  if (!postgresUrl) await database.close();
  server = await startServe({
    ...(testDatabase ? { DATABASE_URL: testDatabase.url } : {}),
    PATRON_DATA_DIR: tempDir,
    PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  });
}, 120_000);

afterAll(async () => {
  await killAll();
  await testDatabase?.drop();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** CPU ms of each of serve's threads so far, by thread id (the request thread's id is the process id); Linux only. */
function threadCpuMs(): Map<number, number> {
  const byThread = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${server.pid}/task`)) {
      const stat = readFileSync(`/proc/${server.pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byThread.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime, USER_HZ 100
    }
  } catch {
    // not Linux, or a thread ended meanwhile
  }
  return byThread;
}

/**
 * The longest event-loop delay of the server's request thread since the last call (prom-client resets its histogram at
 * each scrape).
 */
async function eventLoopDelayMaxMs(): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const seconds = /^patron_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  return Math.round(Number(seconds) * 1000);
}

/**
 * The bystander's GET /v1/organization at RATE per second until `until` settles (at least `minMs`), open loop: request
 * n is sent at start + n / RATE whatever the answers before it.
 */
async function openLoop(until: Promise<unknown>, minMs: number): Promise<{ latencies: number[]; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  const pending: Promise<void>[] = [];
  let settled = false;
  void until.finally(() => (settled = true));
  const started = performance.now();
  for (let n = 0; !settled || n * (1000 / RATE) < minMs; n++) {
    const due = started + n * (1000 / RATE);
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      fetch(`${server.baseUrl}/v1/organization`, {
        headers: { authorization: `Bearer ${bystanderKey}` },
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          latencies.push(performance.now() - due);
          if (response.status !== 200) failures.push(String(response.status));
        },
        (error: unknown) => void failures.push(String(error)),
      ),
    );
  }
  await Promise.all(pending);
  return { latencies, failures };
}

describe('a template that would hold the server', () => {
  it('cannot be saved when its sample data already exceeds the limits', async () => {
    const saved = await call(server.baseUrl, heavyKey, 'POST', '/v1/email-templates', {
      name: 'Three loops',
      kind: 'rewardIssued',
      subject: 'Hi',
      html: LOOPS('10000'),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(400);
    expect(saved.body.error.details[0]).toEqual({
      path: 'body.html',
      message: 'cannot be rendered with the sample data within its 1,000 ms CPU-time limit',
    });
  });

  it("renders off the request thread: 8 previews at once answer 422 naming the limit, another organization's p99 stays within 50 ms", async () => {
    // Savable (with the sample daysLeft of 7 it renders 343 x's), heavy when a preview sends daysLeft 10,000: the
    // three nested 10,000-step loops, 10^12 steps.
    const created = await call(server.baseUrl, heavyKey, 'POST', '/v1/email-templates', {
      name: 'Three loops of daysLeft',
      kind: 'rewardExpiringSoon',
      subject: 'Hi',
      html: LOOPS('daysLeft'),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;

    const warm = await call(server.baseUrl, heavyKey, 'POST', `/v1/email-templates/${id}/preview`, {});
    expect(warm.status, JSON.stringify(warm.body)).toBe(200);
    expect(warm.body.html).toBe('x'.repeat(343));
    await openLoop(Promise.resolve(), 1_000); // warm-up, discarded
    const idleCpuBefore = threadCpuMs().get(server.pid) ?? 0;
    const idle = summarize((await openLoop(Promise.resolve(), 3_000)).latencies);
    const idleRequestThreadMs = (threadCpuMs().get(server.pid) ?? 0) - idleCpuBefore;

    const loadBefore = loadavg()[0]!;
    await eventLoopDelayMaxMs(); // starts the server's event-loop delay histogram afresh
    const cpuBefore = threadCpuMs();
    const started = performance.now();
    const previews = Promise.all(
      Array.from({ length: PREVIEWS }, () =>
        call(server.baseUrl, heavyKey, 'POST', `/v1/email-templates/${id}/preview`, { variables: { daysLeft: 10000 } }),
      ),
    );
    const storm = await openLoop(previews, 2_000);
    const answers = await previews;
    const stormMs = performance.now() - started;
    const cpuAfter = threadCpuMs();
    const loopDelayMax = await eventLoopDelayMaxMs();
    const during = summarize(storm.latencies);
    const spent = (tid: number) => (cpuAfter.get(tid) ?? 0) - (cpuBefore.get(tid) ?? 0);
    const requestThreadMs = spent(server.pid);
    const otherThreadsMs = [...cpuAfter.keys()]
      .filter((tid) => tid !== server.pid)
      .reduce((sum, tid) => sum + spent(tid), 0);
    // The request thread spends what the bystander's requests cost it idle (twice that, for a busy machine's caches)
    // and at most a quarter second a preview: a render on it would cost up to a second each, 8 s for the 8.
    const allowanceMs = (idleRequestThreadMs / idle.n) * during.n * 2 + PREVIEWS * 250;
    console.log(
      `template isolation (${postgresUrl ? 'PostgreSQL' : 'PGlite'}): ${PREVIEWS} ` +
        `previews of three nested 10,000-step loops at once from one organization answered ` +
        `${answers.map((answer) => answer.status).join(', ')} within ${stormMs.toFixed(0)} ms; serve's CPU meanwhile: ` +
        `request thread ${requestThreadMs.toFixed(0)} ms (${idleRequestThreadMs.toFixed(0)} ms for the idle block's ` +
        `${idle.n}; allowed ${allowanceMs.toFixed(0)} ms), other threads ${otherThreadsMs.toFixed(0)} ms; its longest ` +
        `event-loop delay ${loopDelayMax} ms; another organization's GET /v1/organization at ${RATE} req/s: idle p50 ` +
        `${idle.p50} ms, p99 ${idle.p99} ms; during the previews (${during.n} requests) p50 ${during.p50} ms, p99 ` +
        `${during.p99} ms, max ${during.max} ms (bound ${P99_BOUND_MS} ms); ${storm.failures.length} failed`,
    );
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.error.code).toBe('UNPROCESSABLE');
      // Liquid's own clock names the part; the thread's hard stop (a render Liquid did not stop in time) cannot.
      expect(answer.body.error.message).toMatch(
        /^Template rendering exceeded its 1,000 ms CPU-time limit( \(in the html part\))?\.$/,
      );
    }
    expect(storm.failures).toEqual([]);
    if (cpuAfter.size > 0) expect(requestThreadMs).toBeLessThan(allowanceMs);
    // The p99 is judged where the machine leaves the test room: Linux shares the CPU between sessions before it shares
    // it between their threads, so while other sessions keep every core busy, serve's session gets only its share, which
    // the render threads take from whatever their lowered priority (that priority orders them after the request thread
    // only within the session). The shared machine of the suites is often so: the figure is printed either way.
    const room = idle.p99 <= P99_BOUND_MS / 2 && loadBefore <= availableParallelism();
    if (room) expect(during.p99).toBeLessThanOrEqual(P99_BOUND_MS);
    else console.log(`p99 not judged: the machine is busy (load ${loadBefore.toFixed(1)}, idle p99 ${idle.p99} ms)`);
  });
});
