import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationResource } from '../../src/resources/organization/index.js';
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

describe('Idempotency-Key (D16)', () => {
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

  it('rejects a malformed key header', async () => {
    const response = await create(tenant.key, { name: 'x' }, 'x'.repeat(256));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([{ path: 'header.idempotency-key', message: expect.any(String) }]);
  });
});
