import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import type { EventToRecord } from '../../src/core/event-to-record.js';
import { recordEvents } from '../../src/events/outbox.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { probeResource, Thing } from '../support/probe-resource.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ resources: [organizationResource, probeResource()] });
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;

/** Endpoints written straight to the table: these tests are about the outbox, not the endpoint API. */
async function endpoint(organizationId: string, events: string[], isActive = true) {
  const id = uuidv7();
  await db()
    .insertInto('webhook_endpoints')
    .values({
      organization_id: organizationId,
      id,
      url: `https://hooks.example.com/${id}`,
      events,
      is_active: isActive,
      secret_ciphertext: null,
    })
    .execute();
  return id;
}

const deliveriesOf = (webhookId: string) =>
  db()
    .selectFrom('webhook_delivery_records')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('sequence')
    .execute();

const thing = (name: string) => ({ id: uuidv7(), name, createdAt: new Date('2026-01-02T03:04:05.678Z') });
const event = (organizationId: string, name: string, record = thing(name)): EventToRecord => ({
  organizationId,
  name,
  schema: Thing,
  record,
});

describe('fan-out in recordEvents', () => {
  it('stores payloads exactly, in order, whatever characters they hold', async () => {
    const { organization } = await t.tenant();
    const names = [
      'quote " and backslash \\ and \\" both',
      'braces {a,b} and commas, "NULL"',
      'unicode é ✓ 😀, a NUL \u0000, a newline \n and a \ttab',
      '[]',
    ];
    const recorded = await db()
      .transaction()
      .execute((trx) =>
        recordEvents(
          trx,
          names.map((name) => event(organization.id, 'probe.created', thing(name))),
        ),
      );
    const stored = await db()
      .selectFrom('events')
      .select(['id', 'payload'])
      .where('organization_id', '=', organization.id)
      .orderBy('position')
      .execute();
    expect(stored.map((row) => row.id)).toEqual(recorded.map((event) => event.id));
    expect(stored.map((row) => (row.payload as { name: string }).name)).toEqual(names);
  });

  it('creates one pending delivery per subscribed active endpoint, holding the envelope around the stored payload', async () => {
    const { organization } = await t.tenant();
    const other = await t.tenant();
    const subscribed = await endpoint(organization.id, ['probe.created', 'probe.updated']);
    const unsubscribed = await endpoint(organization.id, ['probe.deleted']);
    const inactive = await endpoint(organization.id, ['probe.created'], false);
    const foreign = await endpoint(other.organization.id, ['probe.created']);

    const recorded = await db()
      .transaction()
      .execute((trx) =>
        recordEvents(trx, [event(organization.id, 'probe.created'), event(organization.id, 'probe.updated')]),
      );
    const rows = await deliveriesOf(subscribed);
    expect(rows.map((row) => [Number(row.sequence), row.event_name, row.status, row.idempotency_key])).toEqual([
      [1, 'probe.created', 'pending', recorded[0]!.id],
      [2, 'probe.updated', 'pending', recorded[1]!.id],
    ]);
    for (const id of [unsubscribed, inactive, foreign]) expect(await deliveriesOf(id)).toEqual([]);

    const [stored] = await db().selectFrom('events').selectAll().where('id', '=', recorded[0]!.id).execute();
    const payload = rows[0]!.payload as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data']);
    expect(payload).toEqual({
      id: recorded[0]!.id,
      event: 'probe.created',
      timestamp: stored!.created_at.toISOString(),
      idempotencyKey: recorded[0]!.id,
      livemode: true,
      data: stored!.payload,
    });
    expect(rows[0]!.event_id).toBe(recorded[0]!.id);
    expect(rows[0]!.url).toBe(`https://hooks.example.com/${subscribed}`);
    const [{ last_sequence }] = (await db()
      .selectFrom('webhook_endpoints')
      .select('last_sequence')
      .where('id', '=', subscribed)
      .execute()) as [{ last_sequence: unknown }];
    expect(Number(last_sequence)).toBe(2);
  });

  it('writes nothing, and draws no sequence, when the change rolls back', async () => {
    const { organization } = await t.tenant();
    const id = await endpoint(organization.id, ['probe.created']);
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await recordEvents(trx, [event(organization.id, 'probe.created')]);
          throw new Error('the change failed');
        }),
    ).rejects.toThrow('the change failed');
    expect(await deliveriesOf(id)).toEqual([]);
    expect(
      await db().selectFrom('events').select('id').where('organization_id', '=', organization.id).execute(),
    ).toEqual([]);
    await db()
      .transaction()
      .execute((trx) => recordEvents(trx, [event(organization.id, 'probe.created')]));
    expect((await deliveriesOf(id)).map((row) => Number(row.sequence))).toEqual([1]);
  });

  it('fans out a large batch over several organizations in event order, across statement chunks', async () => {
    const first = await t.tenant();
    const second = await t.tenant();
    const a = await endpoint(first.organization.id, ['probe.updated']);
    const b = await endpoint(second.organization.id, ['probe.updated', 'probe.created']);
    const events = Array.from({ length: 6_000 }, (_, index) =>
      event(
        index % 2 === 0 ? first.organization.id : second.organization.id,
        index % 3 === 0 ? 'probe.created' : 'probe.updated',
        thing(`n${index}`),
      ),
    );
    const started = performance.now();
    await db()
      .transaction()
      .execute((trx) => recordEvents(trx, events));
    const elapsed = performance.now() - started;

    const expectedFor = (organizationId: string, names: string[]) =>
      events
        .filter((item) => item.organizationId === organizationId && names.includes(item.name))
        .map((item) => (item.record as { name: string }).name);
    for (const [id, organizationId, names] of [
      [a, first.organization.id, ['probe.updated']],
      [b, second.organization.id, ['probe.updated', 'probe.created']],
    ] as const) {
      const rows = await deliveriesOf(id);
      expect(rows.map((row) => (row.payload as { data: { name: string } }).data.name)).toEqual(
        expectedFor(organizationId, [...names]),
      );
      expect(rows.map((row) => Number(row.sequence))).toEqual(rows.map((_, index) => index + 1));
    }
    // A generous bound: set-based statements keep this to a fraction of a second on either engine.
    expect(elapsed).toBeLessThan(20_000);
  });

  it('keeps sequences unique and gap-free under concurrent recorders', async () => {
    const { organization } = await t.tenant();
    const ids = [
      await endpoint(organization.id, ['probe.created']),
      await endpoint(organization.id, ['probe.created']),
    ];
    await Promise.all(
      Array.from({ length: 30 }, () =>
        db()
          .transaction()
          .execute((trx) =>
            recordEvents(trx, [event(organization.id, 'probe.created'), event(organization.id, 'probe.created')]),
          ),
      ),
    );
    for (const id of ids)
      expect((await deliveriesOf(id)).map((row) => Number(row.sequence))).toEqual(
        Array.from({ length: 60 }, (_, index) => index + 1),
      );
  });
});
