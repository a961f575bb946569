// Commit-to-delivery latency at a steady 100 events/s: from the moment a recording transaction's commit returns to
// the moment the loopback HTTPS receiver has the delivery, with `patron dispatch` (a child process) woken by
// LISTEN/NOTIFY. Target (issue 4): p95 ≤ 200 ms.
//
//   node --import tsx bench/webhooks-latency.ts
//
// Tunables (env): BENCH_RATE (100 events/s), BENCH_DURATION_S (20), BENCH_ENDPOINTS (1), BENCH_USE_DIST=1.
import Type from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import { recordEvents } from '../src/events/outbox.js';
import { createSecretBox } from '../src/core/secret-box.js';
import { createOrganization } from '../src/resources/organization/service.js';
import {
  log,
  patron,
  percentile,
  scratchDatabase,
  SECRET_KEY,
  sleep,
  startReceiver,
  stopChild,
} from './support/webhooks.js';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 1);
const Record = Type.Object({ id: Type.String(), name: Type.String(), updatedAt: Type.String() });

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
    const dispatcherUrl =
      process.env.BENCH_ASYNC_COMMIT === '1'
        ? `${scratch.url}?options=${encodeURIComponent('-c synchronous_commit=off')}`
        : scratch.url;
    const dispatcher = patron(['dispatch'], { DATABASE_URL: dispatcherUrl, NODE_EXTRA_CA_CERTS: receiver.caFile });
    await sleep(3_000);

    const committedAt = new Map<string, number>();
    const total = RATE * DURATION_S;
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(
        database.db
          .transaction()
          .execute((trx) =>
            recordEvents(trx, [
              {
                organizationId: organization.id,
                name: 'site.updated',
                schema: Record,
                record: { id: uuidv7(), name: `n${index}`, updatedAt: new Date().toISOString() },
              },
            ]),
          )
          .then(([event]) => {
            committedAt.set(event!.id, performance.now());
          }),
      );
    }
    await Promise.all(inFlight);
    const deadline = Date.now() + 60_000;
    while (receiver.count < total * ENDPOINTS && Date.now() < deadline) await sleep(50);
    await stopChild(dispatcher);

    const latencies: number[] = [];
    for (const [key, arrived] of receiver.arrivals) {
      const committed = committedAt.get(key.slice(0, 36));
      if (committed !== undefined) latencies.push(arrived - committed);
    }
    latencies.sort((a, b) => a - b);
    const result = {
      rate: RATE,
      seconds: DURATION_S,
      endpoints: ENDPOINTS,
      deliveries: total * ENDPOINTS,
      received: receiver.count,
      duplicates: receiver.duplicates,
      latencyMs: {
        p50: Number(percentile(latencies, 50).toFixed(1)),
        p95: Number(percentile(latencies, 95).toFixed(1)),
        p99: Number(percentile(latencies, 99).toFixed(1)),
        max: Number((latencies.at(-1) ?? NaN).toFixed(1)),
      },
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
