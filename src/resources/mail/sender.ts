import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Transporter } from 'nodemailer';
import type { DB } from '../../db/schema.js';
import type { Logger } from '../../util/logger.js';
import { claimDueMail, recordMailOutcomes, requeueAbandoned, type ClaimedMail, type MailOutcome } from './queries.js';
import { wakeableSleep } from '../../util/wakeable-sleep.js';

export interface MailSenderOptions {
  db: Kysely<DB>;
  /** smtp:// or smtps:// with any credentials; without it mail is recorded `logged` and not sent. */
  smtpUrl: string | undefined;
  /** The From header, e.g. `Shop <no-reply@example.com>`; its domain also ends each Message-ID. */
  mailFrom: string | undefined;
  logger: Logger;
  /**
   * Connections of the SMTP pool (default 5). Up to `windowSize` mails are in flight on them at once (default 4 per
   * connection): as sends settle the sender claims more, so the pool never idles waiting for the slowest of a batch.
   */
  batchSize?: number;
  /** Mails in flight at most; claims fill the window as sends settle. */
  windowSize?: number;
  /** Idle poll interval. */
  pollMs?: number;
  /** How long one send may take, connection included, before it is given up as `interrupted`. */
  sendTimeoutMs?: number;
  /** How long a claim stays `sending` before a sweep puts it back in the queue; must outlast the send time-out. */
  leaseMs?: number;
  /** How often mail left `sending` past its lease is looked for. */
  sweepMs?: number;
  /**
   * This sender is the only one its database ever has (the embedded database belongs to one process): mail found
   * `sending` when it starts was left by a dead process, and is queued again at once instead of after its lease.
   */
  soleSender?: boolean;
  /** On stop, how long sends in flight may finish before the pool is closed under them. */
  stopGraceMs?: number;
}

export interface MailSender {
  /** The claimed_by value of this sender. */
  readonly owner: string;
  /** Look for due mail now. */
  wake(): void;
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 5_000;
const LEASE_MARGIN_MS = 10_000;

/** The domain of the From address, for Message-IDs (`<mail id@domain>`). */
export function messageIdDomain(mailFrom: string | undefined): string {
  const match = /@([^@\s<>]+)>?\s*$/.exec(mailFrom ?? '');
  return match?.[1] ?? 'patron.invalid';
}

/**
 * What an SMTP failure is recorded with: the server's own answer when it gave one (e.g. "550 5.1.1 <…>: Recipient
 * address rejected"), else what went wrong on the way to it. Never the SMTP URL, which may carry credentials.
 */
function describeFailure(error: unknown): string {
  const failure = error as { response?: unknown; responseCode?: unknown; code?: unknown; message?: unknown };
  if (typeof failure.response === 'string' && failure.response.trim() !== '') return failure.response.trim();
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  return typeof failure.code === 'string' ? `${failure.code}: ${message}` : message;
}

/**
 * Sends queued mail (docs/api.md#mail). A loop claims due mail in small batches (claimDueMail: SKIP LOCKED, fair
 * across organizations, each claimed row committed `sending` under a lease in one short statement), then sends the
 * batch outside any transaction over a pooled SMTP connection and records each outcome: `sent` with the server's
 * answer, or `failed` with its refusal. Delivery is at least once (docs/api.md#at-least-once-delivery): a mail left
 * `sending` by a dead process goes back to the queue when its lease runs out and is sent again with the Message-ID
 * stored by its first claim, which is what a receiver dedupes on; one whose send outlived its time-out (a server that
 * went silent) is recorded `interrupted`. Several senders (processes) on one database share the work.
 */
export function startMailSender(options: MailSenderOptions): MailSender {
  const { db, logger } = options;
  if (options.smtpUrl && !options.mailFrom) throw new Error('Sending mail through SMTP_URL needs MAIL_FROM.');
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  const batchSize = options.batchSize ?? 5;
  const windowSize = options.windowSize ?? batchSize * 4;
  const pollMs = options.pollMs ?? 1_000;
  const sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
  const leaseMs = options.leaseMs ?? sendTimeoutMs + LEASE_MARGIN_MS;
  if (leaseMs < sendTimeoutMs + 1_000) throw new Error('The mail lease must outlast the send time-out by 1 s.');
  const sweepMs = options.sweepMs ?? 5_000;
  const domain = messageIdDomain(options.mailFrom);

  // One pool, as many connections as a batch has mails. Connecting and the greeting have their own time-outs (no
  // message has left then: failed); a server silent later is given up at sendTimeoutMs as interrupted (it may have
  // the message), so the socket's own time-out only backs that up, freeing the connection soon after.
  // nodemailer is loaded by the loop's first turn, and only with an SMTP server: a process that records mail `logged`
  // never holds it (docs/api.md#running-the-server).
  let createTransport = (): Transporter | undefined => undefined;
  const loadTransport = async () => {
    if (!options.smtpUrl) return;
    const smtpUrl = options.smtpUrl;
    const { default: nodemailer } = await import('nodemailer');
    createTransport = () =>
      nodemailer.createTransport({
        url: smtpUrl,
        pool: true,
        maxConnections: batchSize,
        maxMessages: 100,
        connectionTimeout: Math.min(10_000, sendTimeoutMs),
        greetingTimeout: Math.min(10_000, sendTimeoutMs),
        socketTimeout: sendTimeoutMs + 5_000,
      });
    transport = createTransport();
  };
  let transport: Transporter | undefined;

  let stopped = false;
  // Resolved when a stop's grace period is over: sends still in flight are given up then (a pool's close() lets a
  // send in progress finish, however long it takes).
  let abandon: () => void = () => {};
  const abandoned = new Promise<'stopped'>((resolve) => {
    abandon = () => resolve('stopped');
  });
  const { sleep, wake, reset: resetWake } = wakeableSleep(() => stopped);

  /** Sends one claimed mail; its outcome, and whether its send outlived the time-out. */
  const sendOne = async (
    current: Transporter,
    mail: ClaimedMail,
  ): Promise<{ mail: ClaimedMail; outcome: MailOutcome; overran: boolean }> => {
    const { messageId } = mail;
    let outcome: MailOutcome;
    let overran = false;
    let timer: NodeJS.Timeout | undefined;
    const sending = current.sendMail({
      from: options.mailFrom,
      to: mail.recipient,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId,
    });
    // A send given up below may still settle later; its result is no longer wanted.
    sending.catch(() => {});
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), sendTimeoutMs);
    });
    try {
      const result = await Promise.race([sending, deadline, abandoned]);
      if (result === 'timeout') {
        overran = true;
        outcome = {
          status: 'interrupted',
          error: `interrupted: no answer from the SMTP server within ${sendTimeoutMs} ms; not resent, it may or may not have been delivered`,
        };
      } else if (result === 'stopped') {
        // Unanswered, like a crash: the next sender sends it again with the same Message-ID.
        outcome = { status: 'queued' };
      } else {
        outcome = { status: 'sent', smtpResponse: String(result.response ?? '') };
      }
    } catch (error) {
      outcome = { status: 'failed', error: describeFailure(error) };
    } finally {
      clearTimeout(timer);
    }
    return { mail, outcome, overran };
  };

  /**
   * Outcomes are written as sends settle, coalesced: those that settle while a write is running go together in the
   * next statement, so a busy sender writes one statement for many mails and a send that hangs never holds back the
   * record of one that finished.
   */
  const pending: { mail: ClaimedMail; outcome: MailOutcome }[] = [];
  let writing: Promise<void> | undefined;
  const flush = async () => {
    while (pending.length > 0) {
      const group = pending.splice(0);
      try {
        await recordMailOutcomes(db, owner, group);
      } catch (error) {
        // The rows stay `sending` and the sweep puts them back in the queue when their lease ends.
        logger.error(
          { err: error, mailIds: group.map((item) => item.mail.id) },
          'could not record the outcome of mail',
        );
      }
    }
    writing = undefined;
  };

  // Sends in flight, and how many each pool carries: a pool replaced after a send overran is closed once its last
  // send has settled, never under a send that may still be delivered.
  const inFlight = new Set<Promise<void>>();
  const carried = new Map<Transporter, number>();
  const retired = new Set<Transporter>();
  const release = (pool: Transporter) => {
    const left = (carried.get(pool) ?? 1) - 1;
    if (left > 0) return void carried.set(pool, left);
    carried.delete(pool);
    if (retired.delete(pool)) pool.close();
  };
  const start = (pool: Transporter, mail: ClaimedMail) => {
    carried.set(pool, (carried.get(pool) ?? 0) + 1);
    const sending: Promise<void> = sendOne(pool, mail).then(({ overran, ...result }) => {
      pending.push(result);
      writing ??= flush();
      // A send that never answered still holds a pooled connection (until the socket time-out ends it): new sends go
      // to a fresh pool, and this one closes when its other sends have settled.
      if (overran && pool === transport && !stopped) {
        retired.add(pool);
        transport = createTransport();
      }
      release(pool);
      inFlight.delete(sending);
    });
    inFlight.add(sending);
  };
  const settleOne = () => Promise.race(inFlight);

  const loop = async () => {
    await loadTransport();
    let nextSweep = 0;
    let firstSweep = true;
    let failures = 0;
    while (!stopped) {
      resetWake();
      let more = false;
      try {
        if (Date.now() >= nextSweep) {
          const abandoned = await requeueAbandoned(db, { leaseEnded: !(firstSweep && options.soleSender) });
          firstSweep = false;
          if (abandoned.requeued > 0 || abandoned.interrupted > 0)
            logger.warn(
              abandoned,
              'mail left sending by a stopped sender: queued again, or interrupted after its last attempt',
            );
          nextSweep = Date.now() + sweepMs;
        }
        const room = windowSize - inFlight.size;
        const claimed = await claimDueMail(db, {
          owner,
          limit: room,
          leaseMs,
          smtpConfigured: transport !== undefined,
          messageIdDomain: domain,
        });
        // Fewer than there was room for may only mean another sender took some at the same moment: nothing at all
        // means nothing is due.
        more = claimed.length > 0;
        const pool = transport;
        if (pool) for (const mail of claimed) if (mail.status === 'sending') start(pool, mail);
        failures = 0;
      } catch (error) {
        if (stopped) break;
        failures++;
        logger.error({ err: error }, 'mail sender could not reach the database; retrying');
        await sleep(Math.min(pollMs * 2 ** failures, MAX_BACKOFF_MS));
        continue;
      }
      // With more due, the sender claims again once half the window has settled, so each claim takes many mails
      // (one statement per mail would cost more than the sends); a claim that found nothing means nothing is due
      // now, so the sender rests until the next poll (or a wake).
      if (more) while (inFlight.size > windowSize / 2) await settleOne();
      else await sleep(pollMs);
    }
  };

  const running = loop();
  logger.info({ owner, smtp: Boolean(options.smtpUrl) }, 'mail sender started');

  return {
    owner,
    wake,
    async stop() {
      if (stopped) return;
      stopped = true;
      wake();
      // Sends in flight get a grace period; then they are given up and queued again.
      const grace = setTimeout(abandon, options.stopGraceMs ?? 5_000);
      await running;
      await Promise.all(inFlight);
      while (writing) await writing;
      clearTimeout(grace);
      transport?.close();
      for (const pool of retired) pool.close();
    },
  };
}
