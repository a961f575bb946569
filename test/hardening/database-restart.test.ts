/**
 * A PostgreSQL restart under load, as a figure: `patron serve` as a real process behind a TCP proxy the test
 * controls, 50 keep-alive clients of mixed traffic (reads, PATCHes, creates that emit events), then every session
 * of the server terminated by PostgreSQL (FATAL 57P01, as a shutdown does) and new connections refused for 10 s.
 * While it is down every answer that is not 2xx is a 503 with Retry-After in the error envelope, and none hangs;
 * after it every request succeeds again within 5 s; every write answered 2xx is in the database, every committed
 * change has exactly one event, and every event one delivery per webhook endpoint. The shared PostgreSQL server
 * itself is never stopped.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../support/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { startWebhookReceiver, type WebhookReceiver, until, writeReceiverCa } from '../support/webhooks.js';
import { databaseOutage, startLoad, type LoadAnswer, type LoadRequest } from './load.js';
import { call, killAll, startServe, type ServeProcess } from './processes.js';
import { orderRows, seedStore } from './store.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const CLIENTS = 50;
/** Each client pauses this long between two requests, so the load stays bounded while every answer is instant. */
const PAUSE_MS = 50;
const OUTAGE_MS = 10_000;
/** Per-request time-out of the clients: an answer slower than this is a hang. */
const REQUEST_TIMEOUT_MS = 10_000;
const RECOVERY_WITHIN_MS = 5_000;
const ENDPOINT_PATHS = ['/restart-a', '/restart-b'];
const SUBSCRIBED = ['order.updated', 'loyaltyReward.issued', 'site.created'];

let testDatabase: TestDatabase;
let receiver: WebhookReceiver;
let proxy: TcpProxy;
let server: ServeProcess;
let tempDir: string;
const db = () => testDatabase.database.db;

beforeAll(async () => {
  if (!postgresUrl) return;
  testDatabase = await createTestDatabase();
  receiver = await startWebhookReceiver();
  tempDir = await mkdtemp(join(tmpdir(), 'patron-restart-'));
});

afterAll(async () => {
  await killAll();
  await proxy?.close();
  await receiver?.close();
  await testDatabase?.drop();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

const isOk = (answer: LoadAnswer) => typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300;

/**
 * The send time of the first request after `from` that opens a full second in which every request sent was answered
 * 2xx, or undefined while no such second has been seen.
 */
function firstCleanSecond(answers: LoadAnswer[], from: number): number | undefined {
  const after = answers.filter((answer) => answer.at >= from).sort((a, b) => a.at - b.at);
  let nextBadAt = Infinity;
  let found: number | undefined;
  const last = after.at(-1)?.at ?? -Infinity;
  for (let k = after.length - 1; k >= 0; k--) {
    const answer = after[k]!;
    if (!isOk(answer)) nextBadAt = answer.at;
    else if (nextBadAt >= answer.at + 1_000 && last >= answer.at + 1_000) found = answer.at;
  }
  return found;
}

describe.skipIf(!postgresUrl)('PostgreSQL restart under load (50 clients, 10 s)', () => {
  it('answers only 503 with Retry-After while down, recovers within 5 s, loses no committed write and duplicates no event', async () => {
    const { organization, key } = await createTenant(db(), {
      name: 'Database restart',
      apiRequestsPerMinute: 1_000_000,
    });
    const organizationId = organization.id;

    const caFile = await writeReceiverCa(receiver, tempDir);
    const target = new URL(testDatabase.url!);
    proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
    const throughProxy = new URL(testDatabase.url!);
    throughProxy.host = `127.0.0.1:${proxy.port}`;
    server = await startServe({
      DATABASE_URL: throughProxy.toString(),
      PATRON_DATA_DIR: tempDir,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
      WEBHOOK_TIMEOUT_MS: '1000',
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'warn',
    });
    for (const path of ENDPOINT_PATHS) {
      const created = await call(server.baseUrl, key, 'POST', '/v1/webhooks', {
        url: `${receiver.origin}${path}`,
        events: SUBSCRIBED,
        hmacSecret: 'restart-secret-0123456789',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const store = await seedStore(server.baseUrl, key, { name: 'restart', customers: CLIENTS, products: 10 });
    const imported = await call(server.baseUrl, key, 'POST', '/v1/orders/import', {
      data: orderRows(store, 'restart', CLIENTS),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    // Each client PATCHes its own order, so the last value it wrote is the order's value.
    const orderIds: string[] = imported.body.data.map((order: { id: string }) => order.id);

    const isCreate = (request: LoadRequest) => request.method === 'POST';
    const load = startLoad(
      server.baseUrl,
      key,
      CLIENTS,
      (i, worker): LoadRequest => {
        switch (i % 6) {
          case 0:
            return { method: 'GET', path: '/v1/orders?limit=5&include=customer' };
          case 1:
            return { method: 'PATCH', path: `/v1/orders/${orderIds[worker]}`, body: { notes: `w${worker}-${i}` } };
          case 2:
            return {
              method: 'POST',
              path: '/v1/loyalty-rewards',
              body: {
                loyaltyMembershipId: store.membershipIds[worker],
                reward: { type: 'freeShipping', maximumValueCents: null },
              },
            };
          case 3:
            return { method: 'GET', path: `/v1/orders/${orderIds[(worker + i) % orderIds.length]}` };
          case 4:
            return {
              method: 'POST',
              path: '/v1/sites',
              body: { name: `Site ${i}`, domain: `w${worker}-${i}.restart.example.com`, platform: 'custom' },
            };
          default:
            return { method: 'GET', path: '/v1/organization' };
        }
      },
      { timeoutMs: REQUEST_TIMEOUT_MS, pauseMs: PAUSE_MS, keepBody: isCreate },
    );

    // Every client has been answered a few times before the outage.
    await until(async () => load.answers.length >= CLIENTS * 3, 60_000);
    const { cutAt, restoredAt, terminated } = await databaseOutage(proxy, db(), 'restart', OUTAGE_MS, async () => {
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(503);
    });
    const recoveredAt = await until(async () => {
      const found = firstCleanSecond(load.answers, restoredAt);
      return found !== undefined && Date.now() - found > 3_000 ? found : undefined;
    }, 60_000);
    await load.stop();
    const answers = load.answers;

    // Before the outage: all 2xx. Every answer of the run: 2xx or 503, none a network error or a time-out.
    const statuses = (list: LoadAnswer[]) => [...new Set(list.map((answer) => String(answer.status)))].sort().join('/');
    expect(statuses(answers.filter((answer) => answer.at + answer.ms < cutAt))).toMatch(/^(200\/201|200|201)$/);
    const unexpected = answers.filter((answer) => !isOk(answer) && answer.status !== 503);
    expect(unexpected.slice(0, 5), `${unexpected.length} answers neither 2xx nor 503`).toEqual([]);
    // Every 503 (they all fall in the outage): Retry-After and the error envelope.
    const refused = answers.filter((answer) => answer.status === 503);
    for (const answer of refused) {
      expect(Number(answer.retryAfter), JSON.stringify(answer)).toBeGreaterThanOrEqual(1);
      expect(answer.body).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
      expect(answer.at + answer.ms).toBeGreaterThanOrEqual(cutAt);
      expect(answer.at).toBeLessThan(recoveredAt);
    }
    // While down: requests sent well inside the outage (one in flight at either edge may go either way) are 503.
    const during = answers.filter((answer) => answer.at >= cutAt && answer.at < restoredAt);
    const inside = during.filter((answer) => answer.at >= cutAt + 200 && answer.at < restoredAt - 200);
    expect(inside.length).toBeGreaterThan(CLIENTS * 10);
    expect(statuses(inside)).toBe('503');
    const slowest = Math.max(...during.map((answer) => answer.ms));
    // Never a hang: at worst the pool's 5 s connect time-out.
    expect(slowest).toBeLessThan(6_000);
    // Recovery: from the first full second of only 2xx after the restore, every answer is 2xx.
    const recoveryMs = recoveredAt - restoredAt;
    expect(recoveryMs).toBeLessThan(RECOVERY_WITHIN_MS);
    expect(answers.filter((answer) => answer.at >= recoveredAt && !isOk(answer))).toEqual([]);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/request failed|unexpected error/);

    // 0 lost committed writes: every create answered 201 is in the database.
    const created = (path: string) =>
      answers.filter((answer) => answer.request.path === path && answer.status === 201).map((answer) => answer.body.id);
    const rewardIds: string[] = created('/v1/loyalty-rewards');
    const siteIds: string[] = created('/v1/sites');
    const present = async (table: 'loyalty_rewards' | 'sites', ids: string[]) =>
      new Set(
        (
          await db()
            .selectFrom(table)
            .select('id')
            .where('organization_id', '=', organizationId)
            .where('id', 'in', ids.length ? ids : ['00000000-0000-0000-0000-000000000000'])
            .execute()
        ).map((row) => row.id),
      );
    const rewardsPresent = await present('loyalty_rewards', rewardIds);
    const sitesPresent = await present('sites', siteIds);
    const lost = [
      ...rewardIds.filter((id) => !rewardsPresent.has(id)),
      ...siteIds.filter((id) => !sitesPresent.has(id)),
    ];
    // A PATCH answered 200 is in the database: its order holds that value, or the value of a PATCH its client sent
    // later (a write whose answer was a 503 may still have committed), never an earlier one.
    const patches = answers.filter((answer) => answer.request.method === 'PATCH');
    const patched = patches.filter(isOk);
    const finalNotes = new Map(
      (
        await db()
          .selectFrom('orders')
          .select(['id', 'notes'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', orderIds)
          .execute()
      ).map((row) => [row.id, row.notes]),
    );
    const sequence = (notes: string) => Number(notes.split('-')[1]);
    for (let worker = 0; worker < CLIENTS; worker++) {
      const mine = patched.filter((answer) => answer.worker === worker);
      if (mine.length === 0) continue;
      const lastOk = Math.max(...mine.map((answer) => sequence((answer.request.body as { notes: string }).notes)));
      const notes = finalNotes.get(orderIds[worker]!) ?? '';
      const sentLater = patches.some(
        (answer) =>
          answer.worker === worker &&
          (answer.request.body as { notes: string }).notes === notes &&
          sequence(notes) >= lastOk,
      );
      if (!sentLater)
        lost.push(`order ${orderIds[worker]} holds "${notes}", its last PATCH answered 200 was #${lastOk}`);
    }

    // 0 duplicated events: each reward, site and PATCH value committed has exactly one event, and each event its record.
    const eventCounts = async (name: string, field: string) =>
      new Map(
        (
          await sql<{ subject: string; n: number }>`select payload->>${field} as subject, count(*)::int as n from events
            where organization_id = ${organizationId}::uuid and name = ${name} group by 1`.execute(db())
        ).rows.map((row) => [row.subject, row.n]),
      );
    const rewardEvents = await eventCounts('loyaltyReward.issued', 'id');
    const siteEvents = await eventCounts('site.created', 'id');
    const patchEvents = await eventCounts('order.updated', 'notes');
    const allRewards = (
      await db().selectFrom('loyalty_rewards').select('id').where('organization_id', '=', organizationId).execute()
    ).map((row) => row.id);
    const allSites = (
      await db().selectFrom('sites').select('id').where('organization_id', '=', organizationId).execute()
    ).map((row) => row.id);
    const duplicated = [...rewardEvents, ...siteEvents, ...patchEvents].filter(([subject, n]) => subject && n > 1);
    expect([...rewardEvents.keys()].sort()).toEqual([...allRewards].sort());
    expect([...siteEvents.keys()].sort()).toEqual([...allSites].sort());
    for (const answer of patched) {
      expect(patchEvents.get((answer.request.body as { notes: string }).notes), JSON.stringify(answer.request)).toBe(1);
    }
    const activity = await sql<{ n: number }>`select count(*)::int as n from loyalty_activity
      where organization_id = ${organizationId}::uuid and type = 'rewardIssued'`.execute(db());
    expect(activity.rows[0]!.n).toBe(allRewards.length);

    // Each event one delivery per endpoint, none received twice.
    await until(async () => {
      const pending = await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
        where organization_id = ${organizationId}::uuid and status in ('pending', 'sending')`.execute(db());
      return pending.rows[0]!.n === 0;
    }, 180_000);
    const events = await db()
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name', 'in', SUBSCRIBED)
      .execute();
    const deliveries = await db()
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as w', (join) =>
        join.onRef('w.organization_id', '=', 'd.organization_id').onRef('w.id', '=', 'd.webhook_id'),
      )
      .select(['d.idempotency_key', 'd.status', 'd.error', 'w.url'])
      .where('d.organization_id', '=', organizationId)
      .where('d.event_id', 'is not', null)
      .execute();
    let receivedTwice = 0;
    const deliveryStatuses = new Map<string, number>();
    for (const path of ENDPOINT_PATHS) {
      const mine = deliveries.filter((delivery) => delivery.url.endsWith(path));
      expect(mine).toHaveLength(events.length);
      expect(new Set(mine.map((delivery) => delivery.idempotency_key))).toEqual(
        new Set(events.map((event) => event.id)),
      );
      const received = receiver.received
        .filter((request) => request.path === path)
        .map((request) => request.headers['webhook-id']!);
      receivedTwice += received.length - new Set(received).size;
      const receivedIds = new Set(received);
      for (const delivery of mine) {
        const outcome =
          delivery.status === 'succeeded'
            ? 'succeeded'
            : `${delivery.status} (${delivery.error}${receivedIds.has(delivery.idempotency_key) ? ', received' : ''})`;
        deliveryStatuses.set(outcome, (deliveryStatuses.get(outcome) ?? 0) + 1);
        if (delivery.status === 'succeeded') expect(receivedIds.has(delivery.idempotency_key)).toBe(true);
      }
    }

    const writes = answers.filter((answer) => answer.request.method !== 'GET');
    console.log(
      `database restart: ${CLIENTS} clients (each pausing ${PAUSE_MS} ms), ${terminated} sessions terminated, connections refused ${restoredAt - cutAt} ms; ` +
        `${during.length} requests sent during the outage: ${during.filter((answer) => answer.status === 503).length} × 503 ` +
        `(Retry-After ${[...new Set(refused.map((answer) => answer.retryAfter))].join('/')}, error envelope), ` +
        `${during.filter(isOk).length} × 2xx at the edges, 0 other; slowest ${slowest.toFixed(0)} ms; ` +
        `recovered (first full second of only 2xx) ${recoveryMs} ms after the restore; ` +
        `${answers.length} requests in all, ${writes.filter(isOk).length} writes answered 2xx ` +
        `(${rewardIds.length} rewards, ${siteIds.length} sites, ${patched.length} PATCHes): lost ${lost.length}; ` +
        `${events.length} events, duplicated ${duplicated.length}; ${deliveries.length} deliveries to ${ENDPOINT_PATHS.length} endpoints ` +
        `(${[...deliveryStatuses].map(([status, n]) => `${n} ${status}`).join(', ')}), received twice ${receivedTwice}`,
    );
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
    expect(receivedTwice).toBe(0);
  });
});
