import type { Kysely, Transaction } from 'kysely';
import type { TSchema } from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import type { DB } from '../db/schema.js';
import { serializeRecord } from './serialize.js';

const INSERT_CHUNK = 5_000;

export interface EventToRecord {
  organizationId: string;
  /** An event name from service.md's catalog, e.g. "order.updated". */
  name: string;
  /** The response schema of the record's API representation. */
  schema: TSchema;
  /** The record, in the shape the API returns it. */
  record: unknown;
}

export interface RecordedEvent {
  id: string;
  /** Receivers deduplicate on this; it is the event's id (D23). */
  idempotencyKey: string;
  name: string;
}

/**
 * Writes events into the outbox inside the caller's transaction: they commit with the change that caused them,
 * or not at all. Pass a transaction, not the pool: recording outside one would break that promise.
 */
export async function recordEvents(trx: Transaction<DB> | Kysely<DB>, events: readonly EventToRecord[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    organization_id: event.organizationId,
    id: uuidv7(),
    name: event.name,
    payload: serializeRecord(event.schema, event.record),
  }));
  // Chunked so a bulk change of many records stays under PostgreSQL's 65,535 parameters per statement.
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    await trx.insertInto('events').values(rows.slice(start, start + INSERT_CHUNK)).execute();
  }
  return rows.map((row) => ({ id: row.id, idempotencyKey: row.id, name: row.name }));
}

export async function recordEvent(trx: Transaction<DB> | Kysely<DB>, event: EventToRecord): Promise<RecordedEvent> {
  const [recorded] = await recordEvents(trx, [event]);
  return recorded!;
}
