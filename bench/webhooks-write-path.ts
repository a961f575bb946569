// Cost of webhook fan-out on the write path: PATCH /v1/products/{id} with 0 vs 3 subscribed active endpoints.
// Target (issue 4): with 3 endpoints at most 10 % slower than with none.
//
//   node --import tsx bench/webhooks-write-path.ts          (BENCH_USE_DIST=1 after `npm run build`)
//
// One scratch PostgreSQL database (BENCH_ADMIN_URL), one organization, 500 products imported through the API, and
// three endpoints subscribed to product.updated. `patron serve --no-dispatch` runs as a child, so only the write path
// is measured (the receivers need not exist). Rounds alternate the mode on the same dataset: "none" makes the three
// endpoints inactive (so nothing is subscribed), "three" makes them active; the delivery rows of a round are removed
// before the next. Per mode: one request at a time (wall-clock latency) and BENCH_CONNECTIONS (8) at once
// (throughput), with the server's and its PostgreSQL backends' CPU per request, the figures a busy machine
// distorts least. Tunables (env): BENCH_ROUNDS (3), BENCH_SEQUENTIAL (400), BENCH_CONCURRENT (2000).
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { v7 as uuidv7 } from 'uuid';
import { createKey } from '../src/auth/keys.js';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import { createSecretBox } from '../src/core/secret-box.js';
import { createOrganization } from '../src/resources/organization/service.js';
import { freePort } from '../test/support/processes.js';
import {
  cpuMs,
  log,
  patron,
  percentile,
  postgresCpuMs,
  scratchDatabase,
  SECRET_KEY,
  sleep,
  stopChild,
} from './support/webhooks.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 400);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 2_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PRODUCTS = 500;

type Mode = 'none' | 'three';
interface Sample {
  mode: Mode;
  sequentialP50Ms: number;
  sequentialMeanMs: number;
  /** Server + PostgreSQL CPU per request, one request at a time. */
  sequentialCpuUsPerRequest: number | null;
  concurrentPerSecond: number;
  serverCpuUsPerRequest: number | null;
  postgresCpuUsPerRequest: number | null;
}

const sumCpu = (
  serverBefore: number | null,
  serverAfter: number | null,
  pgBefore: number | null,
  pgAfter: number | null,
  requests: number,
) =>
  serverBefore === null || serverAfter === null || pgBefore === null || pgAfter === null
    ? null
    : Math.round(((serverAfter - serverBefore + pgAfter - pgBefore) * 1000) / requests);

async function main() {
  const scratch = await scratchDatabase();
  const database = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory://' });
  let server: ReturnType<typeof patron> | undefined;
  const agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 60_000 });
  try {
    await migrateToLatest(database.db);
    const organization = await createOrganization(database.db, { name: 'Bench' });
    await database.db
      .updateTable('organizations')
      .set({ api_requests_per_minute: 100_000_000 })
      .where('id', '=', organization.id)
      .execute();
    const { key } = await createKey(database.db, {
      organizationId: organization.id,
      permissions: ['all'],
      name: 'bench',
    });
    const box = createSecretBox(SECRET_KEY);
    for (let index = 0; index < 3; index++) {
      await database.db
        .insertInto('webhook_endpoints')
        .values({
          organization_id: organization.id,
          id: uuidv7(),
          url: `https://hooks${index}.example.com/patron`,
          events: ['product.created', 'product.updated', 'product.deleted'],
          is_active: false,
          secret_ciphertext: box.seal(`bench-endpoint-secret-${index}`),
        })
        .execute();
    }

    const port = await freePort();
    server = patron(['serve', '--no-dispatch'], { DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    for (
      let tries = 0;
      !(await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      ));
      tries++
    ) {
      if (tries > 1200) throw new Error('server not ready');
      await sleep(50);
    }
    const call = async (method: 'POST' | 'PATCH', path: string, body: unknown) => {
      const response = await request(`${base}${path}`, {
        dispatcher: agent,
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      if (response.statusCode >= 300) throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
      return text;
    };
    const rows = Array.from({ length: PRODUCTS }, (_, index) => ({
      slug: `p${index}`,
      title: `Product ${index}`,
      description: 'A product for the bench.',
      metadata: { shelf: String(index % 17) },
    }));
    const imported = JSON.parse(await call('POST', '/v1/products/import', { data: rows })) as {
      data: { id: string }[];
    };
    const ids = imported.data.map((product) => product.id);
    log(`imported ${ids.length} products`);

    let counter = 0;
    const patch = () => {
      const n = counter++;
      return call('PATCH', `/v1/products/${ids[n % ids.length]}`, {
        metadata: { shelf: String(n % 17), touched: String(n) },
      });
    };

    const measure = async (mode: Mode): Promise<Sample> => {
      await database.db
        .updateTable('webhook_endpoints')
        .set({ is_active: mode === 'three' })
        .where('organization_id', '=', organization.id)
        .execute();
      for (let index = 0; index < 50; index++) await patch(); // warm-up, discarded
      const latencies: number[] = [];
      const sequentialServerBefore = cpuMs(server!.pid);
      const sequentialPgBefore = postgresCpuMs(scratch.url);
      for (let index = 0; index < SEQUENTIAL; index++) {
        const started = performance.now();
        await patch();
        latencies.push(performance.now() - started);
      }
      const sequentialCpu = sumCpu(
        sequentialServerBefore,
        cpuMs(server!.pid),
        sequentialPgBefore,
        postgresCpuMs(scratch.url),
        SEQUENTIAL,
      );
      latencies.sort((a, b) => a - b);
      const serverBefore = cpuMs(server!.pid);
      const pgBefore = postgresCpuMs(scratch.url);
      const started = performance.now();
      let issued = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (issued++ < CONCURRENT) await patch();
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const serverAfter = cpuMs(server!.pid);
      const pgAfter = postgresCpuMs(scratch.url);
      const perRequest = (before: number | null, after: number | null) =>
        before === null || after === null ? null : Math.round(((after - before) * 1000) / CONCURRENT);
      const deliveries = await database.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      log(`  ${mode}: ${Number(deliveries.n)} delivery rows written this round`);
      await database.db.deleteFrom('webhook_deliveries').execute();
      return {
        mode,
        sequentialP50Ms: Number(percentile(latencies, 50).toFixed(2)),
        sequentialMeanMs: Number((latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(2)),
        sequentialCpuUsPerRequest: sequentialCpu,
        concurrentPerSecond: Math.round(CONCURRENT / seconds),
        serverCpuUsPerRequest: perRequest(serverBefore, serverAfter),
        postgresCpuUsPerRequest: perRequest(pgBefore, pgAfter),
      };
    };

    const samples: Sample[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order: Mode[] = round % 2 === 0 ? ['none', 'three'] : ['three', 'none'];
      for (const mode of order) {
        const sample = await measure(mode);
        log(`round ${round + 1} ${JSON.stringify(sample)}`);
        samples.push(sample);
      }
    }
    // How the endpoint rows, updated by every fanning-out transaction, held up (HOT updates keep their indexes still).
    const { rows: tableStats } = await sql<{
      relname: string;
      n_tup_upd: string;
      n_tup_hot_upd: string;
      pages: string;
    }>`
      select relname, n_tup_upd, n_tup_hot_upd, pg_relation_size(relid) / 8192 as pages from pg_stat_user_tables
      where relname in ('webhook_endpoints', 'webhook_deliveries', 'events')`.execute(database.db);
    log(`table stats ${JSON.stringify(tableStats)}`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const summary = (mode: Mode) => {
      const of = samples.filter((sample) => sample.mode === mode);
      return {
        sequentialP50Ms: median(of.map((s) => s.sequentialP50Ms)),
        sequentialMeanMs: median(of.map((s) => s.sequentialMeanMs)),
        sequentialCpuUsPerRequest: median(of.map((s) => s.sequentialCpuUsPerRequest ?? NaN)),
        concurrentPerSecond: median(of.map((s) => s.concurrentPerSecond)),
        serverCpuUsPerRequest: median(of.map((s) => s.serverCpuUsPerRequest ?? NaN)),
        postgresCpuUsPerRequest: median(of.map((s) => s.postgresCpuUsPerRequest ?? NaN)),
      };
    };
    const none = summary('none');
    const three = summary('three');
    const pct = (a: number, b: number) => Number((((b - a) / a) * 100).toFixed(1));
    const result = {
      rounds: ROUNDS,
      connections: CONNECTIONS,
      none,
      three,
      slowerPercent: {
        sequentialP50: pct(none.sequentialP50Ms, three.sequentialP50Ms),
        sequentialMean: pct(none.sequentialMeanMs, three.sequentialMeanMs),
        sequentialCpuPerRequest: pct(none.sequentialCpuUsPerRequest, three.sequentialCpuUsPerRequest),
        concurrentThroughput: pct(three.concurrentPerSecond, none.concurrentPerSecond),
        concurrentCpuPerRequest: pct(
          none.serverCpuUsPerRequest + none.postgresCpuUsPerRequest,
          three.serverCpuUsPerRequest + three.postgresCpuUsPerRequest,
        ),
      },
    };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    if (server) await stopChild(server);
    await agent.close();
    await database.close();
    await scratch.drop();
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exitCode = 1;
});
