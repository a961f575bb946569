// PostgreSQL CPU per delivery of the dispatcher's queue statements alone (no HTTP): claim endpoints, claim windows,
// write outcomes, exactly as the dispatcher does, with every POST answered "succeeded" at once. Separates the
// database's share of bench/webhooks-dispatch.ts from the sender's.
//
//   node --import tsx bench/webhooks-queue-cpu.ts
//
// Tunables (env): BENCH_ENDPOINTS (20), BENCH_DELIVERIES (20000), BENCH_WINDOW (50).
import Type from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import { recordEvents } from '../src/events/outbox.js';
import { claimEndpoints, claimWindow, releaseEndpoint, writeOutcomes } from '../src/jobs/dispatcher/queue.js';
import { createOrganization } from '../src/resources/organization/service.js';
import { log, postgresCpuMs, scratchDatabase } from './support/webhooks.js';

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 20);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 50);
const Record = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  metadata: Type.Record(Type.String(), Type.String()),
  updatedAt: Type.String(),
});

async function main() {
  const scratch = await scratchDatabase();
  const database = await openDatabase({
    databaseUrl:
      process.env.BENCH_ASYNC_COMMIT === '1'
        ? `${scratch.url}?options=${encodeURIComponent('-c synchronous_commit=off')}`
        : scratch.url,
    dataDir: 'memory://',
  });
  try {
    await migrateToLatest(database.db);
    const organization = await createOrganization(database.db, { name: 'Bench' });
    for (let index = 0; index < ENDPOINTS; index++) {
      await database.db
        .insertInto('webhook_endpoints')
        .values({
          organization_id: organization.id,
          id: uuidv7(),
          url: `https://127.0.0.1:9/e${index}`,
          events: ['site.updated'],
          secret_ciphertext: null,
        })
        .execute();
    }
    const events = Math.ceil(DELIVERIES / ENDPOINTS);
    for (let start = 0; start < events; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, events - start) }, (_, index) => ({
        organizationId: organization.id,
        name: 'site.updated',
        schema: Record,
        record: {
          id: uuidv7(),
          name: `Shop ${start + index}`,
          domain: `shop${start + index}.example.com`,
          metadata: { region: 'eu' },
          updatedAt: new Date().toISOString(),
        },
      }));
      await database.db.transaction().execute((trx) => recordEvents(trx, batch));
    }
    const owner = 'bench';
    const before = postgresCpuMs(scratch.url);
    const started = performance.now();
    let delivered = 0;
    // Wall-clock ms summed per statement kind (the endpoints run concurrently, so these overlap).
    const timings = { claimWindow: 0, writeOutcomes: 0 };
    let statements = 0;
    for (;;) {
      const claimed = await claimEndpoints(database.db, owner, ENDPOINTS, 15_000);
      statements++;
      if (claimed.length === 0) break;
      await Promise.all(
        claimed
          .map(async (endpoint) => {
            let position = endpoint.position;
            for (;;) {
              let t0 = performance.now();
              const window = await claimWindow(database.db, owner, endpoint, {
                position,
                size: WINDOW,
                leaseMs: 15_000,
              });
              timings.claimWindow += performance.now() - t0;
              statements++;
              if (!window || window.through === position) return;
              const attemptedAt = new Date();
              t0 = performance.now();
              await writeOutcomes(
                database.db,
                endpoint.organizationId,
                window.deliveries.map((delivery) => ({
                  deliveryId: delivery.id,
                  url: window.url,
                  attemptedAt,
                  outcome: { status: 'succeeded', responseStatus: 200, error: null, durationMs: 1 },
                })),
              );
              timings.writeOutcomes += performance.now() - t0;
              statements++;
              delivered += window.deliveries.length;
              position = window.through;
            }
          })
          .concat([]),
      );
      void releaseEndpoint;
    }
    const after = postgresCpuMs(scratch.url);
    const result = {
      endpoints: ENDPOINTS,
      window: WINDOW,
      delivered,
      statements,
      seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
      msPerStatement: {
        claimWindow: Number((timings.claimWindow / (statements / 2)).toFixed(2)),
        writeOutcomes: Number((timings.writeOutcomes / (statements / 2)).toFixed(2)),
      },
      postgresCpuUsPerDelivery:
        before === null || after === null ? null : Math.round(((after - before) * 1000) / delivered),
    };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await database.close();
    await scratch.drop();
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exitCode = 1;
});
