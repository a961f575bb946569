import { sql, type Kysely } from 'kysely';

/**
 * The retention check "does a delivery record still refer to this event" (docs/api.md#retention) by a BRIN index
 * instead of the B-tree of 0021. The B-tree cost one more entry per delivery written, inside the fan-out that holds
 * the endpoint's row lock: a PATCH with three subscribed endpoints became 22 % slower on its own, and 8 writers in
 * one organization lost 77 % of their throughput instead of 29 %
 * (docs/journal/2026-11-24-crash-safe-dispatch-retention-openapi.md). Event
 * ids are UUID v7 and a delivery is written with its event, so deliveries lie in event-id order on disk and a block
 * range summary finds them; a BRIN entry changes only when a new range starts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`drop index if exists webhook_deliveries_event_idx`,
    sql`create index webhook_deliveries_event_brin on webhook_deliveries using brin (event_id)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`drop index if exists webhook_deliveries_event_brin`,
    sql`create index if not exists webhook_deliveries_event_idx on webhook_deliveries (organization_id, event_id)
      where event_id is not null`,
  ];
  for (const statement of statements) await statement.execute(db);
}
