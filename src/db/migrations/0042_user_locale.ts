import { sql, type Kysely } from 'kysely';

/**
 * A dashboard user's locale (docs/api.md#users-and-roles): the language and the number and date formats the dashboard
 * shows them. Every user so far has seen English formats, so the column defaults to `en`; a constant default adds the
 * column without rewriting the table. The supported list is the API's (src/records/user.ts), not a check here, so a new
 * language needs no migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column locale text not null default 'en'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column locale`.execute(db);
}
