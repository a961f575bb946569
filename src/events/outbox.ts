import { sql, type Kysely, type Transaction } from 'kysely';
import type { TSchema } from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import type { DB } from '../db/schema.js';
import { serializeRecord } from './serialize.js';

/** Events per statement: bounds one statement's memory; arrays travel as single parameters, so no 65,535 limit. */
const INSERT_CHUNK = 5_000;

/** NOTIFY channel dispatchers LISTEN on; PostgreSQL delivers it at commit, so a rolled-back change wakes no one. */
export const DELIVERIES_CHANNEL = 'patron_webhook_deliveries';

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
export async function recordEvents(trx: Transaction<DB> | Kysely<DB>, events: readonly EventToRecord[]): Promise<RecordedEvent[]> {
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

export async function recordEvent(trx: Transaction<DB> | Kysely<DB>, event: EventToRecord): Promise<RecordedEvent> {
  const [recorded] = await recordEvents(trx, [event]);
  return recorded!;
}

/**
 * One statement, so a change in an organization without subscribed endpoints costs one round trip: insert the
 * events; lock the active endpoints of the batch's organizations subscribed to any of its names (in key order, so
 * two transactions never deadlock on them); hand out each endpoint's next sequences; insert one pending delivery per
 * (event, endpoint) holding the envelope exactly as it will be sent, composed around the serialized record text.
 * Every value travels as one array parameter per column (unnest), however many events there are. The envelope's
 * timestamp is now(), the transaction's start, which is also the events' created_at default.
 *
 * The sequence update reads the row version the lock returned (READ COMMITTED re-checks an updated row against
 * its newest version), so a concurrent recorder that committed first is never overwritten.
 */
async function recordChunk(trx: Transaction<DB> | Kysely<DB>, events: readonly EventToRecord[], ids: readonly string[]) {
  const organizations = [...new Set(events.map((event) => event.organizationId))];
  const names = [...new Set(events.map((event) => event.name))];
  await sql`
    with input as (
      select * from unnest(
        ${events.map((event) => event.organizationId)}::uuid[], ${ids}::uuid[], ${events.map((event) => event.name)}::text[],
        ${events.map((event) => serializeRecord(event.schema, event.record))}::json[]
      ) with ordinality as i(organization_id, id, name, payload, ord)
    ),
    inserted as (
      insert into events (organization_id, id, name, payload)
      select organization_id, id, name, payload from input order by ord
    ),
    targets as (
      select e.organization_id, e.id, e.url, e.events from webhook_endpoints e
      where e.organization_id = any(${organizations}::uuid[]) and e.is_active and e.events && ${names}::text[]
      order by e.organization_id, e.id
      for update
    ),
    pairs as (
      select t.organization_id, t.id as webhook_id, t.url, i.id as event_id, i.name, i.payload, i.ord,
        row_number() over (partition by t.organization_id, t.id order by i.ord) as n
      from targets t join input i on i.organization_id = t.organization_id and i.name = any(t.events)
    ),
    bumped as (
      update webhook_endpoints w set last_sequence = w.last_sequence + c.n
      from (select organization_id, webhook_id, max(n) as n from pairs group by organization_id, webhook_id) c
      where w.organization_id = c.organization_id and w.id = c.webhook_id
      returning w.organization_id, w.id, w.last_sequence - c.n as base
    ),
    deliveries as (
      insert into webhook_deliveries (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload)
      select p.organization_id, ${SQL_UUID_V7}, p.webhook_id, b.base + p.n, p.event_id, p.name, p.event_id::text, p.url,
        ('{"event":' || to_json(p.name)::text
          || ',"timestamp":"' || to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '","idempotencyKey":"' || p.event_id::text
          || '","data":' || p.payload::text || '}')::json
      from pairs p
      join bumped b on b.organization_id = p.organization_id and b.id = p.webhook_id
      order by p.organization_id, p.webhook_id, p.n
      returning 1
    )
    select (select count(*) from (select pg_notify(${DELIVERIES_CHANNEL}, '') from deliveries limit 1) notified) as notified`.execute(trx);
}
