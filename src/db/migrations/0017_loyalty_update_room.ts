import { sql, type Kysely } from 'kysely';

/**
 * Memberships and stamp cards are rewritten by every earning (a balance, a stamp count) and none of those columns
 * is indexed, so PostgreSQL can update them in place (a HOT update: no new entry in any of the memberships' eight
 * indexes) when the row's page has room for the new version. At the default fillfactor of 100 a freshly written
 * page has none, so the first earning of every member paid for eight index insertions. Pages written from now on
 * keep a fifth free; existing pages gain room as they are vacuumed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table loyalty_memberships set (fillfactor = 80)`.execute(db);
  await sql`alter table stamp_cards set (fillfactor = 80)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table loyalty_memberships reset (fillfactor)`.execute(db);
  await sql`alter table stamp_cards reset (fillfactor)`.execute(db);
}
