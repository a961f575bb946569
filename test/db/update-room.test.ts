import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

describe('tables rewritten by every earning', () => {
  it('keep a fifth of each page free, so a balance or stamp update stays on its page and out of the indexes', async () => {
    const { rows } = await sql<{ table: string; options: string[] | null }>`
      select relname as table, reloptions as options from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and relname in ('loyalty_memberships', 'stamp_cards') order by relname`.execute(
      test.database.db,
    );
    expect(rows).toEqual([
      { table: 'loyalty_memberships', options: ['fillfactor=80'] },
      { table: 'stamp_cards', options: ['fillfactor=80'] },
    ]);
  });
});
