import { sql, type Kysely } from 'kysely';

/**
 * Dated API versions (docs/api.md#api-versions). Every organization gets a default version: those that exist now keep
 * 2026-11-20, the behaviour they were built against, so no integration breaks; the column's default afterwards is the
 * newest version this migration knows, and the code names the newest explicitly when it creates an organization. A
 * webhook endpoint may pin its own version (null: the organization's). Versions are written YYYY-MM-DD; the code
 * checks that a value is a version it knows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table organizations add column api_version text not null default '2026-11-20'
      check (api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`,
    sql`alter table organizations alter column api_version set default '2026-12-07'`,
    sql`alter table webhook_endpoints add column api_version text
      check (api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_endpoints drop column if exists api_version`.execute(db);
  await sql`alter table organizations drop column if exists api_version`.execute(db);
}
