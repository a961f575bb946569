import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationResource } from '../../src/resources/organization/index.js';
import { canonicalJson } from '../../src/util/canonical-json.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource, type ProbeState } from '../support/probe-resource.js';

let t: TestApp;
let tenant: Tenant;
const state: ProbeState = { handled: 0, failNext: false };

beforeAll(async () => {
  t = await startTestApp({ resources: [organizationResource, probeResource(state)] });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const create = (key: string, body: unknown, idempotencyKey?: string) =>
  t.request({
    method: 'POST',
    url: '/v1/probe/things',
    key,
    body,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });

const eventCount = async (organizationId: string) =>
  Number(
    (
      await t.testDatabase.database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body without acting again', async () => {
    const events = await eventCount(tenant.organization.id);
    const first = await create(tenant.key, { name: 'lamp', count: 1 }, 'key-1');
    expect(first.statusCode).toBe(201);
    // Same body with keys in another order is the same request.
    const again = await create(tenant.key, { count: 1, name: 'lamp' }, 'key-1');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await eventCount(tenant.organization.id)).toBe(events + 1);
  });

  it('is 409 for the same key with a different body', async () => {
    await create(tenant.key, { name: 'chair' }, 'key-2');
    const other = await create(tenant.key, { name: 'table' }, 'key-2');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ error: { code: 'CONFLICT', message: expect.stringMatching(/different request/) } });
  });

  it('keeps keys per organization', async () => {
    const other = await t.tenant();
    const mine = await create(tenant.key, { name: 'desk' }, 'shared-key');
    const theirs = await create(other.key, { name: 'desk' }, 'shared-key');
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('does not store a failure: the same key can be retried after a 500', async () => {
    state.failNext = true;
    const failed = await create(tenant.key, { name: 'vase' }, 'key-3');
    expect(failed.statusCode).toBe(500);
    const retried = await create(tenant.key, { name: 'vase' }, 'key-3');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not claim the key for a request refused by validation', async () => {
    const handled = state.handled;
    // A 400 is decided before the key is claimed, so it is neither stored nor counted.
    const invalid = await create(tenant.key, { nope: true }, 'key-4');
    expect(invalid.statusCode).toBe(400);
    expect(state.handled).toBe(handled);
    const valid = await create(tenant.key, { name: 'ok' }, 'key-4');
    expect(valid.statusCode).toBe(201);
  });

  it('lets only one of two concurrent requests with the same key act', async () => {
    const events = await eventCount(tenant.organization.id);
    const responses = await Promise.all(Array.from({ length: 5 }, () => create(tenant.key, { name: 'rug' }, 'key-5')));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.statusCode === 201);
    expect(new Set(created.map((response) => response.json().id)).size).toBe(1);
    expect(await eventCount(tenant.organization.id)).toBe(events + 1);
  });

  it('forgets a key after 24 hours', async () => {
    const first = await create(tenant.key, { name: 'old' }, 'key-6');
    await t.testDatabase.database.db
      .updateTable('idempotency_keys')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('organization_id', '=', tenant.organization.id)
      .where('key', '=', 'key-6')
      .execute();
    const second = await create(tenant.key, { name: 'old' }, 'key-6');
    expect(second.statusCode).toBe(201);
    expect(second.json().id).not.toBe(first.json().id);
  });

  describe('a first request whose process died', () => {
    const db = () => t.testDatabase.database.db;
    /** The state a process leaves when it dies mid-request: its claim in progress, naming it. */
    const claimOf = async (key: string, process: string, renewedSecondsAgo: number | null, body: object) => {
      if (renewedSecondsAgo !== null)
        await db()
          .insertInto('server_processes')
          .values({ id: process, renewed_at: sql<Date>`now() - make_interval(secs => ${renewedSecondsAgo})` })
          .execute();
      await db()
        .insertInto('idempotency_keys')
        .values({
          organization_id: tenant.organization.id,
          key,
          fingerprint: createHash('sha256')
            .update(`POST /v1/probe/things\n${canonicalJson(body)}`)
            .digest('hex'),
          state: 'in_progress',
          owner_process: process,
          expires_at: sql<Date>`now() + interval '24 hours'`,
        })
        .execute();
    };

    it('is 409 with Retry-After while its process is alive, and runs once the process is known gone', async () => {
      await claimOf('key-alive', 'host:1:alive', 0, { name: 'vase' });
      const events = await eventCount(tenant.organization.id);
      const refused = await create(tenant.key, { name: 'vase' }, 'key-alive');
      expect(refused.statusCode).toBe(409);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json().error.code).toBe('CONFLICT');
      expect(await eventCount(tenant.organization.id)).toBe(events);

      // The process stops renewing its presence: 30 s later it is known gone.
      await db()
        .updateTable('server_processes')
        .set({ renewed_at: sql<Date>`now() - interval '31 seconds'` })
        .where('id', '=', 'host:1:alive')
        .execute();
      const retried = await create(tenant.key, { name: 'vase' }, 'key-alive');
      expect(retried.statusCode).toBe(201);
      expect(await eventCount(tenant.organization.id)).toBe(events + 1);
      const replayed = await create(tenant.key, { name: 'vase' }, 'key-alive');
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.json().id).toBe(retried.json().id);
    });

    it('runs at once when the process is gone from server_processes (it shut down, or the embedded database restarted)', async () => {
      await claimOf('key-gone', 'host:2:gone', null, { name: 'bowl' });
      const retried = await create(tenant.key, { name: 'bowl' }, 'key-gone');
      expect(retried.statusCode).toBe(201);
    });

    it("keeps a live claim of this server's own process", async () => {
      const own = await db().selectFrom('server_processes').select('id').execute();
      expect(own.length).toBeGreaterThan(0);
      const live = own.find((row) => !row.id.startsWith('host:'))!;
      await claimOf('key-own', live.id, null, { name: 'jug' });
      expect((await create(tenant.key, { name: 'jug' }, 'key-own')).statusCode).toBe(409);
    });
  });

  it('rejects a malformed key header', async () => {
    const response = await create(tenant.key, { name: 'x' }, 'x'.repeat(256));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([{ path: 'header.idempotency-key', message: expect.any(String) }]);
  });
});
