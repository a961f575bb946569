// Mail sending end to end (docs/journal/2026-11-28-mail-send.md): 10,000 due surveyRequest mails queued in one PostgreSQL
// database (BENCH_ADMIN_URL's server, database patron_bench_mail), a loopback SMTP receiver that accepts at once,
// and TWO mail sender processes (test/support/mail-sender-process.ts) sharing the work. Reports mails/s from the
// senders' start until the receiver has all 10,000, checks that none was received twice and that every row is
// `sent` with one attempt. The floor, in the same run: one plain nodemailer pool (as many connections as both
// senders together) sending the same 10,000 messages to the same receiver, no database.
//
//   npm run bench:mail-send        (MAIL_BENCH_COUNT, MAIL_BATCH_SIZE to vary)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { migrateToLatest, openDatabase } from '../src/db/engine.js';
import { childEnv, exitOf, ROOT } from '../test/support/processes.js';
import { ADMIN_URL, databaseUrl, log, waitForQuiet } from './support/harness.js';

const DATABASE = 'patron_bench_mail';
const COUNT = Number(process.env.MAIL_BENCH_COUNT ?? 10_000);
const BATCH_SIZE = Number(process.env.MAIL_BATCH_SIZE ?? 5);
const PROCESSES = 2;
const MAIL_FROM = 'Patron Bench <mail@bench.example.com>';

interface Receiver {
  url: string;
  ids: string[];
  close(): Promise<void>;
}

/** Accepts every message at once; keeps only its Message-ID (no parsing beyond the header line). */
async function startReceiver(): Promise<Receiver> {
  const ids: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    closeTimeout: 1_000,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const match = /^Message-ID:\s*(<[^>]+>)/im.exec(Buffer.concat(chunks).toString('utf8'));
        ids.push(match?.[1] ?? '(none)');
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    ids,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const waitFor = async (probe: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const duplicates = (ids: string[]) => ids.length - new Set(ids).size;

const body = (n: number) => ({
  subject: `How was your visit? (${n})`,
  html: `<p>Hello customer ${n},</p><p>Tell us how your last visit went: <a href="https://shop.example.com/s/${n}">survey</a>.</p>`,
  text: `Hello customer ${n},\n\nTell us how your last visit went: https://shop.example.com/s/${n}\n`,
});

async function floor(): Promise<number> {
  const receiver = await startReceiver();
  const transport = nodemailer.createTransport({
    url: receiver.url,
    pool: true,
    maxConnections: BATCH_SIZE * PROCESSES,
    maxMessages: 100,
  });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: COUNT }, (_, n) =>
      transport.sendMail({
        from: MAIL_FROM,
        to: `customer${n}@example.com`,
        messageId: `<${randomUUID()}@bench.example.com>`,
        ...body(n),
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  await receiver.close();
  if (receiver.ids.length !== COUNT || duplicates(receiver.ids) > 0) throw new Error('floor: wrong mail count');
  return COUNT / seconds;
}

async function senders(): Promise<{ rate: number; seconds: number }> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${DATABASE} with (force)`);
  await admin.query(`create database ${DATABASE}`);
  await admin.end();
  const url = databaseUrl(DATABASE);
  const database = await openDatabase({ databaseUrl: url, dataDir: '' });
  await migrateToLatest(database.db);
  const organizationId = randomUUID();
  await sql`insert into organizations (id, name, timezone) values (${organizationId}, 'Mail bench', 'UTC')`.execute(
    database.db,
  );
  // Customers not opted out, and their due survey requests (what queueMail writes, in bulk).
  await sql`insert into customers (organization_id, id, email)
    select ${organizationId}, gen_random_uuid(), 'customer' || n || '@example.com' from generate_series(0, ${COUNT - 1}) n`.execute(
    database.db,
  );
  const { subject, html, text } = body(0);
  await sql`insert into mail (organization_id, id, kind, marketing, recipient, customer_id, subject, html, text, due_at)
    select c.organization_id, gen_random_uuid(), 'surveyRequest', true, c.email, c.id, ${subject}, ${html}, ${text},
      now() - interval '1 minute'
    from customers c where c.organization_id = ${organizationId}`.execute(database.db);
  await sql`analyze mail`.execute(database.db);

  const receiver = await startReceiver();
  const children: ChildProcess[] = [];
  const started = performance.now();
  for (let i = 0; i < PROCESSES; i++) {
    children.push(
      spawn(process.execPath, ['--import', 'tsx', 'test/support/mail-sender-process.ts'], {
        cwd: ROOT,
        env: childEnv({
          DATABASE_URL: url,
          SMTP_URL: receiver.url,
          MAIL_FROM,
          MAIL_BATCH_SIZE: String(BATCH_SIZE),
          MAIL_DB_POOL_SIZE: '4',
        }),
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
  }
  // From the processes' start (their start-up included) until the receiver has every mail.
  await waitFor(() => receiver.ids.length >= COUNT, 300_000);
  const seconds = (performance.now() - started) / 1000;
  // Every outcome recorded: all `sent`, one attempt each.
  const deadline = Date.now() + 30_000;
  let rows: { status: string; attempts: number; count: string }[] = [];
  while (Date.now() < deadline) {
    ({ rows } = await sql<{ status: string; attempts: number; count: string }>`
      select status, attempts, count(*) from mail group by status, attempts`.execute(database.db));
    if (rows.length === 1 && rows[0]!.status === 'sent') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => exitOf(child)));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await receiver.close();
  await database.close();
  log(`  mail rows: ${JSON.stringify(rows)}`);
  if (!(rows.length === 1 && rows[0]!.status === 'sent' && rows[0]!.attempts === 1 && Number(rows[0]!.count) === COUNT))
    throw new Error('not every mail was recorded sent with one attempt');
  if (receiver.ids.length !== COUNT) throw new Error(`received ${receiver.ids.length} mails, expected ${COUNT}`);
  if (duplicates(receiver.ids) > 0) throw new Error(`${duplicates(receiver.ids)} mails received twice`);
  return { rate: COUNT / seconds, seconds };
}

await waitForQuiet('mail-send');
const floorRate = await floor();
log(`floor: one nodemailer pool, ${BATCH_SIZE * PROCESSES} connections, no database: ${Math.round(floorRate)} mails/s`);
const { rate, seconds } = await senders();
log(
  `senders: ${PROCESSES} processes, batch ${BATCH_SIZE}: ${COUNT} mails in ${seconds.toFixed(1)} s = ${Math.round(rate)} mails/s, ` +
    `none twice, all recorded sent`,
);
process.stdout.write(
  `RESULT mail-send count=${COUNT} processes=${PROCESSES} batch=${BATCH_SIZE} mails_per_s=${Math.round(rate)} ` +
    `floor_mails_per_s=${Math.round(floorRate)} ratio=${(rate / floorRate).toFixed(2)}\n`,
);
