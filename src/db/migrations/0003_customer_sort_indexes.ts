import { sql, type Kysely } from 'kysely';

/**
 * Keyset indexes for the customer list's email and lastName sorts (GET /customers), so a page is an index range scan
 * instead of a sort of the organization's customers. lastName is nullable and sorts nulls last in both directions
 * (docs/api.md#page-size-and-sort-order), which a backward scan of the ascending index cannot give; it gets a
 * descending index of its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index customers_email_idx on customers (organization_id, email, id)`.execute(db);
  await sql`create index customers_last_name_idx on customers (organization_id, last_name, id)`.execute(db);
  await sql`create index customers_last_name_desc_idx on customers (organization_id, last_name desc nulls last, id desc)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['customers_last_name_desc_idx', 'customers_last_name_idx', 'customers_email_idx']) {
    await sql`drop index if exists ${sql.ref(index)}`.execute(db);
  }
}
