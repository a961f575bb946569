/**
 * The mail sender killed with SIGKILL in the middle of a backlog and started again, against a real SMTP server on
 * loopback (docs/api.md#at-least-once-delivery): 400 mails queued, the sender killed once the server has ~160 of them,
 * a second sender started. No mail is lost: every one ends `sent` and reached the server; a mail the server received
 * twice (its first send was in flight at the kill) carries the same Message-ID both times, the one stored when it was
 * first claimed, so the receiver can drop the second.
 *
 * On PostgreSQL the sender is a process of its own (test/support/mail-sender-process.ts), with a short lease. The
 * embedded database belongs to one process, so there the process killed and restarted is `patron serve` itself, on
 * one data directory: the restarted server knows it is the only sender and queues again at once what the dead one
 * left `sending`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/engine.js';
import { queueMails } from '../../src/resources/mail/index.js';
import { uuidv7 } from '../../src/util/ids.js';
import { createTenant, type Tenant } from '../support/app.js';
import { createTestDatabase, migratedDataDir, type TestDatabase } from '../support/database.js';
import { BUILT_CLI, childEnv, exitOf, freePort, ROOT } from '../support/processes.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { until } from '../support/webhooks.js';

const MAIL_FROM = 'Patron Crash <mail@example.com>';
const COUNT = 400;
const KILL_AFTER = 160;

let smtp: SmtpReceiver;
const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  // Each message is held a moment before the server answers 250, so the kill lands with sends in flight: some the
  // server already has and the sender never heard accepted.
  smtp.answerDelayMs = 20;
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...children].map(exitOf));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await smtp?.close();
});

function spawnTracked(args: string[], env: Record<string, string | undefined>): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM') console.error(`sender exited ${code}: ${stderr}`);
  });
  return child;
}

async function queueBacklog(database: Database, tenant: Tenant): Promise<string[]> {
  const mails = Array.from({ length: COUNT }, (_, n) => ({
    id: uuidv7(),
    organizationId: tenant.organization.id,
    kind: 'rewardIssued' as const,
    recipient: `member${n}@example.com`,
    subject: `Your reward ${n}`,
    html: `<p>Reward ${n}</p>`,
    text: `Reward ${n}`,
  }));
  await database.db.transaction().execute((trx) => queueMails(trx, mails));
  return mails.map((mail) => mail.id);
}

const rowsOf = (database: Database, tenant: Tenant) =>
  database.db
    .selectFrom('mail')
    .select(['id', 'status', 'message_id', 'attempts'])
    .where('organization_id', '=', tenant.organization.id)
    .execute();

/** Kills `first` once the server has KILL_AFTER mails; what the server had then. */
async function killAfterBacklogStarted(first: ChildProcess): Promise<number> {
  await until(async () => smtp.received.length >= KILL_AFTER, 60_000);
  first.kill('SIGKILL');
  await exitOf(first);
  return smtp.received.length;
}

/** Every mail reached the server, and each message the server got carries the Message-ID stored on its mail. */
function expectNoneLostAndDuplicatesDedupable(rows: Awaited<ReturnType<typeof rowsOf>>, ids: string[]) {
  expect(rows).toHaveLength(COUNT);
  expect(rows.filter((row) => row.status !== 'sent')).toEqual([]);
  const byMessageId = new Map(rows.map((row) => [row.message_id, row]));
  expect(byMessageId.size).toBe(COUNT);
  for (const row of rows) expect(row.message_id).toBe(`<${row.id}@example.com>`);
  const received = new Map<string, number>();
  for (const mail of smtp.received) {
    const messageId = mail.parsed.messageId ?? '';
    // Nothing the server got is anything but one of the queued mails, under that mail's own Message-ID.
    expect(byMessageId.has(messageId), `unknown Message-ID ${messageId}`).toBe(true);
    expect(mail.envelopeTo).toEqual([`member${ids.indexOf(byMessageId.get(messageId)!.id)}@example.com`]);
    received.set(messageId, (received.get(messageId) ?? 0) + 1);
  }
  // 0 lost.
  expect(received.size).toBe(COUNT);
  const duplicates = [...received.values()].filter((times) => times > 1);
  // A mail is received at most twice here (one crash), and only one whose send was in flight at the kill: resent mail
  // was claimed twice.
  expect(duplicates.every((times) => times === 2)).toBe(true);
  const resent = rows.filter((row) => row.attempts === 2).length;
  expect(duplicates.length).toBeLessThanOrEqual(resent);
  expect(rows.every((row) => row.attempts === 1 || row.attempts === 2)).toBe(true);
  return { duplicates: duplicates.length, resent };
}

describe.skipIf(!process.env.DATABASE_URL)('the mail sender killed mid-backlog, on PostgreSQL', () => {
  let testDatabase: TestDatabase;
  let tenant: Tenant;
  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    cleanups.push(() => testDatabase.drop());
    tenant = await createTenant(testDatabase.database.db);
  });

  const startSender = () =>
    spawnTracked(['--import', 'tsx', 'test/support/mail-sender-process.ts'], {
      DATABASE_URL: testDatabase.url,
      SMTP_URL: smtp.url,
      MAIL_FROM,
      MAIL_POLL_MS: '50',
      MAIL_SWEEP_MS: '100',
      MAIL_SEND_TIMEOUT_MS: '2000',
      MAIL_LEASE_MS: '3000',
    });

  it('loses no mail, and a mail received twice carries one Message-ID', { timeout: 120_000 }, async () => {
    smtp.received.length = 0;
    const ids = await queueBacklog(testDatabase.database, tenant);
    const first = startSender();
    const atKill = await killAfterBacklogStarted(first);
    expect(atKill).toBeLessThan(COUNT);
    const leftSending = (await rowsOf(testDatabase.database, tenant)).filter((row) => row.status === 'sending');
    // The kill landed with sends in flight (else this test proves nothing about them).
    expect(leftSending.length).toBeGreaterThan(0);

    const second = startSender();
    const rows = await until(async () => {
      const all = await rowsOf(testDatabase.database, tenant);
      return all.every((row) => row.status === 'sent') && all;
    }, 60_000);
    second.kill('SIGTERM');
    await exitOf(second);
    const { resent } = expectNoneLostAndDuplicatesDedupable(rows, ids);
    // Exactly the mails the dead process left `sending` were sent again.
    expect(resent).toBe(leftSending.length);
  });
});

describe.skipIf(Boolean(process.env.DATABASE_URL))('patron serve killed mid-backlog, on the embedded database', () => {
  let dataDir: string;
  let tenant: Tenant;
  beforeAll(async () => {
    dataDir = await migratedDataDir('patron-mail-crash-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const database = await openDatabase({ dataDir });
    try {
      tenant = await createTenant(database.db);
    } finally {
      await database.close();
    }
  });

  const withDatabase = async <T>(use: (database: Database) => Promise<T>): Promise<T> => {
    const database = await openDatabase({ dataDir });
    try {
      return await use(database);
    } finally {
      await database.close();
    }
  };

  const serve = async () =>
    spawnTracked([BUILT_CLI, 'serve'], {
      PATRON_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      SMTP_URL: smtp.url,
      MAIL_FROM,
      LOG_LEVEL: 'warn',
    });

  it('loses no mail, and a mail received twice carries one Message-ID', { timeout: 180_000 }, async () => {
    smtp.received.length = 0;
    const ids = await withDatabase((database) => queueBacklog(database, tenant));
    const first = await serve();
    const atKill = await killAfterBacklogStarted(first);
    expect(atKill).toBeLessThan(COUNT);
    const leftSending = await withDatabase(async (database) =>
      (await rowsOf(database, tenant)).filter((row) => row.status === 'sending'),
    );
    expect(leftSending.length).toBeGreaterThan(0);

    const second = await serve();
    // The server has every mail at least once; then a clean stop writes the outcomes still in flight.
    await until(async () => new Set(smtp.received.map((mail) => mail.parsed.messageId)).size >= COUNT, 90_000);
    second.kill('SIGTERM');
    expect(await exitOf(second)).toEqual({ code: 0, signal: null });
    const rows = await withDatabase((database) => rowsOf(database, tenant));
    const { resent } = expectNoneLostAndDuplicatesDedupable(rows, ids);
    expect(resent).toBe(leftSending.length);
  });
});
