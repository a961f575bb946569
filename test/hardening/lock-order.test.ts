/**
 * Concurrent writers of the same records: bulk updates, PATCHes with tags and imports of the same orders in
 * different orders. Every writer locks records in id order before their tag links, so they queue behind each other
 * and PostgreSQL never has to break a deadlock (each one costs a second and a retried transaction).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { postgresUrl } from '../support/database.js';

const ORDERS = 40;

describe.skipIf(!postgresUrl)('lock order of concurrent writers (PostgreSQL)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let orderIds: string[];

  const call = async (method: 'PATCH' | 'POST', url: string, body: unknown) => {
    const response = await t.request({ method, url: `/v1${url}`, key: tenant.key, body });
    return response.statusCode;
  };
  const rows = (order: number[]) =>
    order.map((i) => ({ site: 'lock.example', customer: 'lock@example.com', remoteId: `lock-${i}`, number: `${1000 + i}`, totalCents: 100 + i, currencyCode: 'EUR', tags: [`t${i % 3}`] }));
  const deadlocks = async () => {
    const { rows: stats } = await sql<{ deadlocks: string }>`select deadlocks from pg_stat_database where datname = current_database()`.execute(t.testDatabase.database.db);
    return Number(stats[0]!.deadlocks);
  };

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    expect(await call('POST', '/sites', { data: { name: 'Lock', domain: 'lock.example', platform: 'custom', currencyCode: 'EUR' } })).toBe(201);
    expect(await call('POST', '/customers/import', { data: [{ email: 'lock@example.com' }] })).toBe(200);
    const indexes = Array.from({ length: ORDERS }, (_, i) => i);
    const created = await t.request({ method: 'POST', url: '/v1/orders/import', key: tenant.key, body: { data: rows(indexes) } });
    orderIds = created.json().data.map((order: { id: string }) => order.id);
  });
  afterAll(() => t?.close());

  it('bulk updates, tag PATCHes and imports of the same orders in reversed and shuffled order all succeed without a deadlock', async () => {
    const before = await deadlocks();
    const indexes = Array.from({ length: ORDERS }, (_, i) => i);
    const shuffled = [...indexes].sort((x, y) => ((x * 7919) % ORDERS) - ((y * 7919) % ORDERS));
    const work: Promise<number>[] = [];
    for (let round = 0; round < 6; round++) {
      work.push(call('PATCH', '/orders/bulk-update', { addTags: [`bulk-${round}`], addMetadata: { round: String(round) } }));
      work.push(call('POST', '/orders/import', { data: rows(round % 2 ? [...indexes].reverse() : shuffled) }));
      for (const id of [orderIds[round]!, orderIds[ORDERS - 1 - round]!]) work.push(call('PATCH', `/orders/${id}`, { tags: ['patched', `r${round}`] }));
    }
    const statuses = await Promise.all(work);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await deadlocks()).toBe(before);
  }, 120_000);
});
