import { sql, type Kysely } from 'kysely';

/**
 * Analytics (docs/api.md#analytics). The charts a merchant draws most (orders: count, revenue, average order value and
 * unique customers by day, week or month, often per currency) read a range of createdAt and four columns. The orders
 * keyset index (organization_id, created_at, id) now carries those columns too (INCLUDE), so such a query is an
 * index-only range scan that reads a narrow index instead of walking the much larger table
 * (docs/journal/2026-11-21-analytics.md). The key columns, and so the list pages and
 * their plans, are unchanged; the name stays, as docs and plans refer to it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_created_idx`.execute(db);
  await sql`create index orders_created_idx on orders (organization_id, created_at, id) include (total_cents, customer_id, currency_code)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_created_idx`.execute(db);
  await sql`create index orders_created_idx on orders (organization_id, created_at, id)`.execute(db);
}
