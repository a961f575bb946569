import { sql, type Kysely } from 'kysely';
import { auditMonth, ensureAuditPartition } from '../audit-partitions.js';

/**
 * The audit log (docs/api.md#audit-log): one row per write request, sign-in, sign-out and CLI change, partitioned by
 * month of created_at from the start (PostgreSQL's native partitioning, PGlite included), so retention drops whole
 * months. The primary key leads with the organization (tenancy) and holds the partition key; it is also the order
 * the log is read in (newest first). The default partition takes the rows of a month not made yet. No foreign key to
 * organizations: `patron org delete` removes an organization's rows from every tenant table, this one included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table audit_log (
      organization_id uuid not null,
      created_at timestamptz not null,
      id uuid not null,
      actor_type text not null check (actor_type in ('apiKey', 'user', 'cli', 'system')),
      actor_id text,
      actor_label text,
      method text not null,
      path text not null,
      status integer,
      request_id text,
      ip text,
      user_agent text,
      resource_type text,
      resource_id text,
      primary key (organization_id, created_at, id)
    ) partition by range (created_at)`,
    sql`create table audit_log_default partition of audit_log default`,
    sql`create index audit_log_resource_idx on audit_log (organization_id, resource_type, resource_id, created_at)`,
    sql`create index audit_log_actor_idx on audit_log (organization_id, actor_id, created_at)`,
  ];
  for (const statement of statements) await statement.execute(db);
  const now = new Date();
  await ensureAuditPartition(db, auditMonth(now));
  await ensureAuditPartition(db, auditMonth(now, 1));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists audit_log`.execute(db);
}
