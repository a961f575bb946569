import type { Kysely } from 'kysely';
import type { DB, MailKind } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { notFound } from '../../core/errors.js';
import { listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { isMarketingKind, toMailMessage, type MailMessage } from '../../records/mail-message.js';
import { uuidv7 } from '../../util/ids.js';
import { mailList } from './list.js';
import { findMail, insertMail } from './queries.js';

export interface NewMail {
  organizationId: string;
  kind: MailKind;
  recipient: string;
  /** The customer the mail is for: marketing mail to one who opted out is suppressed (docs/api.md#mail). */
  customerId?: string | null;
  subject: string;
  html: string;
  text: string;
  /** When it may be sent; now by default. */
  dueAt?: Date;
}

/**
 * Queues one mail in the caller's transaction (the outbox rule, docs/api.md#mail): the change that causes a mail and
 * the mail commit together, or neither does, and nothing leaves the process until the sender claims the committed
 * row. Nothing is sent here, so a transaction that runs twice queues one mail. Marketing follows from the kind.
 * Returns the mail's id.
 */
export async function queueMail(trx: Executor, mail: NewMail): Promise<string> {
  const recipient = mail.recipient.trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(recipient)) throw new Error('queueMail needs one email address as the recipient.');
  const id = uuidv7();
  await insertMail(trx, {
    organizationId: mail.organizationId,
    id,
    kind: mail.kind,
    marketing: isMarketingKind(mail.kind),
    recipient,
    customerId: mail.customerId ?? null,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    dueAt: mail.dueAt,
  });
  return id;
}

/**
 * queueMail for many mails in one statement (a batch of survey requests), each with the id its caller chose, so the
 * caller can point its own records at the mails before they exist. Same rules as queueMail.
 */
export async function queueMails(trx: Executor, mails: readonly (NewMail & { id: string })[]): Promise<void> {
  if (mails.length === 0) return;
  await trx
    .insertInto('mail')
    .values(
      mails.map((mail) => {
        const recipient = mail.recipient.trim();
        if (!/^[^@\s]+@[^@\s]+$/.test(recipient)) throw new Error('queueMails needs one email address per recipient.');
        return {
          organization_id: mail.organizationId,
          id: mail.id,
          kind: mail.kind,
          marketing: isMarketingKind(mail.kind),
          recipient,
          customer_id: mail.customerId ?? null,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          ...(mail.dueAt ? { due_at: mail.dueAt } : {}),
        };
      }),
    )
    .execute();
}

/**
 * Withdraws mail that has not been taken by a sender yet (a deleted survey's request): deleted from the outbox, so it
 * is never sent. Mail already taken or settled stays in the log as it is. Answers the ids withdrawn.
 */
export async function withdrawQueuedMail(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const withdrawn = await trx
    .deleteFrom('mail')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .where('status', '=', 'queued')
    .returning('id')
    .execute();
  return withdrawn.map((row) => row.id);
}

export class MailLogService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, mailList, organizationId, params, toMailMessage);
  }

  async get(organizationId: string, id: string): Promise<MailMessage> {
    const row = await findMail(this.db, organizationId, id);
    if (!row) throw notFound('The mail');
    return toMailMessage(row);
  }
}
