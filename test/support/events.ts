import type { Selectable } from 'kysely';
import type { EventsTable } from '../../src/db/schema.js';
import type { TestApp } from './app.js';

/** An event as the outbox stored it; the payload is the record's API response (docs/api.md#events-and-the-outbox). */
export type StoredEvent = Omit<Selectable<EventsTable>, 'payload'> & { payload: any };

/** Which of an organization's events to read. A string is the exact event name. */
export type EventQuery =
  | string
  | {
      /** Only the events of this name, e.g. 'order.updated'. */
      name?: string;
      /** Only the events whose name starts with this, e.g. 'quickFilter.'. */
      namePrefix?: string;
    };

/** The events an organization has recorded, in the order they were recorded (the outbox's position). */
export async function eventsOf(t: TestApp, organizationId: string, query: EventQuery = {}): Promise<StoredEvent[]> {
  const { name, namePrefix } = typeof query === 'string' ? { name: query, namePrefix: undefined } : query;
  let select = t.testDatabase.database.db
    .selectFrom('events')
    .selectAll()
    .where('organization_id', '=', organizationId);
  if (name !== undefined) select = select.where('name', '=', name);
  if (namePrefix !== undefined) select = select.where('name', 'like', `${namePrefix}%`);
  return select.orderBy('position').execute();
}

/**
 * Runs `action` and returns its result with the events the organization recorded meanwhile, as name and payload
 * (what a test compares with the API's answers).
 */
export async function eventsDuring<T>(
  t: TestApp,
  organizationId: string,
  action: () => Promise<T>,
): Promise<{ result: T; events: { name: string; payload: any }[] }> {
  const before = (await eventsOf(t, organizationId)).length;
  const result = await action();
  const events = (await eventsOf(t, organizationId))
    .slice(before)
    .map((event) => ({ name: event.name, payload: event.payload }));
  return { result, events };
}
