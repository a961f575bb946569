import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { PREPARE } from '../../db/prepared.js';
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
  /** `<mail id@domain>`, stored at the first claim and the same on every resend, so a receiver can dedupe. */
  messageId: string;
}

export const OPTED_OUT = 'not sent: the customer opted out of marketing email';

/**
 * What a settled mail that carried a one-time sign-in link keeps as its body: the link is a credential, and only its
 * SHA-256 is stored anywhere else (docs/api.md#forgotten-passwords). The mail is blanked once it is sent, logged or
 * given up; one put back in the queue keeps its body for the resend.
 */
export const BLANKED_BODY = '(removed once settled: it carried a one-time sign-in link)';
const CREDENTIAL_KINDS = sql`('passwordReset')`;

const leaseInterval = (leaseMs: number) => sql`make_interval(secs => ${leaseMs / 1000})`;

/**
 * Claims up to `limit` due mails in one statement (its own short transaction), across organizations: it is a
 * background job, not a request. The organizations with queued mail are found by skipping through the queued rows'
 * index one organization at a time (a loose index scan), so a claim costs the number of organizations waiting, not
 * the number of mails: a backlog of 10,000 survey requests is not read whole for each claim. Fair: each organization with due mail offers its oldest `limit` rows, ranked
 * within it, and the claim takes rank 1 of every organization before rank 2 of any, so one organization's backlog
 * does not hold up another's mail. SKIP LOCKED, where each organization's rows are offered, lets several senders
 * claim at once without waiting on each other or taking turns on the same oldest rows (each is offered the next rows
 * nobody holds), and a row another sender claimed meanwhile no longer reads `queued` once locked, so no mail is
 * claimed twice. Rows offered but not taken are only locked until the statement commits.
 *
 * Each claimed row is settled by what is known now (docs/api.md#mail): marketing mail to a customer who opted out
 * (by id, or by address when no customer is named) becomes `suppressed`; without an SMTP server, or when it is a test
 * twin's (docs/api.md#test-mode), it becomes `logged`;
 * otherwise `sending` under a lease, committed before the send starts. A mail's Message-ID (`<mail id@domain>`) is
 * stored by its first claim and kept by every later one, so a mail resent after a crash carries the Message-ID of its
 * first send (docs/api.md#at-least-once-delivery).
 */
export async function claimDueMail(
  db: Kysely<DB>,
  {
    owner,
    limit,
    leaseMs,
    smtpConfigured,
    messageIdDomain,
  }: { owner: string; limit: number; leaseMs: number; smtpConfigured: boolean; messageIdDomain: string },
): Promise<ClaimedMail[]> {
  // Prepared: every sender runs it on every poll, idle or not
  // (docs/journal/2026-11-28-noise-stale-statement-idle-server.md).
  const { rows } = await sql<{
    organization_id: string;
    id: string;
    status: ClaimedMail['status'];
    recipient: string;
    subject: string;
    html: string;
    text: string;
    message_id: string | null;
  }>`${PREPARE}
    with recursive queued_organizations as (
      (select organization_id from mail where status = 'queued' order by organization_id limit 1)
      union all
      select (
        select m.organization_id from mail m
        where m.status = 'queued' and m.organization_id > q.organization_id
        order by m.organization_id limit 1
      ) from queued_organizations q where q.organization_id is not null
    ),
    due_organizations as (
      select organization_id from queued_organizations where organization_id is not null
    ),
    offered as (
      select p.organization_id, p.id, p.due_at, p.marketing, p.customer_id, p.recipient from due_organizations o
      cross join lateral (
        select m.organization_id, m.id, m.due_at, m.marketing, m.customer_id, m.recipient
        from mail m
        where m.organization_id = o.organization_id and m.status = 'queued' and m.due_at <= now()
        order by m.due_at, m.id
        limit ${limit}
        for update of m skip locked
      ) p
    ),
    locked as (
      select organization_id, id, marketing, customer_id, recipient from (
        select f.*, row_number() over (partition by f.organization_id order by f.due_at, f.id) as rank from offered f
      ) r
      order by r.rank, r.due_at, r.id
      limit ${limit}
    ),
    decided as (
      select l.organization_id, l.id,
        case
          when l.marketing and exists (
            select 1 from customers c
            where c.organization_id = l.organization_id and c.email_opt_out
              and (c.id = l.customer_id or (l.customer_id is null and lower(c.email) = lower(l.recipient)))
          ) then 'suppressed'
          -- A test twin's mail is never sent (docs/api.md#test-mode).
          when ${smtpConfigured}::boolean and not exists (
            select 1 from organizations t where t.id = l.organization_id and t.live_organization_id is not null
          ) then 'sending'
          else 'logged'
        end as status
      from locked l
    )
    update mail m set status = d.status, attempts = m.attempts + 1, claimed_by = ${owner},
      claimed_until = case when d.status = 'sending' then now() + ${leaseInterval(leaseMs)} end,
      error = case when d.status = 'suppressed' then ${OPTED_OUT} end,
      message_id = case when d.status = 'sending'
        then coalesce(m.message_id, '<' || m.id::text || '@' || ${messageIdDomain}::text || '>') else m.message_id end,
      html = case when d.status <> 'sending' and m.kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else m.html end,
      text = case when d.status <> 'sending' and m.kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else m.text end,
      updated_at = now()
    from decided d
    where m.organization_id = d.organization_id and m.id = d.id
    returning m.organization_id, m.id, m.status, m.recipient, m.subject, m.html, m.text, m.message_id`.execute(db);
  return rows.map((row) => ({
    organizationId: row.organization_id,
    id: row.id,
    status: row.status,
    recipient: row.recipient,
    subject: row.subject,
    html: row.html,
    text: row.text,
    messageId: row.message_id ?? '',
  }));
}

export type MailOutcome =
  | { status: 'sent'; smtpResponse: string }
  | { status: 'failed' | 'interrupted'; error: string }
  /** Given up unanswered by a sender that is stopping: back to the queue, resent with the same Message-ID. */
  | { status: 'queued' };

/**
 * Writes what happened to sends, several in one statement. Written even over a mail the sweep meanwhile put back in
 * the queue (its send outlived the lease) as long as no other sender has claimed it since: the outcome is what
 * happened, and a `sent` written then saves a resend. A mail whose outcome is lost with the process (killed before
 * this statement) stays `sending` until its lease runs out, and is then sent again with the same Message-ID
 * (docs/api.md#at-least-once-delivery).
 */
export async function recordMailOutcomes(
  db: Kysely<DB>,
  owner: string,
  outcomes: { mail: Pick<ClaimedMail, 'organizationId' | 'id'>; outcome: MailOutcome }[],
): Promise<void> {
  if (outcomes.length === 0) return;
  const values = outcomes.map(({ mail, outcome }) => {
    const smtpResponse = outcome.status === 'sent' ? outcome.smtpResponse : null;
    const error = outcome.status === 'failed' || outcome.status === 'interrupted' ? outcome.error : null;
    return sql`(${mail.organizationId}::uuid, ${mail.id}::uuid, ${outcome.status}::text,
      ${smtpResponse}::text, ${error}::text)`;
  });
  await sql`
    update mail m set status = v.status, smtp_response = v.smtp_response, error = v.error,
      sent_at = case when v.status = 'sent' then now() end,
      html = case when v.status <> 'queued' and m.kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else m.html end,
      text = case when v.status <> 'queued' and m.kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else m.text end,
      claimed_until = null, updated_at = now()
    from (values ${sql.join(values)}) as v (organization_id, id, status, smtp_response, error)
    where m.organization_id = v.organization_id and m.id = v.id and m.claimed_by = ${owner}
      and m.status in ('sending', 'queued')`.execute(db);
}

/** How many times one mail is handed to SMTP at most before a crash-left send is given up as `interrupted`. */
export const MAX_SEND_ATTEMPTS = 3;

export const INTERRUPTED = `interrupted: the sending process stopped before the SMTP server answered, ${MAX_SEND_ATTEMPTS} times; not sent again, it may or may not have been delivered`;

/**
 * A mail left `sending` past its lease belongs to no live sender (its process died mid-send): SMTP may or may not have
 * accepted it, so it goes back to the queue and is sent again with the same Message-ID, for the receiver to dedupe
 * (docs/api.md#at-least-once-delivery). After MAX_SEND_ATTEMPTS claims it becomes `interrupted` instead, so a mail
 * that kills its sender every time does not go round for ever. Returns how many went back and how many were given up.
 * `leaseEnded: false` takes every mail left `sending`, leases or not: only for a sender that knows it is the only one on
 * its database, at its start.
 */
export async function requeueAbandoned(
  db: Kysely<DB>,
  { leaseEnded = true }: { leaseEnded?: boolean } = {},
): Promise<{ requeued: number; interrupted: number }> {
  const { rows } = await sql<{ status: string; count: string }>`
    with abandoned as (
      update mail set
        status = case when attempts >= ${MAX_SEND_ATTEMPTS} then 'interrupted' else 'queued' end,
        error = case when attempts >= ${MAX_SEND_ATTEMPTS} then ${INTERRUPTED} end,
        html = case when attempts >= ${MAX_SEND_ATTEMPTS} and kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else html end,
        text = case when attempts >= ${MAX_SEND_ATTEMPTS} and kind in ${CREDENTIAL_KINDS} then ${BLANKED_BODY} else text end,
        claimed_until = null, updated_at = now()
      where status = 'sending' and (claimed_until < now() or not ${leaseEnded}::boolean)
      returning status
    )
    select status, count(*) as count from abandoned group by status`.execute(db);
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  return { requeued: count('queued'), interrupted: count('interrupted') };
}
