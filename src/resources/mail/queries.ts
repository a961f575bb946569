import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { DB, MailKind, MailStatus } from '../../db/schema.js';
import { MAIL_COLUMNS, type MailFields } from '../../records/mail-message.js';

export const insertMail = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    kind: MailKind;
    marketing: boolean;
    recipient: string;
    customerId: string | null;
    subject: string;
    html: string;
    text: string;
    dueAt: Date | undefined;
  },
) =>
  trx
    .insertInto('mail')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      kind: values.kind,
      marketing: values.marketing,
      recipient: values.recipient,
      customer_id: values.customerId,
      subject: values.subject,
      html: values.html,
      text: values.text,
      ...(values.dueAt ? { due_at: values.dueAt } : {}),
    })
    .execute();

export const findMail = (db: Executor, organizationId: string, id: string): Promise<MailFields | undefined> =>
  db
    .selectFrom('mail')
    .select(MAIL_COLUMNS)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** A claimed mail: what the sender needs to send it (or to know it was settled at claim time). */
export interface ClaimedMail {
  organizationId: string;
  id: string;
  status: Extract<MailStatus, 'sending' | 'logged' | 'suppressed'>;
  recipient: string;
  subject: string;
  html: string;
  text: string;
}

export const OPTED_OUT = 'not sent: the customer opted out of marketing email';

const leaseInterval = (leaseMs: number) => sql`make_interval(secs => ${leaseMs / 1000})`;

/**
 * Claims up to `limit` due mails in one statement (its own short transaction), across organizations: it is a
 * background job, not a request. Fair: each organization with due mail offers its oldest `limit` rows, ranked
 * within it, and the claim takes rank 1 of every organization before rank 2 of any, so one organization's backlog
 * does not hold up another's mail. SKIP LOCKED lets several senders claim at once without waiting on each other, and
 * a row another sender claimed meanwhile no longer reads `queued` once locked, so no mail is claimed twice.
 *
 * Each claimed row is settled by what is known now (docs/api.md#mail): marketing mail to a customer who opted out
 * (by id, or by address when no customer is named) becomes `suppressed`; without an SMTP server it becomes `logged`;
 * otherwise `sending` under a lease, committed before the send starts.
 */
export async function claimDueMail(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
  smtpConfigured: boolean,
): Promise<ClaimedMail[]> {
  const { rows } = await sql<{
    organization_id: string;
    id: string;
    status: ClaimedMail['status'];
    recipient: string;
    subject: string;
    html: string;
    text: string;
  }>`
    with due_organizations as (
      select distinct organization_id from mail where status = 'queued' and due_at <= now()
    ),
    ranked as (
      select p.organization_id, p.id, p.due_at, p.rank from due_organizations o
      cross join lateral (
        select m.organization_id, m.id, m.due_at, row_number() over (order by m.due_at, m.id) as rank
        from mail m
        where m.organization_id = o.organization_id and m.status = 'queued' and m.due_at <= now()
        order by m.due_at, m.id
        limit ${limit}
      ) p
    ),
    locked as (
      select m.organization_id, m.id, m.marketing, m.customer_id, m.recipient from mail m
      join ranked r on r.organization_id = m.organization_id and r.id = m.id
      where m.status = 'queued' and m.due_at <= now()
      order by r.rank, r.due_at, r.id
      limit ${limit}
      for update of m skip locked
    ),
    decided as (
      select l.organization_id, l.id,
        case
          when l.marketing and exists (
            select 1 from customers c
            where c.organization_id = l.organization_id and c.email_opt_out
              and (c.id = l.customer_id or (l.customer_id is null and lower(c.email) = lower(l.recipient)))
          ) then 'suppressed'
          when ${smtpConfigured}::boolean then 'sending'
          else 'logged'
        end as status
      from locked l
    )
    update mail m set status = d.status, attempts = m.attempts + 1, claimed_by = ${owner},
      claimed_until = case when d.status = 'sending' then now() + ${leaseInterval(leaseMs)} end,
      error = case when d.status = 'suppressed' then ${OPTED_OUT} end,
      updated_at = now()
    from decided d
    where m.organization_id = d.organization_id and m.id = d.id
    returning m.organization_id, m.id, m.status, m.recipient, m.subject, m.html, m.text`.execute(db);
  return rows.map((row) => ({
    organizationId: row.organization_id,
    id: row.id,
    status: row.status,
    recipient: row.recipient,
    subject: row.subject,
    html: row.html,
    text: row.text,
  }));
}

export type MailOutcome =
  | { status: 'sent'; smtpResponse: string; messageId: string }
  | { status: 'failed' | 'interrupted'; error: string; messageId: string };

/**
 * Writes what happened to the sends of one claimed batch, in one statement once the last of them has settled. Written
 * even over `interrupted` (a sweep that found the lease expired while the send was still running): the outcome is
 * what happened, and the row was never resent meanwhile. A mail whose outcome is lost with the process (killed before this statement)
 * stays `sending` and the sweep records it interrupted: never sent twice.
 */
export async function recordMailOutcomes(
  db: Kysely<DB>,
  owner: string,
  outcomes: { mail: Pick<ClaimedMail, 'organizationId' | 'id'>; outcome: MailOutcome }[],
): Promise<void> {
  if (outcomes.length === 0) return;
  const values = outcomes.map(({ mail, outcome }) => {
    const sent = outcome.status === 'sent';
    return sql`(${mail.organizationId}::uuid, ${mail.id}::uuid, ${outcome.status}::text,
      ${sent ? outcome.smtpResponse : null}::text, ${sent ? null : outcome.error}::text, ${outcome.messageId}::text)`;
  });
  await sql`
    update mail m set status = v.status, smtp_response = v.smtp_response, error = v.error, message_id = v.message_id,
      sent_at = case when v.status = 'sent' then now() end,
      claimed_until = null, updated_at = now()
    from (values ${sql.join(values)}) as v (organization_id, id, status, smtp_response, error, message_id)
    where m.organization_id = v.organization_id and m.id = v.id and m.claimed_by = ${owner}
      and m.status in ('sending', 'interrupted')`.execute(db);
}

export const INTERRUPTED =
  'interrupted: the sending process stopped before the SMTP server answered; not resent, it may or may not have been delivered';

/**
 * A mail left `sending` past its lease belongs to no live sender (its process died or was stopped mid-send): it
 * becomes `interrupted` and is never sent again (docs/api.md#mail, at most once).
 */
export async function markInterrupted(db: Kysely<DB>): Promise<number> {
  const result = await sql`
    update mail set status = 'interrupted', error = ${INTERRUPTED}, claimed_until = null, updated_at = now()
    where status = 'sending' and claimed_until < now()`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
