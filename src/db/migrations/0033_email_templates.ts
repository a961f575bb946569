import { sql, type Kysely } from 'kysely';

/**
 * Email templates (docs/api.md#email-templates): Liquid sources of a mail's subject, HTML and text parts for one kind
 * of mail and one locale. The list sorts by createdAt, updatedAt or name, so those lead indexes with the organization
 * like every key of a tenant table. At most one template per kind and locale is active, so the mail sender never has
 * to choose between two (a partial unique index, which also serves its look-up).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table email_templates (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      name text not null,
      kind text not null,
      subject text not null,
      html text not null,
      text text not null default '',
      locale text not null,
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index email_templates_active_idx on email_templates (organization_id, kind, locale)
      where is_active`,
    sql`create index email_templates_created_idx on email_templates (organization_id, created_at, id)`,
    sql`create index email_templates_updated_idx on email_templates (organization_id, updated_at, id)`,
    sql`create index email_templates_name_idx on email_templates (organization_id, name, id)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists email_templates`.execute(db);
}
