/** A mail log entry (docs/api.md#mail): its response shape, the columns it is read from and the row→record mapping. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { MailTable } from '../db/schema.js';
import { NullableTimestamp, Timestamp, Uuid } from './common.js';

export const MAIL_KINDS = [
  'surveyRequest',
  'rewardIssued',
  'rewardExpiringSoon',
  'pointsExpiringSoon',
  'reviewReplied',
  'passwordReset',
] as const;
export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'logged', 'suppressed', 'failed', 'interrupted'] as const;

/** Marketing mail is refused to a customer who opted out; the rest is mail the customer asked for. */
export const isMarketingKind = (kind: (typeof MAIL_KINDS)[number]): boolean => kind === 'surveyRequest';

export const MailMessage = Type.Object(
  {
    id: Uuid,
    kind: Type.Union(
      [
        Type.Literal('surveyRequest'),
        Type.Literal('rewardIssued'),
        Type.Literal('rewardExpiringSoon'),
        Type.Literal('pointsExpiringSoon'),
        Type.Literal('reviewReplied'),
        Type.Literal('passwordReset'),
      ],
      {
        description:
          'surveyRequest is marketing mail; the others are mail the customer asked for. passwordReset is a dashboard ' +
          'user\'s one-time sign-in link ("forgot password"), whose body is blanked once it is settled.',
      },
    ),
    marketing: Type.Boolean({ description: 'Marketing mail is never sent to a customer with emailOptOut.' }),
    recipient: Type.String({ description: 'The address it is (or was) sent to.' }),
    customerId: Type.Union([Uuid, Type.Null()], { description: 'The customer it is for, when it is for one.' }),
    subject: Type.String(),
    status: Type.Union(
      [
        Type.Literal('queued'),
        Type.Literal('sending'),
        Type.Literal('sent'),
        Type.Literal('logged'),
        Type.Literal('suppressed'),
        Type.Literal('failed'),
        Type.Literal('interrupted'),
      ],
      {
        description:
          'queued (waiting until dueAt), sending (handed to the SMTP server), sent (the server accepted it), logged (recorded, not sent: no SMTP server is configured, or the mail is of test mode), suppressed (marketing mail to an opted-out customer: not sent), failed (the server refused it or could not be reached; not retried), interrupted (given up unanswered, its outcome unknown: the server went silent, or a third crash of its sender; not sent again). A mail whose sender died mid-send is queued again and resent with the same messageId.',
      },
    ),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it was not sent: the SMTP server’s answer (e.g. "550 5.1.1 …"), or what stopped it.',
    }),
    smtpResponse: Type.Union([Type.String(), Type.Null()], {
      description: 'The SMTP server’s answer when it accepted the mail (e.g. "250 2.0.0 Ok: queued as …").',
    }),
    messageId: Type.Union([Type.String(), Type.Null()], {
      description:
        'The Message-ID header sent, stored when a sender first takes the mail and the same on every copy, so a receiver can drop a duplicate.',
    }),
    attempts: Type.Integer({
      minimum: 0,
      description:
        'Times a sender claimed it: more than 1 when it was sent again after its sender died mid-send (at most 3).',
    }),
    dueAt: Timestamp,
    sentAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'MailMessage', additionalProperties: false },
);
export type MailMessage = Static<typeof MailMessage>;

export type MailRow = Selectable<MailTable>;

/** The columns toMailMessage reads (html and text stay in the database). */
export const MAIL_COLUMNS = [
  'id',
  'kind',
  'marketing',
  'recipient',
  'customer_id',
  'subject',
  'status',
  'error',
  'smtp_response',
  'message_id',
  'attempts',
  'due_at',
  'sent_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof MailRow)[];
export type MailFields = Pick<MailRow, (typeof MAIL_COLUMNS)[number]>;

export const toMailMessage = (row: MailFields): MailMessage => ({
  id: row.id,
  kind: row.kind,
  marketing: row.marketing,
  recipient: row.recipient,
  customerId: row.customer_id,
  subject: row.subject,
  status: row.status,
  error: row.error,
  smtpResponse: row.smtp_response,
  messageId: row.message_id,
  attempts: row.attempts,
  dueAt: row.due_at.toISOString(),
  sentAt: row.sent_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
