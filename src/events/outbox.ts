import { sql, type RawBuilder } from 'kysely';
import { uuidv7 } from '../util/ids.js';
import { jsonArrayOf, nullableUuidArrayLiteral, plainArrayLiteral } from '../db/arrays.js';
import { isUuid } from '../util/uuid.js';
import { PREPARE } from '../db/prepared.js';
import { serializeRecord } from './serialize.js';
import type { Executor } from '../db/executor.js';
import type { EventToRecord } from '../core/event-to-record.js';

/** Events per statement: bounds one statement's memory; arrays travel as single parameters, so no 65,535 limit. */
const INSERT_CHUNK = 5_000;

/** NOTIFY channel dispatchers LISTEN on; PostgreSQL delivers it at commit, so a rolled-back change wakes no one. */
export const DELIVERIES_CHANNEL = 'patron_webhook_deliveries';

export interface RecordedEvent {
  id: string;
  /** Receivers deduplicate on this; it is the event's id (docs/api.md#events-and-the-outbox). */
  idempotencyKey: string;
  name: string;
}

/**
 * A UUID v7 made in SQL (PostgreSQL 15 has no uuidv7()): the delivery rows are created by the fan-out statement
 * itself, so their ids cannot come from Node. Time-ordered ids keep the primary-key index append-mostly.
 */
export const SQL_UUID_V7 = sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
  substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * Writes events into the outbox inside the caller's transaction, and fans each one out to the webhook endpoints
 * subscribed to it: they commit with the change that caused them, or not at all. Pass a transaction, not the
 * pool: recording outside one would break that promise. Call it last in the transaction: it locks the subscribed
 * endpoints until commit, which is what makes per-endpoint sequences follow commit order (see 0005_webhooks.ts).
 */
export async function recordEvents(trx: Executor, events: readonly EventToRecord[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const recorded: RecordedEvent[] = [];
  for (let start = 0; start < events.length; start += INSERT_CHUNK) {
    const chunk = events.slice(start, start + INSERT_CHUNK);
    const ids = chunk.map(() => uuidv7());
    await recordChunk(trx, chunk, ids);
    chunk.forEach((event, index) => recorded.push({ id: ids[index]!, idempotencyKey: ids[index]!, name: event.name }));
  }
  return recorded;
}

export async function recordEvent(trx: Executor, event: EventToRecord): Promise<RecordedEvent> {
  const [recorded] = await recordEvents(trx, [event]);
  return recorded!;
}

/**
 * One round trip, so a change in an organization without subscribed endpoints costs one statement's work:
 * patron_record_events (migrations 0011 and 0036, PL/pgSQL so its plans are cached per connection) inserts the events
 * with the id of the record each is about; locks
 * the active endpoints of the batch's organizations subscribed to any of its names (in key order, so two
 * transactions never deadlock on them); hands out each endpoint's next sequences; inserts one pending delivery per
 * (event, endpoint), which references the event instead of copying its envelope (webhook_envelope composes it when
 * sent or read); and, when it created any, NOTIFYs the dispatchers (delivered at commit, once per transaction).
 * Every value travels as one array parameter per column, however many events there are.
 *
 * The sequence update reads the row version the lock returned (READ COMMITTED re-checks an updated row against
 * its newest version), so a concurrent recorder that committed first is never overwritten.
 */
async function recordChunk(trx: Executor, events: readonly EventToRecord[], ids: readonly string[]) {
  await sql`${PREPARE}select ${recordEventsCall(events, ids)}`.execute(trx);
}

const recordEventsCall = (events: readonly EventToRecord[], ids: readonly string[]) =>
  sql<number>`patron_record_events(
    ${plainArrayLiteral(events.map((event) => event.organizationId))}::uuid[], ${plainArrayLiteral(ids)}::uuid[],
    ${plainArrayLiteral(events.map((event) => event.name))}::text[], ${jsonArrayOf(events.map((event) => serializeRecord(event.schema, event.record)))},
    ${nullableUuidArrayLiteral(events.map(objectIdOf))}::uuid[])`;

/** The id of the record an event is about, for the Events API's objectId filter (docs/api.md#events-api). */
const objectIdOf = (event: EventToRecord): string | null => {
  const id = (event.record as { id?: unknown } | null)?.id;
  return typeof id === 'string' && isUuid(id) ? id : null;
};

/**
 * The events as an SQL expression for a caller that writes its change and its events in one statement (a
 * single-statement change needs no explicit transaction: two round trips fewer). Like recordEvents, the expression
 * must be evaluated last, and at most once; it evaluates to the number of deliveries created.
 */
export function recordEventsExpression(events: readonly EventToRecord[]): {
  expression: RawBuilder<number>;
  recorded: RecordedEvent[];
} {
  if (events.length === 0 || events.length > INSERT_CHUNK)
    throw new Error(`recordEventsExpression: ${events.length} events; 1 to ${INSERT_CHUNK} fit one statement`);
  const ids = events.map(() => uuidv7());
  return {
    expression: recordEventsCall(events, ids),
    recorded: events.map((event, index) => ({ id: ids[index]!, idempotencyKey: ids[index]!, name: event.name })),
  };
}
