import { sql, type Kysely } from 'kysely';

/**
 * The outbox's two secondary indexes are read by no query: deliveries find their event by its primary key, and
 * nothing lists events by position or by creation time. Every change writes events (an order import with
 * earning writes three per order), and each index was one more insertion per event. Time-bounded work on the
 * outbox (a future retention job) can use the primary key: event ids are UUID v7, ordered by creation time within
 * an organization.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists events_position_idx`.execute(db);
  await sql`drop index if exists events_organization_created_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index events_position_idx on events (position)`.execute(db);
  await sql`create index events_organization_created_idx on events (organization_id, created_at)`.execute(db);
}
