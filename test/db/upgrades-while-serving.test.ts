import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARE } from '../../src/db/prepared.js';
import { postgresUrl } from '../support/database.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

// A migration that adds a column while processes serve (a rolling deploy: the new version migrates, the old one still
// answers) makes PostgreSQL refuse every statement those processes prepared as `select *` over the table
// ("cached plan must not change result type"). docs/api.md#upgrades-while-serving: such a statement is prepared
// again, and no request fails for it. On PGlite nothing is prepared by name, so the same steps simply pass.

let testApp: TestApp;
let tenant: Tenant;
const db = () => testApp.testDatabase.database.db;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant({ name: 'Upgrade store' });
});
afterAll(() => testApp.close());

/**
 * Runs `work` a few more times at once than the pool has connections: the pool opens all of them, and each prepares
 * what it runs.
 */
async function onEveryConnection(work: () => Promise<unknown>): Promise<void> {
  await Promise.all(Array.from({ length: 12 }, work));
}

describe('a migration that changes a table under a serving process', () => {
  it('leaves the requests reading that table answering as before', async () => {
    const read = () => testApp.request({ url: '/v1/organization', key: tenant.key });
    await onEveryConnection(async () => expect((await read()).statusCode).toBe(200));
    const before = (await read()).json();

    await sql`alter table organizations add column upgrade_probe integer`.execute(db());

    const answers = await Promise.all(Array.from({ length: 12 }, read));
    expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
    expect(answers.map((answer) => answer.json())).toEqual(answers.map(() => before));
    // And again, now that every connection has prepared the statement afresh.
    expect((await read()).json()).toEqual(before);
  });

  it.skipIf(!postgresUrl)('runs a transaction again when the stale statement was inside it', async () => {
    await sql`create table upgrade_probe_rows (id integer primary key, label text not null)`.execute(db());
    await sql`insert into upgrade_probe_rows values (1, 'one')`.execute(db());
    const readInTransaction = () =>
      db()
        .transaction()
        .execute(async (trx) => {
          runs += 1;
          const { rows } = await sql<{
            id: number;
          }>`${PREPARE}select * from upgrade_probe_rows where id = ${1}`.execute(trx);
          return rows;
        });
    let runs = 0;
    await onEveryConnection(readInTransaction);
    const { rows: prepared } = await sql<{ count: number }>`
      select count(*)::int as count from pg_prepared_statements where statement like '%upgrade_probe_rows%'`.execute(
      db(),
    );
    expect(prepared[0]!.count).toBe(1);

    await sql`alter table upgrade_probe_rows add column added integer`.execute(db());
    runs = 0;
    const results = await Promise.all(Array.from({ length: 12 }, readInTransaction));
    expect(results).toEqual(results.map(() => [{ id: 1, label: 'one', added: null }]));
    // Some connections had the stale statement: their transaction ran twice, and no more.
    expect(runs).toBeGreaterThan(12);
    expect(runs).toBeLessThanOrEqual(24);
  });
});
