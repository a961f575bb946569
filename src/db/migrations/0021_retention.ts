import { sql, type Kysely } from 'kysely';

/**
 * Retention (docs/api.md#retention) prunes an event only when no delivery record refers to it, since a record's
 * payload is composed from its event. Without this index that check reads every delivery of the organization for
 * each batch of events; with it, one index probe per event. It costs one more index entry per delivery written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists webhook_deliveries_event_idx on webhook_deliveries (organization_id, event_id)
    where event_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_event_idx`.execute(db);
}
