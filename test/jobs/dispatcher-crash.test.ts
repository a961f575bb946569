/**
 * `patron dispatch` as a real child process on PostgreSQL, killed with SIGKILL in the middle of its work and
 * started again: every committed event ends up delivered or recorded failed, none is lost, none is sent twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  bodyOf,
  createEndpoint,
  until,
  writeReceiverCa,
} from '../support/webhooks.js';
import { BUILT_CLI, ROOT } from '../support/processes.js';

const PATHS = ['/crash-a', '/crash-b', '/crash-c'];
const TIMEOUT_MS = 1_000;

let t: TestApp;
let receiver: WebhookReceiver;
let tenant: Tenant;
let caFile: string;
let tempDir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestApp({ config: { webhookAllowPrivateHosts: true } });
  tenant = await t.tenant();
  tempDir = await mkdtemp(join(tmpdir(), 'patron-crash-'));
  caFile = await writeReceiverCa(receiver, tempDir);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await receiver?.close();
  await t?.close();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

function startDispatchProcess(): ChildProcess {
  const child = spawn(process.execPath, [BUILT_CLI, 'dispatch'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.testDatabase.url,
      PATRON_SECRET_KEY: t.config.secretKey,
      PATRON_DATA_DIR: tempDir,
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

let siteNumber = 0;
const createSites = (count: number) =>
  Promise.all(
    Array.from({ length: count }, async () => {
      const number = ++siteNumber;
      const response = await t.request({
        method: 'POST',
        url: '/v1/sites',
        key: tenant.key,
        body: { name: `Crash ${number}`, domain: `crash${number}.example.com` },
      });
      expect(response.statusCode).toBe(201);
    }),
  );

describe.skipIf(!process.env.DATABASE_URL)('patron dispatch killed mid-run', () => {
  it('loses nothing and sends nothing twice across a SIGKILL and a restart', { timeout: 90_000 }, async () => {
    const endpoints = await Promise.all(
      PATHS.map((path) =>
        createEndpoint(t, tenant, {
          url: `${receiver.origin}${path}`,
          events: ['site.created'],
          hmacSecret: 'crash-test-secret-0123',
        }),
      ),
    );
    // Slow enough that the kill lands with POSTs in flight.
    receiver.answer = () => ({ delayMs: 15 });
    await createSites(80);

    const first = startDispatchProcess();
    await receiver.waitFor(60, undefined, 30_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const atKill = receiver.received.length;
    const db = t.testDatabase.database.db;
    // The deliveries whose POST the dead process had started (marked `sending`): exactly these may end up failed
    // "interrupted" (never sent again), at most one per endpoint, since each endpoint has one POST in flight.
    const leftSending = await db
      .selectFrom('webhook_delivery_records')
      .select(['webhook_id', 'idempotency_key'])
      .where('organization_id', '=', tenant.organization.id)
      .where('status', '=', 'sending')
      .execute();
    expect(leftSending.length).toBeLessThanOrEqual(PATHS.length);
    // The windows the dead process had claimed hold more than those: deliveries claimed but never put on the wire.
    const claimedNotSent = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', (join) =>
        join.onRef('e.organization_id', '=', 'd.organization_id').onRef('e.id', '=', 'd.webhook_id'),
      )
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('d.organization_id', '=', tenant.organization.id)
      .where('d.status', '=', 'pending')
      .whereRef('d.sequence', '<=', 'e.dispatched_through')
      .executeTakeFirstOrThrow();
    await createSites(40);

    const second = startDispatchProcess();
    const rows = await until(async () => {
      const all = await db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', 'idempotency_key', 'status', 'error'])
        .where('organization_id', '=', tenant.organization.id)
        .execute();
      const finished = all.filter((row) => row.status === 'succeeded' || row.status === 'failed');
      return all.length === 120 * PATHS.length && finished.length === all.length && all;
    }, 45_000);
    second.kill('SIGTERM');
    expect(atKill).toBeLessThan(120 * PATHS.length);
    // The kill landed inside claimed windows (else this test proves nothing about them).
    expect(Number(claimedNotSent.count)).toBeGreaterThan(0);
    const interrupted = rows.filter((row) => row.status === 'failed');
    expect(interrupted.map((row) => row.idempotency_key).sort()).toEqual(
      leftSending.map((row) => row.idempotency_key).sort(),
    );

    for (const [index, path] of PATHS.entries()) {
      const keys = receiver.received
        .filter((request) => request.path === path)
        .map((request) => bodyOf(request).idempotencyKey);
      expect(new Set(keys).size, `${path} received a key twice`).toBe(keys.length);
      const mine = rows.filter((row) => row.webhook_id === endpoints[index]!.id);
      expect(new Set(mine.map((row) => row.idempotency_key)).size).toBe(120);
      const received = new Set(keys);
      // Never-sent: every delivery not interrupted reached the receiver; the interrupted one (at most the POST in
      // flight at the kill) may or may not have.
      for (const row of mine) {
        if (row.status === 'succeeded') expect(received.has(row.idempotency_key)).toBe(true);
        else expect(row.error).toBe('interrupted');
      }
      expect(mine.filter((row) => row.status === 'failed').length).toBeLessThanOrEqual(1);
    }
  });
});
