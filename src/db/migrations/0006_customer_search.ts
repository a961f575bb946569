import { sql, type Kysely } from 'kysely';

/**
 * Customer search (docs/api.md#search) from one trigram index scoped by organization (btree_gin puts organization_id in
 * the same GIN index), over the searched text as one expression; GET /customers?search= compares exactly this
 * expression (src/resources/customers/list.ts). The per-column indexes of 0002 were not scoped: a selective term
 * scanned four indexes over every organization's customers and rechecked the rows. `customers_email_trgm` stays: the
 * orders search looks customers up by email.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db);
  await sql`create index customers_search_trgm on customers using gin (organization_id,
    (lower(email) || ' ' || coalesce(lower(first_name), '') || ' ' || coalesce(lower(last_name), '') || ' ' || coalesce(phone, ''))
    gin_trgm_ops)`.execute(db);
  for (const index of ['customers_first_name_trgm', 'customers_last_name_trgm', 'customers_phone_trgm']) {
    await sql`drop index if exists ${sql.ref(index)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists customers_first_name_trgm on customers using gin (first_name gin_trgm_ops)`.execute(
    db,
  );
  await sql`create index if not exists customers_last_name_trgm on customers using gin (last_name gin_trgm_ops)`.execute(
    db,
  );
  await sql`create index if not exists customers_phone_trgm on customers using gin (phone gin_trgm_ops)`.execute(db);
  await sql`drop index if exists customers_search_trgm`.execute(db);
}
