// Issue 8, item 5: soak. SOAK_SECONDS (600) of mixed traffic at a steady rate under the organization's rate limit,
// against `patron serve` as a child process (the compiled build, with its dispatcher and job runner): reads, lists,
// searches, PATCHes, bulk updates, order imports, reward issues and loyalty events, with a webhook endpoint on a
// local receiver. Reports the errors beyond the 429s a client-side model of the buckets predicts (expected: 0),
// the server's RSS (VmRSS of /proc/<pid>/status) and V8 heap in use (its /metrics) at start and end with their
// trends, and latency p50/p99 per minute.
//
//   npm run soak        (node --import tsx bench/soak.ts)
//
// Tunables (env): SOAK_SECONDS (600), SOAK_WARMUP_SECONDS (15, not measured), SOAK_RPS (40 requests per second),
// SOAK_PLAN (the organization's apiRequestsPerMinute, 6000: 100 tokens/s, so the mix's ~45 tokens/s stays under),
// SOAK_ENGINE (postgres | embedded; postgres: a scratch database on BENCH_ADMIN_URL, default
// postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (shared buckets, optional), BENCH_SKIP_BUILD=1.
// The summary is printed and saved to bench/results/soak-<time>.json.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/processes.js';
import { ROOT } from './support/harness.js';
import { percentile, scratchDatabase, sleep, startReceiver } from './support/webhooks.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 15);
const RPS = Number(process.env.SOAK_RPS ?? 40);
const PLAN = Number(process.env.SOAK_PLAN ?? 6000);
const ENGINE = process.env.SOAK_ENGINE ?? 'postgres';
const CLI = join(ROOT, 'dist/src/cli/main.js');
const SECRET_KEY = randomBytes(32).toString('base64');
const RSS_EVERY_MS = 5_000;
/** More in flight than this means the server is not keeping up: the request is counted late and not sent. */
const MAX_IN_FLIGHT = 200;

const log = (line: string) => process.stderr.write(line + '\n');
const running = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}

interface Request {
  kind: string;
  method: string;
  path: string;
  body?: unknown;
  /** Tokens charged from the organization bucket (service.md cost table). */
  cost: number;
  /** The per-endpoint bucket also charged (1 token), if any. */
  endpointBucket?: 'loyalty-events';
}

interface Outcome {
  kind: string;
  /** Seconds since the measured traffic began (negative during the warm-up). */
  at: number;
  ms: number;
  status: number | 'error';
  predicted429: boolean;
  detail?: string;
}

/** A token bucket as the server keeps it (memory.ts), fed with the send times: what the client expects. */
class ModelBucket {
  private tokens: number;
  private last = performance.now();
  constructor(
    private readonly capacity: number,
    private readonly refillPerSecond: number,
  ) {
    this.tokens = capacity;
  }
  canTake(cost: number, now: number): boolean {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSecond);
    this.last = now;
    return this.tokens >= cost;
  }
  take(cost: number) {
    this.tokens -= cost;
  }
}

function cli(args: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const result = spawnSync(process.execPath, [CLI, ...args, '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`patron ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim()) as Record<string, unknown>;
}

async function call(baseUrl: string, key: string, request: { method: string; path: string; body?: unknown }) {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
}

async function ok(
  baseUrl: string,
  key: string,
  { method, path, body }: { method: string; path: string; body?: unknown },
  status = 200,
) {
  const answer = await call(baseUrl, key, { method, path, body });
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function heapUsedMb(baseUrl: string): Promise<number | null> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const match = /^patron_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    return match ? Number(match[1]) / (1024 * 1024) : null;
  } catch {
    return null;
  }
}

function rssKb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

function measuredCommit(): string | null {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty =
    spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return head.stdout.trim() + (dirty ? '+dirty' : '');
}

async function main() {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('building (npm run build)…');
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'patron-soak-'));
  const database = ENGINE === 'embedded' ? undefined : await scratchDatabase();
  const receiver = await startReceiver();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATRON_DATA_DIR: dataDir,
    PATRON_SECRET_KEY: SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    LOG_LEVEL: 'warn',
  };
  if (database) env.DATABASE_URL = database.url;
  else delete env.DATABASE_URL;
  if (ENGINE === 'postgres' && !database) throw new Error('no database');
  let server: ChildProcess | undefined;
  try {
    if (database) cli(['migrate'], env);
    const organization = cli(['org', 'create', '--name', 'Soak', '--api-requests-per-minute', String(PLAN)], env);
    const key = cli(['key', 'create', '--org', String(organization.id)], env).key as string;

    const port = await freePort();
    server = spawn(process.execPath, [CLI, 'serve'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    running.add(server);
    let serverErrors = '';
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (serverErrors += chunk));
    const baseUrl = `http://127.0.0.1:${port}`;
    for (let waited = 0; ; waited += 100) {
      if (server.exitCode !== null) throw new Error(`serve exited: ${serverErrors}`);
      if (waited > 60_000) throw new Error('serve was not ready within 60 s');
      try {
        if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
      } catch {
        // not yet listening
      }
      await sleep(100);
    }
    const pid = server.pid!;

    log('seeding: a site, 200 customers with memberships, 50 products, 500 orders, an earning rule, a webhook…');
    await ok(
      baseUrl,
      key,
      { method: 'POST', path: '/v1/sites', body: { name: 'Soak', domain: 'soak.example.com', currencyCode: 'USD' } },
      201,
    );
    const emails = Array.from({ length: 200 }, (_, i) => `soak-${i}@example.com`);
    const customers = (
      await ok(baseUrl, key, {
        method: 'POST',
        path: '/v1/customers/import',
        body: { data: emails.map((email, i) => ({ email, firstName: `Soak${i}` })) },
      })
    ).data as { id: string }[];
    const members = (
      await ok(baseUrl, key, {
        method: 'POST',
        path: '/v1/loyalty-memberships/import',
        body: { data: emails.map((email) => ({ customer: email, pointsBalance: 100 })) },
      })
    ).data as { id: string }[];
    const slugs = Array.from({ length: 50 }, (_, i) => `soak-product-${i}`);
    await ok(baseUrl, key, {
      method: 'POST',
      path: '/v1/products/import',
      body: {
        data: slugs.map((slug) => ({
          slug,
          title: slug,
          variants: [{ slug: `${slug}-v`, title: 'V', priceCents: 1000 }],
        })),
      },
    });
    const orderRow = (n: number, version: number) => ({
      site: 'soak.example.com',
      customer: emails[n % emails.length]!,
      remoteId: `soak-${n}`,
      number: `#soak-${n}`,
      totalCents: 3000 + version,
      metadata: { version: String(version) },
      items: [{ product: slugs[n % slugs.length]!, quantity: 1 + (version % 3), unitPriceCents: 1000 }],
    });
    const orders = (
      await ok(baseUrl, key, {
        method: 'POST',
        path: '/v1/orders/import',
        body: { data: Array.from({ length: 500 }, (_, n) => orderRow(n, 0)) },
      })
    ).data as { id: string }[];
    await ok(
      baseUrl,
      key,
      {
        method: 'POST',
        path: '/v1/loyalty-rules',
        body: {
          section: 'rules',
          name: 'Soak visit',
          config: { type: 'event', eventName: 'visit', points: 1, frequency: 'unlimited' },
        },
      },
      201,
    );
    await ok(
      baseUrl,
      key,
      {
        method: 'POST',
        path: '/v1/webhooks',
        body: {
          url: `${receiver.origin}/soak`,
          events: ['order.updated', 'loyaltyReward.issued', 'loyaltyTransaction.created'],
        },
      },
      201,
    );

    // The mix, one slot per request of a 40-slot cycle (scaled to SOAK_RPS): ~45 tokens per 40 requests.
    let importVersion = 1;
    const mix: ((n: number) => Request)[] = [
      ...Array<(n: number) => Request>(13).fill((n) => ({
        kind: 'get order',
        method: 'GET',
        path: `/v1/orders/${orders[n % orders.length]!.id}?include=items`,
        cost: 1,
      })),
      ...Array<(n: number) => Request>(6).fill((n) => ({
        kind: 'list orders',
        method: 'GET',
        path: `/v1/orders?limit=20&sort=-totalCents&include=customer,tags${n % 2 ? `&filter=${encodeURIComponent(JSON.stringify({ totalCents: { $gte: 3000 } }))}` : ''}`,
        cost: 1,
      })),
      ...Array<(n: number) => Request>(4).fill((n) => ({
        kind: 'search customers',
        method: 'GET',
        path: `/v1/customers?limit=10&search=soak-${n % 200}`,
        cost: 1,
      })),
      ...Array<(n: number) => Request>(3).fill(() => ({
        kind: 'list rewards',
        method: 'GET',
        path: '/v1/loyalty-rewards?limit=20&include=customer',
        cost: 1,
      })),
      ...Array<(n: number) => Request>(2).fill(() => ({
        kind: 'organization',
        method: 'GET',
        path: '/v1/organization',
        cost: 1,
      })),
      ...Array<(n: number) => Request>(6).fill((n) => ({
        kind: 'patch order',
        method: 'PATCH',
        path: `/v1/orders/${orders[n % orders.length]!.id}`,
        body: { notes: `soak ${n}`, metadata: { n: String(n % 100) } },
        cost: 1,
      })),
      (n) => ({
        kind: 'patch customer',
        method: 'PATCH',
        path: `/v1/customers/${customers[n % customers.length]!.id}`,
        body: { notes: `soak ${n}` },
        cost: 1,
      }),
      (n) => ({
        kind: 'loyalty event',
        method: 'POST',
        path: '/v1/loyalty-events',
        body: { loyaltyMembershipId: members[n % members.length]!.id, event: 'visit' },
        cost: 1,
        endpointBucket: 'loyalty-events',
      }),
      (n) => ({
        kind: 'issue reward',
        method: 'POST',
        path: '/v1/loyalty-rewards',
        body: {
          loyaltyMembershipId: members[n % members.length]!.id,
          reward: { type: 'freeShipping', maximumValueCents: null },
        },
        cost: 1,
      }),
      (n) => ({
        kind: 'get membership',
        method: 'GET',
        path: `/v1/loyalty-memberships/${members[n % members.length]!.id}`,
        cost: 1,
      }),
      (n) =>
        n % 2
          ? {
              kind: 'bulk update',
              method: 'PATCH',
              path: `/v1/orders/bulk-update?filter=${encodeURIComponent(JSON.stringify({ number: { $startsWith: `#soak-${n % 50}` } }))}`,
              body: { addTags: [`wave-${n % 7}`] },
              cost: 5,
            }
          : {
              kind: 'import orders',
              method: 'POST',
              path: '/v1/orders/import',
              body: { data: Array.from({ length: 20 }, (_, k) => orderRow((n * 20 + k) % 520, importVersion++)) },
              cost: 10,
            },
      ...Array<(n: number) => Request>(2).fill((n) => ({
        kind: 'get order',
        method: 'GET',
        path: `/v1/orders/${orders[(n * 7) % orders.length]!.id}`,
        cost: 1,
      })),
    ];
    const tokensPerCycle = mix.reduce((sum, make, slot) => sum + make(slot * 2 + 1).cost, 0);
    log(
      `mix: ${mix.length} requests, about ${tokensPerCycle} tokens per cycle; at ${RPS} req/s ≈ ${((tokensPerCycle * RPS) / mix.length).toFixed(0)} tokens/s of ${(PLAN / 60).toFixed(0)}/s refill`,
    );

    const orgBucket = new ModelBucket(PLAN, PLAN / 60);
    const eventsBucket = new ModelBucket(120, 2);
    const outcomes: Outcome[] = [];
    const rss: { at: number; kb: number }[] = [];
    /** V8 heap in use (the server's /metrics), beside RSS: a leak grows it; allocator and GC slack only move RSS. */
    const heap: { at: number; mb: number }[] = [];
    let late = 0;
    let inFlight = 0;
    const warmupMs = WARMUP_SECONDS * 1000;
    const totalMs = warmupMs + SECONDS * 1000;
    const intervalMs = 1000 / RPS;
    const started = performance.now();
    const measuredFrom = started + warmupMs;
    const sampler = setInterval(() => {
      const kb = rssKb(pid);
      if (kb !== null) rss.push({ at: (performance.now() - measuredFrom) / 1000, kb });
      void heapUsedMb(baseUrl).then((mb) => {
        if (mb !== null) heap.push({ at: (performance.now() - measuredFrom) / 1000, mb });
      });
    }, RSS_EVERY_MS);
    rss.push({ at: -WARMUP_SECONDS, kb: rssKb(pid) ?? 0 });
    log(`soak: ${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured at ${RPS} req/s (pid ${pid})`);
    let lastMinuteLogged = -1;
    const pending = new Set<Promise<void>>();

    for (let n = 0; ; n++) {
      const due = started + n * intervalMs;
      if (due - started >= totalMs) break;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const request = mix[n % mix.length]!(n);
      const at = (due - measuredFrom) / 1000;
      if (inFlight >= MAX_IN_FLIGHT) {
        late++;
        continue;
      }
      const now = performance.now();
      const affordable =
        orgBucket.canTake(request.cost, now) && (!request.endpointBucket || eventsBucket.canTake(1, now));
      if (affordable) {
        orgBucket.take(request.cost);
        if (request.endpointBucket) eventsBucket.take(1);
      }
      inFlight++;
      const sent = performance.now();
      const job = call(baseUrl, key, request)
        .then(
          (answer) => {
            const outcome: Outcome = {
              kind: request.kind,
              at,
              ms: performance.now() - sent,
              status: answer.status,
              predicted429: !affordable,
            };
            if (answer.status >= 300) outcome.detail = JSON.stringify(answer.body).slice(0, 300);
            outcomes.push(outcome);
          },
          (error: unknown) => {
            outcomes.push({
              kind: request.kind,
              at,
              ms: performance.now() - sent,
              status: 'error',
              predicted429: !affordable,
              detail: String(error),
            });
          },
        )
        .finally(() => {
          inFlight--;
          pending.delete(job);
        });
      pending.add(job);
      const minute = Math.floor(at / 60);
      if (at >= 0 && minute !== lastMinuteLogged && at - minute * 60 < 1) {
        lastMinuteLogged = minute;
        const last = rss.at(-1);
        log(
          `  minute ${minute}: ${outcomes.length} answers so far, RSS ${last ? (last.kb / 1024).toFixed(0) : '?'} MB`,
        );
      }
    }
    await Promise.all(pending);
    clearInterval(sampler);
    rss.push({ at: (performance.now() - measuredFrom) / 1000, kb: rssKb(pid) ?? 0 });
    await sleep(2_000);

    // Figures over the measured part.
    const measured = outcomes.filter((outcome) => outcome.at >= 0);
    const isOk = (outcome: Outcome) => typeof outcome.status === 'number' && outcome.status < 300;
    const observed429 = measured.filter((outcome) => outcome.status === 429);
    const predicted429 = measured.filter((outcome) => outcome.predicted429);
    const unexpected = measured.filter(
      (outcome) => !isOk(outcome) && !(outcome.status === 429 && outcome.predicted429),
    );
    const minutes = Math.ceil(SECONDS / 60);
    const perMinute = Array.from({ length: minutes }, (_, minute) => {
      const inMinute = measured.filter((outcome) => outcome.at >= minute * 60 && outcome.at < (minute + 1) * 60);
      const latencies = inMinute.map((outcome) => outcome.ms).sort((a, b) => a - b);
      const samples = rss.filter((sample) => sample.at >= minute * 60 && sample.at < (minute + 1) * 60);
      const heapSamples = heap.filter((sample) => sample.at >= minute * 60 && sample.at < (minute + 1) * 60);
      return {
        minute,
        requests: inMinute.length,
        errors: inMinute.filter((outcome) => !isOk(outcome)).length,
        p50Ms: Number(percentile(latencies, 50).toFixed(1)),
        p99Ms: Number(percentile(latencies, 99).toFixed(1)),
        maxMs: Number((latencies.at(-1) ?? NaN).toFixed(1)),
        /** The minute's mean of the 5-second samples (one sample sits on a garbage collection's either side). */
        rssMb: samples.length
          ? Number((samples.reduce((sum, sample) => sum + sample.kb, 0) / samples.length / 1024).toFixed(1))
          : null,
        heapUsedMb: heapSamples.length
          ? Number((heapSamples.reduce((sum, sample) => sum + sample.mb, 0) / heapSamples.length).toFixed(1))
          : null,
      };
    });
    const kinds = [...new Set(measured.map((outcome) => outcome.kind))].map((kind) => {
      const latencies = measured
        .filter((outcome) => outcome.kind === kind)
        .map((outcome) => outcome.ms)
        .sort((a, b) => a - b);
      return {
        kind,
        requests: latencies.length,
        p50Ms: Number(percentile(latencies, 50).toFixed(1)),
        p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      };
    });
    const measuredRss = rss.filter((sample) => sample.at >= 0);
    const firstRss = measuredRss[0]?.kb ?? NaN;
    const lastRss = measuredRss.at(-1)?.kb ?? NaN;
    // The trend over the second half, after the caches and pools have filled: what a leak would show.
    const secondHalf = measuredRss.filter((sample) => sample.at >= SECONDS / 2);
    const trendMbPerHour = slope(secondHalf.map((sample) => ({ x: sample.at, y: sample.kb / 1024 }))) * 3600;

    const summary = {
      commit: measuredCommit(),
      engine: ENGINE,
      redis: Boolean(process.env.REDIS_URL),
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      requestsPerSecond: RPS,
      planPerMinute: PLAN,
      requests: measured.length,
      notSentLate: late,
      ok: measured.filter(isOk).length,
      observed429: observed429.length,
      predicted429: predicted429.length,
      unexpectedErrors: unexpected.length,
      unexpectedSamples: unexpected.slice(0, 5).map(({ kind, status, detail }) => ({ kind, status, detail })),
      rssStartMb: Number((firstRss / 1024).toFixed(1)),
      rssEndMb: Number((lastRss / 1024).toFixed(1)),
      rssFirstMinuteMeanMb: perMinute[0]?.rssMb,
      rssLastMinuteMeanMb: perMinute.at(-1)?.rssMb,
      rssMinMb: Number((Math.min(...measuredRss.map((s) => s.kb)) / 1024).toFixed(1)),
      rssMaxMb: Number((Math.max(...measuredRss.map((s) => s.kb)) / 1024).toFixed(1)),
      rssTrendSecondHalfMbPerHour: Number(trendMbPerHour.toFixed(1)),
      heapUsedFirstMinuteMeanMb: perMinute[0]?.heapUsedMb,
      heapUsedLastMinuteMeanMb: perMinute.at(-1)?.heapUsedMb,
      heapTrendSecondHalfMbPerHour: Number(
        (
          slope(heap.filter((sample) => sample.at >= SECONDS / 2).map((sample) => ({ x: sample.at, y: sample.mb }))) *
          3600
        ).toFixed(1),
      ),
      p99FirstMinuteMs: perMinute[0]?.p99Ms,
      p99LastMinuteMs: perMinute.at(-1)?.p99Ms,
      webhooks: { received: receiver.count, duplicates: receiver.duplicates },
      perMinute,
      kinds,
    };
    const line = (cells: (string | number | null)[]) => cells.map((cell) => String(cell ?? '-').padStart(9)).join(' ');
    log('');
    log(line(['minute', 'requests', 'errors', 'p50 ms', 'p99 ms', 'max ms', 'RSS MB', 'heap MB']));
    for (const row of perMinute)
      log(line([row.minute, row.requests, row.errors, row.p50Ms, row.p99Ms, row.maxMs, row.rssMb, row.heapUsedMb]));
    log('');
    log(
      `soak: ${summary.requests} requests in ${SECONDS} s, ${summary.ok} ok, ${summary.observed429} × 429 (predicted ${summary.predicted429}), ` +
        `${summary.unexpectedErrors} unexpected errors, ${late} not sent (more than ${MAX_IN_FLIGHT} in flight); RSS ${summary.rssStartMb} → ${summary.rssEndMb} MB ` +
        `(minute means ${summary.rssFirstMinuteMeanMb} → ${summary.rssLastMinuteMeanMb}; min ${summary.rssMinMb}, max ${summary.rssMaxMb}, second-half trend ${summary.rssTrendSecondHalfMbPerHour} MB/h; V8 heap used ${summary.heapUsedFirstMinuteMeanMb} → ${summary.heapUsedLastMinuteMeanMb} MB, trend ${summary.heapTrendSecondHalfMbPerHour} MB/h); p99 ${summary.p99FirstMinuteMs} ms in the first minute, ` +
        `${summary.p99LastMinuteMs} ms in the last; webhooks received ${receiver.count}, ${receiver.duplicates} twice`,
    );
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const file = join(ROOT, 'bench/results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
    log(`saved ${file}`);
    process.stdout.write(JSON.stringify(summary) + '\n');
    if (serverErrors.trim()) log(`server stderr:\n${serverErrors.slice(0, 2000)}`);
    if (summary.unexpectedErrors > 0) process.exitCode = 1;
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await receiver.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
