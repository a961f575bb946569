import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARE, STATEMENTS_PER_CONNECTION } from '../../src/db/prepared.js';
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

  it.skipIf(!postgresUrl)(
    'are kept at most STATEMENTS_PER_CONNECTION per connection, the least recently used deallocated, and still run after',
    async () => {
      await db()
        .connection()
        .execute(async (connection) => {
          const run = async (shape: number, value: number) => {
            const { rows } = await sql<{
              answer: number;
            }>`${PREPARE}select ${value}::int + ${sql.raw(String(shape))} as answer`.execute(connection);
            return rows[0]!.answer;
          };
          // The first shape is used again half way, so the least recently used is the second one, not the first.
          const shapes = STATEMENTS_PER_CONNECTION + 20;
          for (let shape = 0; shape < shapes; shape++) {
            expect(await run(shape, 1)).toBe(shape + 1);
            if (shape === STATEMENTS_PER_CONNECTION / 2) expect(await run(0, 2)).toBe(2);
          }
          const prepared = async () => {
            const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
              connection,
            );
            return rows.map((row) => row.statement).filter((statement) => statement.includes(' as answer'));
          };
          const kept = await prepared();
          expect(kept.length).toBeLessThanOrEqual(STATEMENTS_PER_CONNECTION);
          expect(kept.length).toBeGreaterThan(STATEMENTS_PER_CONNECTION - 30);
          expect(kept).toContain('/* prepared */ select $1::int + 0 as answer');
          expect(kept).not.toContain('/* prepared */ select $1::int + 1 as answer');
          // A deallocated statement is prepared again when it comes back.
          expect(await run(1, 5)).toBe(6);
          expect(await prepared()).toContain('/* prepared */ select $1::int + 1 as answer');
          expect((await prepared()).length).toBeLessThanOrEqual(STATEMENTS_PER_CONNECTION);
        });
    },
  );
});
