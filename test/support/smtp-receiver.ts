/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps what it receives, for the mail sender's tests.
 * Plain SMTP, no STARTTLS and no AUTH: it answers only on loopback. `rejectRecipient` makes it refuse an address
 * at RCPT TO with a 550, `stallData` makes it never answer a message's DATA (a silent server), `stallRcpt` never answer its RCPT TO,
 * `answerDelayMs` keeps each message a while before answering its DATA (so a crash test's kill lands with sends in flight).
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { vi } from 'vitest';

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO, as the envelope gave them. */
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Refuse RCPT TO for these addresses with "550 5.1.1 <address>: Recipient address rejected". */
  rejectRecipient: (address: string) => boolean;
  /** Never answer DATA for messages to these addresses. */
  stallData: (address: string) => boolean;
  /** Never answer RCPT TO for these addresses (the message itself is never handed over). */
  stallRcpt: (address: string) => boolean;
  /** How long a received message waits before its DATA is answered 250 (it is in `received` from the start). */
  answerDelayMs: number;
  /** The mails received with this Message-ID (with its angle brackets). */
  withMessageId(messageId: string): ReceivedMail[];
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const receiver: SmtpReceiver = {
    url: '',
    received,
    rejectRecipient: () => false,
    stallData: () => false,
    stallRcpt: () => false,
    answerDelayMs: 0,
    withMessageId: (messageId) => received.filter((mail) => mail.parsed.messageId === messageId),
    waitFor: (count, timeoutMs = 10_000) =>
      vi.waitFor(
        () => {
          if (received.length < count) throw new Error(`expected ${count} mails, received ${received.length}`);
          return received;
        },
        { timeout: timeoutMs, interval: 25 },
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    // A stalled client is dropped a second after close() rather than the default 30 s.
    closeTimeout: 1_000,
    onRcptTo(address, _session, callback) {
      if (receiver.stallRcpt(address.address)) return; // never answers
      if (receiver.rejectRecipient(address.address)) {
        const refusal = Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected`), {
          responseCode: 550,
        });
        return callback(refusal);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        if (to.some((address) => receiver.stallData(address))) return; // never answers
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const from = session.envelope.mailFrom;
            received.push({ envelopeFrom: from ? from.address : '', envelopeTo: to, raw, parsed });
            if (receiver.answerDelayMs > 0) setTimeout(() => callback(), receiver.answerDelayMs);
            else callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // A client killed mid-conversation (the crash tests) resets its socket: smtp-server reports that as an 'error', which
  // is expected here and must not become an unhandled error of the test run.
  server.on('error', () => {});
  const { port } = server.server.address() as AddressInfo;
  receiver.url = `smtp://127.0.0.1:${port}`;
  return receiver;
}
