import { sql, type Kysely } from 'kysely';

/**
 * Survey flows and surveys (docs/api.md#surveys). A flow names the surveyRequest template its mails are written with
 * (a template a flow uses cannot be deleted: the foreign key refuses it). A survey is scheduled at most once per order
 * and flow: the unique key is the rule itself, so two processes importing the same order race to one row. Each
 * survey's request is a row of the mail outbox (mail_id); the survey's status follows that mail's through a trigger,
 * so the mail sender, which knows nothing of surveys, settles both in its one statement. The list walks surveys by
 * (organization_id, created_at, id) and by scheduled_for; orders and customers find theirs by their own index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table survey_flows (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      name text not null,
      trigger text not null check (trigger in ('orderShipped', 'orderDelivered')),
      delay_days integer not null check (delay_days between 0 and 365),
      email_template_id uuid not null,
      questions jsonb not null,
      is_active boolean not null default true,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, email_template_id) references email_templates (organization_id, id))`,
    sql`create index survey_flows_created_idx on survey_flows (organization_id, created_at, id)`,
    sql`create index survey_flows_active_idx on survey_flows (organization_id, trigger) where is_active`,
    sql`create index survey_flows_template_idx on survey_flows (organization_id, email_template_id)`,
    sql`create table surveys (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      survey_flow_id uuid not null,
      customer_id uuid not null,
      order_id uuid not null,
      status text not null default 'scheduled'
        check (status in ('scheduled', 'sent', 'suppressed', 'failed', 'answered')),
      scheduled_for timestamptz not null,
      sent_at timestamptz,
      answered_at timestamptz,
      answers jsonb not null default '[]'::jsonb,
      mail_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      unique (organization_id, order_id, survey_flow_id),
      foreign key (organization_id, survey_flow_id) references survey_flows (organization_id, id) on delete cascade,
      foreign key (organization_id, order_id) references orders (organization_id, id) on delete cascade,
      foreign key (organization_id, customer_id) references customers (organization_id, id) on delete cascade)`,
    sql`create index surveys_created_idx on surveys (organization_id, created_at, id)`,
    sql`create index surveys_scheduled_idx on surveys (organization_id, scheduled_for, id)`,
    sql`create index surveys_flow_idx on surveys (organization_id, survey_flow_id, id)`,
    sql`create index surveys_customer_idx on surveys (organization_id, customer_id)`,
    sql`create index surveys_mail_idx on surveys (organization_id, mail_id) where mail_id is not null`,
    // A survey request's outcome is the survey's: sent (or only logged, where no SMTP server is configured),
    // suppressed by an opt-out, or failed (refused or interrupted). An answered survey stays answered.
    sql`create function surveys_follow_mail() returns trigger language plpgsql as $$
      begin
        update surveys set
          status = case new.status
            when 'sent' then 'sent' when 'logged' then 'sent'
            when 'suppressed' then 'suppressed'
            else 'failed' end,
          sent_at = case when new.status in ('sent', 'logged') then coalesce(new.sent_at, now()) else null end,
          updated_at = now()
        where organization_id = new.organization_id and mail_id = new.id and status = 'scheduled';
        return null;
      end $$`,
    sql`create trigger mail_settles_survey after update of status on mail
      for each row when (new.kind = 'surveyRequest' and old.status is distinct from new.status
        and new.status in ('sent', 'logged', 'suppressed', 'failed', 'interrupted'))
      execute function surveys_follow_mail()`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists mail_settles_survey on mail`.execute(db);
  await sql`drop function if exists surveys_follow_mail()`.execute(db);
  await sql`drop table if exists surveys`.execute(db);
  await sql`drop table if exists survey_flows`.execute(db);
}
