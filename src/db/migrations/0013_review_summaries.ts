import { sql, type Kysely } from 'kysely';

/**
 * Generated review summaries (service.md "Review summary"; docs/api.md#review-summaries): one row per product once a
 * summary is due. `current` and `previous` hold summary versions in their API shape, so a read is one primary-key
 * lookup. A row can exist without `current`: its first generation is queued, or failed for good and waits for the next
 * review change or the overnight refresh.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table review_summaries (
      organization_id uuid not null references organizations(id) on delete cascade,
      product_id uuid not null,
      current jsonb,
      previous jsonb,
      suppressed_at timestamptz,
      pending_since timestamptz,
      pending_reason text check (pending_reason in ('threshold', 'manual', 'refresh')),
      regenerate_requested_at timestamptz,
      reviews_fingerprint text,
      summary_fingerprint text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, product_id),
      foreign key (organization_id, product_id) references products (organization_id, id) on delete cascade)`,
    // The overnight refresh's candidates: shown summaries whose reviews changed since they were generated.
    sql`create index review_summaries_stale_idx on review_summaries (organization_id, product_id)
      where suppressed_at is null and reviews_fingerprint is distinct from summary_fingerprint`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists review_summaries`.execute(db);
}
