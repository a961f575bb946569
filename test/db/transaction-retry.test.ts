/**
 * src/db/retry.ts on PostgreSQL: a transaction PostgreSQL picks as a deadlock victim runs again, so both writers
 * succeed; any other error is not retried.
 */
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';

let test: TestDatabase;
const db = () => test.database.db;

beforeAll(async () => {
  if (!postgresUrl) return;
  test = await createTestDatabase();
  await sql`create table retry_probe (id int primary key, n int not null)`.execute(db());
  await sql`insert into retry_probe values (1, 0), (2, 0)`.execute(db());
});
afterAll(() => test?.drop());

/** Resolves when `count` parties have arrived. */
function barrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    arrived += 1;
    if (arrived === count) open();
    return opened;
  };
}

describe.skipIf(!postgresUrl)('transactions on PostgreSQL', () => {
  it('run again when PostgreSQL aborts one as a deadlock victim, so both writers succeed', async () => {
    const bothHoldOneRow = barrier(2);
    const runs = { forward: 0, backward: 0 };
    // Each locks one row, waits until the other holds the other row, then wants it: a deadlock on the first run.
    const writer = (name: keyof typeof runs, first: number, second: number) => async (trx: Transaction<DB>) => {
      runs[name] += 1;
      await sql`update retry_probe set n = n + 1 where id = ${first}`.execute(trx);
      if (runs[name] === 1) await bothHoldOneRow();
      await sql`update retry_probe set n = n + 1 where id = ${second}`.execute(trx);
      return name;
    };
    const results = await Promise.all([
      db()
        .transaction()
        .execute(writer('forward', 1, 2)),
      // A builder with settings keeps retrying.
      db()
        .transaction()
        .setIsolationLevel('read committed')
        .execute(writer('backward', 2, 1)),
    ]);
    expect(results).toEqual(['forward', 'backward']);
    // At least one run again; on a busy machine the victim's second run can take its first row before the other
    // writer wakes up, and deadlock once more (each victim runs again, up to five times).
    expect(runs.forward + runs.backward).toBeGreaterThanOrEqual(3);
    const { rows } = await sql<{ id: number; n: number }>`select id, n from retry_probe order by id`.execute(db());
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('do not run again for any other error', async () => {
    let runs = 0;
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          runs += 1;
          await sql`insert into retry_probe values (1, 0)`.execute(trx);
        }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
  });
});
