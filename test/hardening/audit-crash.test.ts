/**
 * The audit log survives a crash (docs/api.md#audit-log): `patron serve` as a real process on PostgreSQL, SIGKILLed
 * during a stream of writes (product edits in a transaction, webhook endpoints made by a create). Afterwards every
 * changed record has its entry, and no entry answering 2xx lacks its change: a change and its entry commit together.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTenant } from '../support/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';
import { call, killAll, startServe } from './processes.js';

const PRODUCTS = 300;

let testDatabase: TestDatabase;
let tempDir: string;
const db = () => testDatabase.database.db;

beforeAll(async () => {
  if (!postgresUrl) return;
  testDatabase = await createTestDatabase();
  tempDir = await mkdtemp(join(tmpdir(), 'patron-audit-crash-'));
});

afterAll(async () => {
  await killAll();
  await testDatabase?.drop();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

describe.skipIf(!postgresUrl)('the audit log when the server is killed', () => {
  it('keeps, for every changed record, its entry, and no 2xx entry without its change', async () => {
    const { organization, key } = await createTenant(db(), { name: 'Audit crash', apiRequestsPerMinute: 1_000_000 });
    const env = {
      DATABASE_URL: testDatabase.url,
      PATRON_DATA_DIR: tempDir,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
      LOG_LEVEL: 'warn',
    };
    const server = await startServe(env);
    const rows = Array.from({ length: PRODUCTS }, (_, i) => ({
      title: `Crash ${i}`,
      slug: `crash-${i}`,
      url: `https://shop.example/crash-${i}`,
    }));
    const imported = await call(server.baseUrl, key, 'POST', '/v1/products/import', { data: rows });
    expect(imported.status).toBe(200);
    const productIds: string[] = imported.body.data.map((product: { id: string }) => product.id);

    // One request per record, each with its own request id: an edit of product i, or a new endpoint named i.
    const request = (i: number) =>
      fetch(`${server.baseUrl}${i % 3 === 2 ? '/v1/webhooks' : `/v1/products/${productIds[i]}`}`, {
        method: i % 3 === 2 ? 'POST' : 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': `crash-${i}` },
        body: JSON.stringify(
          i % 3 === 2
            ? { data: { url: `https://127.0.0.1/crash-${i}`, events: ['order.updated'] } }
            : { notes: `crash-${i}` },
        ),
      })
        .then((response) => response.status)
        .catch(() => 0);
    let answered = 0;
    const inFlight = new Set<Promise<number>>();
    const stream = (async () => {
      for (let i = 0; i < PRODUCTS; i++) {
        const sent = request(i).then((status) => {
          if (status) answered++;
          return status;
        });
        inFlight.add(sent);
        void sent.finally(() => inFlight.delete(sent));
        // Eight at a time, so that some are in their transaction when the kill lands.
        if (inFlight.size >= 8) await Promise.race(inFlight);
      }
    })();
    await vi.waitFor(
      () => {
        if (answered < PRODUCTS / 3) throw new Error(`${answered} answered`);
      },
      { timeout: 60_000, interval: 5 },
    );
    await server.stop('SIGKILL');
    await stream;
    expect(answered).toBeLessThan(PRODUCTS);

    const { rows: entries } = await sql<{ request_id: string; status: number }>`
      select request_id, status from audit_log where organization_id = ${organization.id}::uuid
        and request_id like 'crash-%'`.execute(db());
    const entryOf = new Map(entries.map((entry) => [entry.request_id, entry.status]));
    const { rows: edited } = await sql<{ notes: string }>`
      select notes from products where organization_id = ${organization.id}::uuid and notes like 'crash-%'`.execute(
      db(),
    );
    const { rows: made } = await sql<{ url: string }>`
      select url from webhook_endpoints where organization_id = ${organization.id}::uuid`.execute(db());
    const changed = new Set([
      ...edited.map((row) => row.notes),
      ...made.map((row) => row.url.replace('https://127.0.0.1/', '')),
    ]);
    expect(changed.size).toBeGreaterThan(0);
    for (const requestId of changed) expect(entryOf.has(requestId), `entry of ${requestId}`).toBe(true);
    for (const [requestId, status] of entryOf) {
      if (status >= 200 && status < 300) expect(changed.has(requestId), `change of ${requestId}`).toBe(true);
    }
    // Some requests were cut off: their records are unchanged and they have no entry.
    expect(changed.size).toBeLessThan(PRODUCTS);
  });
});
