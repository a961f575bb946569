import { sql, type Kysely } from 'kysely';

/**
 * The mail outbox and log (docs/api.md#mail): one row per mail, queued in the transaction of the change that causes
 * it, claimed by the mail sender under a lease (claimed_by, claimed_until) and kept afterwards as the mail log.
 * customer_id has no foreign key: the log outlives a deleted customer. The partial index holds only the queued rows,
 * which is what the fair claim walks (per organization, oldest due first); the sweep of interrupted sends reads the
 * few `sending` rows by their lease; the log lists newest first by (organization_id, created_at, id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table mail (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      kind text not null check (kind in ('surveyRequest', 'rewardIssued', 'rewardExpiringSoon', 'pointsExpiringSoon')),
      marketing boolean not null,
      recipient text not null,
      customer_id uuid,
      subject text not null,
      html text not null,
      text text not null,
      status text not null default 'queued'
        check (status in ('queued', 'sending', 'sent', 'logged', 'suppressed', 'failed', 'interrupted')),
      error text,
      smtp_response text,
      message_id text,
      due_at timestamptz not null default now(),
      claimed_by text,
      claimed_until timestamptz,
      attempts integer not null default 0,
      sent_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create index mail_due_idx on mail (organization_id, due_at, id) where status = 'queued'`,
    sql`create index mail_sending_idx on mail (claimed_until) where status = 'sending'`,
    sql`create index mail_created_idx on mail (organization_id, created_at, id)`,
    sql`create index mail_sent_idx on mail (organization_id, sent_at, id) where sent_at is not null`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists mail`.execute(db);
}
