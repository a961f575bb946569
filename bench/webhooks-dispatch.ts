// Webhook dispatch throughput: signed deliveries per second from `patron dispatch` (a child process) to a loopback
// HTTPS receiver answering 200 at once. Target (issue 4): ≥ 1,500 deliveries/s on the 2-core machine.
//
//   node --import tsx bench/webhooks-dispatch.ts
//
// A scratch PostgreSQL database is created (BENCH_ADMIN_URL) and dropped. The backlog is recorded first, with the
// dispatcher stopped, through recordEvents (so the rows are exactly what the API writes); then the dispatcher
// starts and the rate is measured from the first delivery received to the last. Tunables (env): BENCH_ENDPOINTS
// (20: endpoints, all on the one receiver, each sent to in order), BENCH_DELIVERIES (30000), BENCH_CONCURRENCY is not
// exposed (the dispatcher's default, 64 endpoints at once), BENCH_USE_DIST=1.
import Type from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import { recordEvents } from '../src/events/outbox.js';
import { createSecretBox } from '../src/core/secret-box.js';
import { createOrganization } from '../src/resources/organization/service.js';
import {
  cpuMs,
  log,
  patron,
  postgresCpuMs,
  scratchDatabase,
  SECRET_KEY,
  sleep,
  startReceiver,
  stopChild,
} from './support/webhooks.js';

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 20);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 30_000);

/** A record about the size of a site or a small product. */
const Record = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  platform: Type.String(),
  currencyCode: Type.String(),
  metadata: Type.Record(Type.String(), Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

async function main() {
  const scratch = await scratchDatabase();
  const receiver = await startReceiver();
  const database = await openDatabase({ databaseUrl: scratch.url, dataDir: 'memory://' });
  try {
    await migrateToLatest(database.db);
    const organization = await createOrganization(database.db, { name: 'Bench' });
    const box = createSecretBox(SECRET_KEY);
    for (let index = 0; index < ENDPOINTS; index++) {
      await database.db
        .insertInto('webhook_endpoints')
        .values({
          organization_id: organization.id,
          id: uuidv7(),
          url: `${receiver.origin}/e${index}`,
          events: ['site.updated'],
          secret_ciphertext: box.seal(`bench-endpoint-secret-${index}`),
        })
        .execute();
    }
    const events = Math.ceil(DELIVERIES / ENDPOINTS);
    const now = new Date().toISOString();
    const recordStarted = performance.now();
    for (let start = 0; start < events; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, events - start) }, (_, index) => ({
        organizationId: organization.id,
        name: 'site.updated',
        schema: Record,
        record: {
          id: uuidv7(),
          name: `Shop ${start + index}`,
          domain: `shop${start + index}.example.com`,
          platform: 'custom',
          currencyCode: 'USD',
          metadata: { region: 'eu' },
          createdAt: now,
          updatedAt: now,
        },
      }));
      await database.db.transaction().execute((trx) => recordEvents(trx, batch));
    }
    const total = events * ENDPOINTS;
    log(
      `recorded ${events} events -> ${total} pending deliveries in ${Math.round(performance.now() - recordStarted)} ms`,
    );

    const pgBefore = postgresCpuMs(scratch.url);
    const dispatcher = patron(['dispatch'], { DATABASE_URL: scratch.url, NODE_EXTRA_CA_CERTS: receiver.caFile });
    const deadline = Date.now() + 600_000;
    while (receiver.count < total && Date.now() < deadline) await sleep(20);
    let first = Infinity;
    let last = 0;
    for (const at of receiver.arrivals.values()) {
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    // CPU per delivery is the figure a busy machine distorts least: the rate is bounded by 2 cores / this.
    const dispatcherCpu = cpuMs(dispatcher.pid);
    const pgAfter = postgresCpuMs(scratch.url);
    await stopChild(dispatcher);
    const rows = await database.db
      .selectFrom('webhook_deliveries')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const rate = (receiver.count - 1) / ((last - first) / 1000);
    const result = {
      endpoints: ENDPOINTS,
      deliveries: total,
      received: receiver.count,
      duplicates: receiver.duplicates,
      statuses: Object.fromEntries(rows.map((row) => [row.status, Number(row.n)])),
      seconds: Number(((last - first) / 1000).toFixed(2)),
      deliveriesPerSecond: Math.round(rate),
      dispatcherCpuUsPerDelivery: dispatcherCpu === null ? null : Math.round((dispatcherCpu * 1000) / total),
      postgresCpuUsPerDelivery:
        pgAfter === null || pgBefore === null ? null : Math.round(((pgAfter - pgBefore) * 1000) / total),
      receiverAndBenchCpuUsPerDelivery: Math.round((process.cpuUsage().user + process.cpuUsage().system) / total),
    };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await database.close();
    await receiver.close();
    await scratch.drop();
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exitCode = 1;
});
