import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARE, prepared, preparedForIds, STATEMENTS_PER_CONNECTION } from '../../src/db/prepared.js';
import { createKey } from '../../src/auth/keys.js';
import { createOrganization } from '../../src/resources/organization/service.js';
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

  it.skipIf(!postgresUrl)(
    'compiled once, run inside the transaction they are given, and outside one on a pooled connection of their own',
    async () => {
      const findName = prepared(
        (db, id: string) => db.selectFrom('organizations').select('name').where('id', '=', id),
        ['organization-id'],
      );
      const organization = await createOrganization(db(), { name: 'Before' });
      await db()
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('organizations').set({ name: 'Inside' }).where('id', '=', organization.id).execute();
          expect(await findName(trx, organization.id)).toEqual([{ name: 'Inside' }]);
          // On the database handle the statement takes a connection of its own: the change is not committed yet.
          expect(await findName(db(), organization.id)).toEqual([{ name: 'Before' }]);
        });
      expect(await findName(db(), organization.id)).toEqual([{ name: 'Inside' }]);
    },
  );

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

  it('give the same typed rows on every run on one connection as the statement unmarked', async () => {
    // After its first run on a connection a prepared statement is sent without asking the server to describe its
    // rows again: later runs reuse the column names and parsers of the first, so they must read every type alike.
    const row = (marker: typeof PREPARE | ReturnType<typeof sql.raw>, value: number) =>
      sql<Record<string, unknown>>`${marker}select ${value}::int as count, ${value}::bigint * 1000000000000 as big,
        ${`label ${value}`}::text as label, ${value % 2 === 0}::boolean as even, null::text as nothing,
        ('2026-11-29T12:00:00Z'::timestamptz + make_interval(secs => ${value})) as at,
        array[${value}::text, 'b'] as tags, jsonb_build_object('value', ${value}::int) as doc
        where ${value}::int >= 0`;
    await db()
      .connection()
      .execute(async (connection) => {
        for (const value of [1, 2, 3, -1, 4]) {
          const marked = await row(PREPARE, value).execute(connection);
          const unmarked = await row(sql.raw(''), value).execute(connection);
          expect(marked.rows).toEqual(unmarked.rows);
          expect(marked.rows).toHaveLength(value >= 0 ? 1 : 0);
        }
        const [last] = (await row(PREPARE, 4).execute(connection)).rows;
        expect(last).toEqual({
          count: 4,
          big: 4000000000000,
          label: 'label 4',
          even: true,
          nothing: null,
          at: new Date('2026-11-29T12:00:04Z'),
          tags: ['4', 'b'],
          doc: { value: 4 },
        });
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

  it.skipIf(!postgresUrl)(
    'over a list of ids (preparedForIds) keep their generic plan on short lists instead of being planned every time',
    async () => {
      const organization = await createOrganization(db(), { name: 'Plans' });
      const keyIds: string[] = [];
      for (let i = 0; i < 2; i++) {
        keyIds.push((await createKey(db(), { organizationId: organization.id, permissions: ['all'] })).record.id);
      }
      // Enough rows, with statistics, that a plan made for two ids costs less than the generic plan's guess of ten:
      // the case where, written as any($n::uuid[]), the statement was planned again on every execution.
      await sql`insert into api_keys (organization_id, id, prefix, key_hash, permissions)
        select ${organization.id}::uuid, gen_random_uuid(), 'sk_plans', md5(n::text), '{all}'
        from generate_series(1, 20000) n`.execute(db());
      await sql`analyze api_keys`.execute(db());
      // The shape of an include's loader: the page's rows joined to the records they point at.
      const keysOfPage = preparedForIds((database, organizationId, ids) =>
        database
          .selectFrom('api_keys as k')
          .innerJoin('organizations as o', 'o.id', 'k.organization_id')
          .select(['k.id', 'o.name'])
          .where('k.organization_id', '=', organizationId)
          .where('k.id', '=', ids),
      );
      await db()
        .connection()
        .execute(async (connection) => {
          // PostgreSQL makes a plan for the values of each of the first five executions, then compares.
          for (let execution = 0; execution < 8; execution++) {
            const rows = await keysOfPage(connection, organization.id, keyIds);
            expect(rows.map((row) => row.id).sort()).toEqual([...keyIds].sort());
          }
          const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
            select generic_plans::int, custom_plans::int from pg_prepared_statements
            where statement like '%"api_keys" as "k"%'`.execute(connection);
          expect(rows).toHaveLength(1);
          expect(rows[0]!.generic_plans).toBeGreaterThanOrEqual(3);
        });
    },
  );
});
