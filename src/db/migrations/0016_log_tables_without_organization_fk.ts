import { sql, type Kysely } from 'kysely';

/**
 * The two append-only logs, `events` (the outbox: every change writes to it) and `import_job_records` (one row per
 * imported record), lose their foreign key to organizations. Their organization_id always comes from the caller's
 * authenticated key, so the key only ever checked a row that exists, once per inserted row: a lookup for every imported
 * record in each table, a share of an order import's database time worth saving
 * (docs/journal/2026-11-21-loyalty-issue-rate-import-prepared.md).
 * Organizations are never deleted by the API; a tool that deletes one must delete its events and import records
 * explicitly (the other tenant tables still cascade). organization_id still leads both primary keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events drop constraint if exists events_organization_id_fkey`.execute(db);
  await sql`alter table import_job_records drop constraint if exists import_job_records_organization_id_fkey`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add constraint events_organization_id_fkey
    foreign key (organization_id) references organizations (id) on delete cascade`.execute(db);
  await sql`alter table import_job_records add constraint import_job_records_organization_id_fkey
    foreign key (organization_id) references organizations (id) on delete cascade`.execute(db);
}
