import { sql, type Kysely } from 'kysely';

/**
 * Which API processes are alive, so work a dead one left half done can be taken over at once instead of after a
 * long guess (docs/api.md#idempotency-keys). Every process serving the API keeps a row here and renews it every few
 * seconds; a row not renewed for 30 s is a process known gone. Global, like organizations: a process serves every
 * organization.
 *
 * An Idempotency-Key claim records the process that holds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table server_processes (
      id text primary key,
      started_at timestamptz not null default now(),
      renewed_at timestamptz not null default now())`,
    sql`alter table idempotency_keys add column owner_process text`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [sql`alter table idempotency_keys drop column owner_process`, sql`drop table server_processes`];
  for (const statement of statements) await statement.execute(db);
}
