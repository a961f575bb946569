import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, recordEvents } from '../../src/events/outbox.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { probeResource, Thing } from '../support/probe-resource.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ resources: [organizationResource, probeResource()] });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;

describe('event outbox', () => {
  it('records the event with the change, serialized exactly like the API response', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/probe/things',
      key: tenant.key,
      body: { name: 'lamp' },
    });
    expect(response.statusCode).toBe(201);
    const [event] = (await eventsOf(t, tenant.organization.id)).slice(-1);
    expect(event!.name).toBe('probe.created');
    expect(event!.payload).toEqual(response.json());
    expect(event!.payload).not.toHaveProperty('internal');
    expect((event!.payload as { createdAt: string }).createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('commits events with the transaction and drops them on rollback', async () => {
    const { organization } = await t.tenant();
    const thing = { id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', name: 'x', createdAt: new Date() };
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await recordEvent(trx, {
            organizationId: organization.id,
            name: 'probe.created',
            schema: Thing,
            record: thing,
          });
          throw new Error('the change failed');
        }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf(t, organization.id)).toEqual([]);

    const recorded = await db()
      .transaction()
      .execute((trx) =>
        recordEvents(trx, [
          { organizationId: organization.id, name: 'probe.created', schema: Thing, record: thing },
          { organizationId: organization.id, name: 'probe.updated', schema: Thing, record: { ...thing, name: 'y' } },
        ]),
      );
    const stored = await eventsOf(t, organization.id);
    expect(stored.map((event) => event.name)).toEqual(['probe.created', 'probe.updated']);
    expect(stored.map((event) => event.id)).toEqual(recorded.map((event) => event.id));
    expect(recorded.every((event) => event.idempotencyKey === event.id)).toBe(true);
    expect(Number(stored[1]!.position)).toBeGreaterThan(Number(stored[0]!.position));
  });
});
