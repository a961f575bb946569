import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARE } from '../../src/db/prepared.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

const db = () => test.database.db;

describe('statements marked PREPARE', () => {
  it('run with their parameters on either engine', async () => {
    for (const value of [1, 2, 3]) {
      const { rows } = await sql<{ doubled: number }>`${PREPARE}select ${value}::int * 2 as doubled`.execute(db());
      expect(rows).toEqual([{ doubled: value * 2 }]);
    }
  });

  it.skipIf(!postgresUrl)('are prepared once per PostgreSQL connection, and unmarked ones are not', async () => {
    await db()
      .connection()
      .execute(async (connection) => {
        for (const value of [1, 2, 3]) await sql`${PREPARE}select ${value}::int + 40 as answer`.execute(connection);
        await sql`select ${5}::int + 40 as unmarked`.execute(connection);
        const { rows } = await sql<{
          statement: string;
        }>`select statement from pg_prepared_statements order by prepare_time`.execute(connection);
        const statements = rows.map((row) => row.statement);
        expect(statements.filter((statement) => statement.includes('as answer'))).toEqual([
          '/* prepared */ select $1::int + 40 as answer',
        ]);
        expect(statements.some((statement) => statement.includes('unmarked'))).toBe(false);
      });
  });
});
