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
    order.map((i) => ({
      site: 'lock.example',
      customer: 'lock@example.com',
      remoteId: `lock-${i}`,
      number: `${1000 + i}`,
      totalCents: 100 + i,
      currencyCode: 'EUR',
      tags: [`t${i % 3}`],
    }));
  const deadlocks = async () => {
    const { rows: stats } = await sql<{
      deadlocks: string;
    }>`select deadlocks from pg_stat_database where datname = current_database()`.execute(t.testDatabase.database.db);
    return Number(stats[0]!.deadlocks);
  };

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    expect(
      await call('POST', '/sites', {
        data: { name: 'Lock', domain: 'lock.example', platform: 'custom', currencyCode: 'EUR' },
      }),
    ).toBe(201);
    expect(await call('POST', '/customers/import', { data: [{ email: 'lock@example.com' }] })).toBe(200);
    const indexes = Array.from({ length: ORDERS }, (_, i) => i);
    const created = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: tenant.key,
      body: { data: rows(indexes) },
    });
    orderIds = created.json().data.map((order: { id: string }) => order.id);
  });
  afterAll(() => t?.close());

  it('bulk updates, tag PATCHes and imports of the same orders in reversed and shuffled order all succeed without a deadlock', async () => {
    const before = await deadlocks();
    const indexes = Array.from({ length: ORDERS }, (_, i) => i);
    const shuffled = [...indexes].sort((x, y) => ((x * 7919) % ORDERS) - ((y * 7919) % ORDERS));
    const work: Promise<number>[] = [];
    for (let round = 0; round < 6; round++) {
      work.push(
        call('PATCH', '/orders/bulk-update', { addTags: [`bulk-${round}`], addMetadata: { round: String(round) } }),
      );
      work.push(call('POST', '/orders/import', { data: rows(round % 2 ? [...indexes].reverse() : shuffled) }));
      for (const id of [orderIds[round]!, orderIds[ORDERS - 1 - round]!])
        work.push(call('PATCH', `/orders/${id}`, { tags: ['patched', `r${round}`] }));
    }
    const statuses = await Promise.all(work);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await deadlocks()).toBe(before);
  }, 120_000);
});

describe.skipIf(!postgresUrl)('lock order of concurrent loyalty writers (PostgreSQL)', () => {
  const MEMBERS = 30;
  let t: TestApp;
  let tenant: Tenant;
  let membershipIds: string[];
  const emails = Array.from({ length: MEMBERS }, (_, i) => `m${i}@lock.example`);

  const call = async (method: 'PATCH' | 'POST', url: string, body: unknown) => {
    const response = await t.request({ method, url: `/v1${url}`, key: tenant.key, body });
    return `${response.statusCode}${response.statusCode >= 300 ? ` ${response.body}` : ''}`;
  };
  const deadlocks = async () => {
    const { rows: stats } = await sql<{
      deadlocks: string;
    }>`select deadlocks from pg_stat_database where datname = current_database()`.execute(t.testDatabase.database.db);
    return Number(stats[0]!.deadlocks);
  };
  const shuffled = <T>(items: T[], seed: number) =>
    [...items].sort((x, y) => ((items.indexOf(x) * seed) % 97) - ((items.indexOf(y) * seed) % 97));

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
    expect(
      await call('POST', '/sites', {
        data: { name: 'Lock', domain: 'loyalty.lock.example', platform: 'custom', currencyCode: 'EUR' },
      }),
    ).toBe('201');
    expect(await call('POST', '/customers/import', { data: emails.map((email) => ({ email })) })).toBe('200');
    expect(
      await call('POST', '/loyalty-memberships/import', { data: emails.map((email) => ({ customer: email })) }),
    ).toBe('200');
    expect(
      await call('POST', '/loyalty-rules', {
        data: { section: 'rules', name: 'Spend', config: { type: 'orderSpend', pointsPerUnit: 1 } },
      }),
    ).toBe('201');
    const members = await t.request({ url: '/v1/loyalty-memberships?limit=250', key: tenant.key });
    membershipIds = members.json().data.map((membership: { id: string }) => membership.id);
    expect(membershipIds).toHaveLength(MEMBERS);
  });
  afterAll(() => t?.close());

  it('order imports that earn, history imports and bulk expiry over the same members never deadlock', async () => {
    const before = await deadlocks();
    const work: Promise<string>[] = [];
    for (let round = 0; round < 4; round++) {
      const customers = shuffled(emails, 7 + round * 13);
      work.push(
        call('POST', '/orders/import', {
          data: customers.map((email, i) => ({
            site: 'loyalty.lock.example',
            customer: email,
            remoteId: `l-${round}-${i}`,
            number: `${round}-${i}`,
            totalCents: 1000,
            currencyCode: 'EUR',
          })),
        }),
      );
      work.push(
        call('POST', '/loyalty-history', {
          data: shuffled(emails, 11 + round * 5).map((email) => ({
            customer: email,
            kind: 'earned',
            points: 5,
            createdAt: '2025-06-01T00:00:00Z',
          })),
        }),
      );
      work.push(call('POST', '/loyalty-activity/bulk-expire', { reason: `round ${round}` }));
      for (const id of [membershipIds[round]!, membershipIds[MEMBERS - 1 - round]!]) {
        work.push(call('POST', `/loyalty-memberships/${id}/points-adjustments`, { points: 3, reason: 'lock' }));
      }
    }
    const statuses = await Promise.all(work);
    expect(statuses.filter((status) => status !== '200' && status !== '201')).toEqual([]);
    expect(await deadlocks()).toBe(before);
  }, 120_000);
});
