import { sql, type Kysely } from 'kysely';

/**
 * Webhook endpoints and their delivery log (service.md "Webhook endpoint", "Webhook delivery record";
 * docs/api.md#webhook-endpoints and docs/api.md#webhook-deliveries).
 *
 * Deliveries are fanned out inside the transaction that records the event (one row per subscribed active endpoint),
 * so "subscribed at the time the change committed" holds by construction. `sequence` is drawn from the endpoint's
 * `last_sequence` while its row is locked, so per endpoint it increases in commit order; the dispatcher sends in
 * that order. The event payload becomes json (not jsonb) so a delivery's body keeps the API's key order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table events alter column payload type json using payload::json`,

    sql`create table webhook_endpoints (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      url text not null,
      is_active boolean not null default true,
      events text[] not null default '{}',
      secret_ciphertext text,
      last_sequence bigint not null default 0,
      lease_owner text,
      lease_expires_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create index webhook_endpoints_created_idx on webhook_endpoints (organization_id, created_at, id)`,
    sql`create index webhook_endpoints_url_idx on webhook_endpoints (organization_id, url, id)`,
    sql`create index webhook_endpoints_events_idx on webhook_endpoints using gin (events) where is_active`,

    sql`create table webhook_deliveries (
      organization_id uuid not null,
      id uuid not null,
      webhook_id uuid not null,
      sequence bigint not null,
      event_id uuid,
      event_name text not null,
      idempotency_key text not null,
      url text not null,
      payload json not null,
      status text not null default 'pending' check (status in ('pending', 'sending', 'succeeded', 'failed')),
      error text,
      response_status integer,
      attempted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      unique (organization_id, webhook_id, sequence),
      foreign key (organization_id, webhook_id) references webhook_endpoints (organization_id, id) on delete cascade)`,
    // The dispatcher's work queue: only unfinished rows, so it stays small however long the log grows.
    sql`create index webhook_deliveries_due_idx on webhook_deliveries (organization_id, webhook_id, sequence)
      where status in ('pending', 'sending')`,
    sql`create index webhook_deliveries_log_idx on webhook_deliveries (organization_id, webhook_id, created_at desc, id desc)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`drop table webhook_endpoints`.execute(db);
  await sql`alter table events alter column payload type jsonb using payload::jsonb`.execute(db);
}
