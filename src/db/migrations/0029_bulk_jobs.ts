import { sql, type Kysely } from 'kysely';

/**
 * Bulk jobs (docs/api.md#export-jobs): export jobs now, import jobs later, in one table since they share the status
 * fields a client polls. The file an export writes is kept in the database as one gzip in chunks, one per page, so
 * every process can serve it; a chunk and the job's position are committed together, so a resumed run never writes
 * a chunk twice. Newest-first listing walks (organization_id, created_at, id); retention finds expired files by
 * (organization_id, expires_at).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table bulk_jobs (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      type text not null check (type in ('import', 'export')),
      resource text not null,
      format text not null check (format in ('csv', 'jsonl')),
      status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      parameters jsonb not null default '{}'::jsonb,
      rows_total integer,
      rows_processed integer not null default 0,
      created integer not null default 0,
      updated integer not null default 0,
      skipped integer not null default 0,
      error text,
      position jsonb,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz,
      primary key (organization_id, id))`,
    sql`create index bulk_jobs_created_idx on bulk_jobs (organization_id, created_at, id)`,
    sql`create index bulk_jobs_expires_idx on bulk_jobs (organization_id, expires_at) where expires_at is not null`,
    sql`create table bulk_job_chunks (
      organization_id uuid not null,
      job_id uuid not null,
      seq integer not null,
      data bytea not null,
      rows integer not null,
      primary key (organization_id, job_id, seq),
      foreign key (organization_id, job_id) references bulk_jobs (organization_id, id) on delete cascade)`,
    // The fair claim (src/jobs/runner/queue.ts) asks whether an organization has a live run of a job: a probe of the
    // few running rows, not of every past run.
    sql`create index jobs_running_idx on jobs (organization_id, name) where status = 'running'`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists jobs_running_idx`.execute(db);
  await sql`drop table if exists bulk_job_chunks`.execute(db);
  await sql`drop table if exists bulk_jobs`.execute(db);
}
