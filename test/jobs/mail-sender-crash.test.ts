/**
 * The mail sender as a real child process on PostgreSQL, killed with SIGKILL while one mail sits mid-DATA (the
 * server has the message and never answers) and another waits on RCPT TO (the message was never handed over), then a
 * second sender started: no mail reaches the server twice, every other mail is sent exactly once, and each mail the
 * dead process left `sending` is recorded `interrupted` and never resent (docs/api.md#mail, at most once). From the
 * database alone the two stalled mails look alike (claimed, `sending`): the sender records what it can prove.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueMail } from '../../src/resources/mail/index.js';
import { INTERRUPTED } from '../../src/resources/mail/queries.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { childEnv, exitOf, ROOT } from '../support/processes.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { until } from '../support/webhooks.js';

const MAIL_FROM = 'Patron Crash <mail@example.com>';
const COUNT = 30;

let t: TestApp;
let smtp: SmtpReceiver;
let tenant: Tenant;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await smtp?.close();
  await t?.close();
});

function startSenderProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/mail-sender-process.ts'], {
    cwd: ROOT,
    env: childEnv({
      DATABASE_URL: t.testDatabase.url,
      SMTP_URL: smtp.url,
      MAIL_FROM,
      MAIL_BATCH_SIZE: '5',
      MAIL_POLL_MS: '50',
      MAIL_SWEEP_MS: '100',
      // Long enough that the first process is killed with both stalled sends still waiting; the lease (committed at
      // claim) is what the second process goes by.
      MAIL_SEND_TIMEOUT_MS: '3000',
      MAIL_LEASE_MS: '4000',
    }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

const statuses = (ids: string[]) =>
  t.testDatabase.database.db
    .selectFrom('mail')
    .select(['id', 'status', 'error', 'attempts', 'message_id'])
    .where('organization_id', '=', tenant.organization.id)
    .where('id', 'in', ids)
    .execute();

describe.skipIf(!process.env.DATABASE_URL)('the mail sender killed mid-send', () => {
  it(
    'sends nothing twice and records what the dead process left sending as interrupted',
    // The waits below include starting a sender process, which a busy machine can make take many seconds.
    { timeout: 90_000 },
    async () => {
      const db = t.testDatabase.database.db;
      const ids: string[] = [];
      for (let n = 0; n < COUNT; n++) {
        const recipient =
          n === 12 ? 'mid-data@example.com' : n === 13 ? 'before-data@example.com' : `c${n}@example.com`;
        ids.push(
          await db.transaction().execute((trx) =>
            queueMail(trx, {
              organizationId: tenant.organization.id,
              kind: 'surveyRequest',
              recipient,
              subject: `Survey ${n}`,
              html: `<p>${n}</p>`,
              text: `${n}`,
            }),
          ),
        );
      }
      const midData = ids[12]!;
      const beforeData = ids[13]!;
      smtp.stallData = (address) => address === 'mid-data@example.com';
      smtp.stallRcpt = (address) => address === 'before-data@example.com';

      const first = startSenderProcess();
      await until(async () => {
        const rows = await statuses([midData, beforeData]);
        return rows.every((row) => row.status === 'sending');
      }, 30_000);
      // Let the rest of the stalled batch settle, then kill with both stalled sends in flight. A batch is the mail one
      // claim took: it shares the claim's lease end (claimed_until).
      await until(async () => {
        const rows = await db
          .selectFrom('mail')
          .select(['id', 'status', 'claimed_until'])
          .where('organization_id', '=', tenant.organization.id)
          .where('id', 'in', ids)
          .execute();
        const stalledBatches = new Set(
          rows.filter((row) => row.id === midData || row.id === beforeData).map((row) => row.claimed_until?.getTime()),
        );
        return rows.every(
          (row) =>
            row.id === midData ||
            row.id === beforeData ||
            !stalledBatches.has(row.claimed_until?.getTime()) ||
            row.status !== 'sending',
        );
      }, 10_000);
      first.kill('SIGKILL');
      await exitOf(first);
      const atKill = await statuses(ids);
      const leftSending = atKill.filter((row) => row.status === 'sending').map((row) => row.id);
      expect(leftSending).toEqual(expect.arrayContaining([midData, beforeData]));
      // Mail queued after the kill, so the second sender has queued work as well as what the first left `sending`,
      // however much of the rest the first had claimed by then (on a fast machine, all of it within the wait above).
      for (let n = 0; n < 5; n++) {
        ids.push(
          await db.transaction().execute((trx) =>
            queueMail(trx, {
              organizationId: tenant.organization.id,
              kind: 'surveyRequest',
              recipient: `after-kill-${n}@example.com`,
              subject: `After the kill ${n}`,
              html: `<p>after ${n}</p>`,
              text: `after ${n}`,
            }),
          ),
        );
      }

      // From here the server answers everything at once: a resend would be received.
      smtp.stallData = () => false;
      smtp.stallRcpt = () => false;
      const second = startSenderProcess();
      const rows = await until(async () => {
        const all = await statuses(ids);
        return all.every((row) => row.status !== 'queued' && row.status !== 'sending') && all;
      }, 30_000);
      second.kill('SIGTERM');
      await exitOf(second);

      const messageIds = smtp.received.map((mail) => mail.parsed.messageId);
      expect(new Set(messageIds).size, 'a mail was received twice').toBe(messageIds.length);
      for (const row of rows) {
        expect(row.attempts).toBe(1);
        const received = smtp.withMessageId(`<${row.id}@example.com>`);
        if (leftSending.includes(row.id)) {
          expect(row.status).toBe('interrupted');
          expect(row.error).toBe(INTERRUPTED);
          // The two stalled sends never reached the server. Another send still in flight at the kill may have been
          // accepted before its outcome was written (on a loaded machine it was): received once, never again.
          if (row.id === midData || row.id === beforeData) expect(received).toEqual([]);
          else expect(received.length).toBeLessThanOrEqual(1);
        } else {
          expect(row.status).toBe('sent');
          expect(received).toHaveLength(1);
        }
      }
    },
  );
});
