/**
 * The mail sender alone as a child process (docs/api.md#mail), for the suites and benchmarks that kill it or run
 * two of it on one PostgreSQL database: `node --import tsx test/support/mail-sender-process.ts`. Configured by
 * DATABASE_URL, SMTP_URL, MAIL_FROM and MAIL_BATCH_SIZE, MAIL_POLL_MS, MAIL_SEND_TIMEOUT_MS, MAIL_LEASE_MS,
 * MAIL_SWEEP_MS, MAIL_DB_POOL_SIZE. Prints "ready" on stdout once started; stops on SIGTERM.
 */
import { openDatabase } from '../../src/db/engine.js';
import { startMailSender } from '../../src/resources/mail/index.js';

const number = (name: string): number | undefined => {
  const value = process.env[name];
  return value ? Number(value) : undefined;
};

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('The mail sender process needs DATABASE_URL (PGlite cannot be shared).');
const database = await openDatabase({ databaseUrl, dataDir: '', poolSize: number('MAIL_DB_POOL_SIZE') });
const logger = {
  info: () => {},
  warn: () => {},
  error: (object: object, message: string) => process.stderr.write(`${message} ${JSON.stringify(object)}\n`),
};
const sender = startMailSender({
  db: database.db,
  smtpUrl: process.env.SMTP_URL,
  mailFrom: process.env.MAIL_FROM,
  logger,
  batchSize: number('MAIL_BATCH_SIZE'),
  pollMs: number('MAIL_POLL_MS'),
  sendTimeoutMs: number('MAIL_SEND_TIMEOUT_MS'),
  leaseMs: number('MAIL_LEASE_MS'),
  sweepMs: number('MAIL_SWEEP_MS'),
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void sender
    .stop()
    .then(() => database.close())
    .then(() => process.exit(0));
});
