import { sql, type Kysely } from 'kysely';

/**
 * Quick filters, saved views of one list (docs/api.md#quick-filters): a filter document, a search and a sort under
 * a name. The list of them sorts by createdAt, updatedAt or name and searches the name, so those lead indexes with
 * the organization like every key of a tenant table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table quick_filters (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      resource text not null,
      name text not null,
      filter jsonb not null default '{}'::jsonb,
      search text,
      sort text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create index quick_filters_created_idx on quick_filters (organization_id, created_at, id)`,
    sql`create index quick_filters_updated_idx on quick_filters (organization_id, updated_at, id)`,
    sql`create index quick_filters_name_idx on quick_filters (organization_id, name, id)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists quick_filters`.execute(db);
}
