import { sql, type Kysely } from 'kysely';

/**
 * Import jobs (docs/api.md#import-jobs) share bulk_jobs with export jobs. An upload is read into rows before the job
 * exists, then staged here, a batch of rows per row (each `[index, line, row, problem]`), in one transaction with the
 * job itself: every process can run it, and a run deletes a batch in the transaction that writes it and moves the
 * job's position, so a resumed run starts at the first batch not yet written. Staged batches go once the job ends; what the run skipped stays for GET /import-jobs/{id}/skipped, walked in row order.
 * `unchanged` counts rows whose values were already stored, as the synchronous imports do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table bulk_jobs add column unchanged integer not null default 0`,
    sql`create table bulk_job_rows (
      organization_id uuid not null,
      job_id uuid not null,
      first_index integer not null,
      rows jsonb not null,
      primary key (organization_id, job_id, first_index),
      foreign key (organization_id, job_id) references bulk_jobs (organization_id, id) on delete cascade)`,
    sql`create table bulk_job_skipped (
      organization_id uuid not null,
      job_id uuid not null,
      id uuid not null,
      row_index integer not null,
      item_index integer,
      line integer not null,
      message text not null,
      primary key (organization_id, job_id, id),
      foreign key (organization_id, job_id) references bulk_jobs (organization_id, id) on delete cascade)`,
    sql`create index bulk_job_skipped_index_idx on bulk_job_skipped (organization_id, job_id, row_index, id)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists bulk_job_skipped`.execute(db);
  await sql`drop table if exists bulk_job_rows`.execute(db);
  await sql`alter table bulk_jobs drop column if exists unchanged`.execute(db);
}
