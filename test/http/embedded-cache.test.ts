/**
 * The embedded engine's cache of keys and organizations (docs/api.md#embedded-database-and-cli): every request after
 * the first is answered from memory, yet any change made through the process (API, dashboard, CLI functions,
 * organization delete) is seen by the very next request. On PostgreSQL nothing is cached.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, revokeKey } from '../../src/auth/keys.js';
import { EmbeddedReadCache, embeddedCacheOf } from '../../src/db/embedded-cache.js';
import { deleteOrganization } from '../../src/db/organization-delete.js';
import { updateOrganizationPlan } from '../../src/resources/organization/service.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const db = () => t.testDatabase.database.db;
const embedded = !process.env.DATABASE_URL;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Statements the app sends through the database handle while `run` runs. */
async function statementsDuring(run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(db(), 'executeQuery');
  try {
    await run();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe.runIf(embedded)('the embedded engine caches keys and organizations', () => {
  it('answers a repeated GET /v1/organization without a statement', async () => {
    const own = await t.tenant();
    const first = await statementsDuring(() => t.request({ url: '/v1/organization', key: own.key }));
    expect(first).toBeGreaterThan(0);
    const again = await statementsDuring(async () => {
      const response = await t.request({ url: '/v1/organization', key: own.key });
      expect(response.statusCode).toBe(200);
    });
    expect(again).toBe(0);
  });

  it('refuses a revoked key on the very next request', async () => {
    const own = await t.tenant();
    const second = await createKey(db(), { organizationId: own.organization.id, permissions: ['all'] });
    for (const key of [own.key, second.key]) {
      expect((await t.request({ url: '/v1/organization', key })).statusCode).toBe(200);
    }
    expect(await statementsDuring(() => t.request({ url: '/v1/organization', key: second.key }))).toBe(0);
    await revokeKey(db(), second.record.id);
    const response = await t.request({ url: '/v1/organization', key: second.key });
    expect(response.statusCode).toBe(401);
    expect((await t.request({ url: '/v1/organization', key: own.key })).statusCode).toBe(200);
  });

  it("applies the operator's plan change on the next request", async () => {
    const own = await t.tenant({ apiRequestsPerMinute: 600 });
    const before = await t.request({ url: '/v1/organization', key: own.key });
    expect(before.json().plan.apiRequestsPerMinute).toBe(600);
    expect(before.headers['ratelimit-policy']).toBe('"org";q=600;w=60');
    await updateOrganizationPlan(db(), own.organization.id, { apiRequestsPerMinute: 1200 });
    const after = await t.request({ url: '/v1/organization', key: own.key });
    expect(after.json().plan.apiRequestsPerMinute).toBe(1200);
    expect(after.headers['ratelimit-policy']).toBe('"org";q=1200;w=60');
  });

  it('shows a PATCH of the organization to the next GET', async () => {
    const own = await t.tenant({ name: 'Before' });
    expect((await t.request({ url: '/v1/organization', key: own.key })).json().name).toBe('Before');
    const patched = await t.request({
      method: 'PATCH',
      url: '/v1/organization',
      key: own.key,
      body: { name: 'After', settings: { expiringSoonDays: 9 } },
    });
    expect(patched.statusCode).toBe(200);
    const after = (await t.request({ url: '/v1/organization', key: own.key })).json();
    expect(after).toMatchObject({ name: 'After', settings: { expiringSoonDays: 9 } });
  });

  it("refuses a deleted organization's key on the next request", async () => {
    const own = await t.tenant();
    expect((await t.request({ url: '/v1/organization', key: own.key })).statusCode).toBe(200);
    await deleteOrganization(db(), own.organization.id, { batchRows: 1000 });
    expect((await t.request({ url: '/v1/organization', key: own.key })).statusCode).toBe(401);
  });

  it('forgets a change made in a transaction, whether it commits or rolls back', async () => {
    const own = await t.tenant({ name: 'Kept' });
    expect((await t.request({ url: '/v1/organization', key: own.key })).json().name).toBe('Kept');
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql`update organizations set name = 'Renamed' where id = ${own.organization.id}::uuid`.execute(trx);
      });
    expect((await t.request({ url: '/v1/organization', key: own.key })).json().name).toBe('Renamed');
    const cache = embeddedCacheOf(db())!;
    expect(cache.size).toBeGreaterThan(0);
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`update organizations set name = 'Undone' where id = ${own.organization.id}::uuid`.execute(trx);
          throw new Error('roll back');
        }),
    ).rejects.toThrow('roll back');
    expect(cache.size).toBe(0);
    expect((await t.request({ url: '/v1/organization', key: own.key })).json().name).toBe('Renamed');
  });
});

describe.runIf(!embedded)('on PostgreSQL', () => {
  it('caches nothing: several processes share the database', () => {
    expect(embeddedCacheOf(db())).toBeUndefined();
  });
});

describe('EmbeddedReadCache', () => {
  it('does not store a row read before a change that happened while it was read', async () => {
    const cache = new EmbeddedReadCache();
    const stale = await cache.read('k', async () => {
      cache.observeStatement('update organizations set name = $1');
      return 'stale';
    });
    expect(stale).toBe('stale');
    expect(cache.size).toBe(0);
    expect(await cache.read('k', async () => 'fresh')).toBe('fresh');
    expect(await cache.read('k', async () => 'unused')).toBe('fresh');
  });

  it('is emptied by a change to a cached table, not by reads or other tables', () => {
    const cache = new EmbeddedReadCache();
    const fill = () => cache.read('k', async () => 1);
    const kept = [
      'select * from api_keys where key_hash = $1',
      '/* prepared */ select o.id from organizations o',
      'update orders set notes = $1',
      'insert into order_tags (organization_id) values ($1)',
    ];
    const emptied = [
      'update api_keys set revoked_at = now()',
      'insert into "api_keys" (id) values ($1)',
      'delete from organizations where id = $1',
      'with batch as (select ctid from "api_keys") , gone as (delete from "api_keys") select 1',
      'alter table organizations add column x int',
    ];
    return (async () => {
      for (const text of kept) {
        await fill();
        expect(cache.observeStatement(text), text).toBe(false);
        expect(cache.size, text).toBe(1);
      }
      for (const text of emptied) {
        await fill();
        expect(cache.observeStatement(text), text).toBe(true);
        expect(cache.size, text).toBe(0);
      }
    })();
  });
});
