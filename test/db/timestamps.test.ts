import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTimestamptz, TIMESTAMPTZ_OID } from '../../src/db/timestamps.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

/**
 * Instants whose text has every fraction length, the ends of the fast path's years, and a leap day. (PGlite's own
 * parser reads years before 100 as 19xx; the API refuses such dates anyway.)
 */
const INSTANTS = [
  '2026-11-28T13:25:06.000Z',
  '2026-11-28T13:25:06.100Z',
  '2026-11-28T13:25:06.120Z',
  '2026-11-28T13:25:06.123Z',
  '2024-02-29T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '0100-03-01T00:00:00.000Z',
  '9999-12-30T23:59:59.999Z',
  '2000-01-01T00:00:00.001Z',
];

describe('timestamps read from the database', () => {
  it('are the instants written, whatever the fraction, in a UTC session and in another zone', async () => {
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
      await test.database.db.connection().execute(async (connection) => {
        await sql`select set_config('TimeZone', ${zone}, false)`.execute(connection);
        try {
          // Before 1900 most zones were on local mean time, an offset with seconds PGlite's parser cannot read.
          for (const iso of INSTANTS.filter((instant) => zone === 'UTC' || instant >= '1900')) {
            // Six fractional digits too: the microseconds are dropped, as Date keeps milliseconds.
            const micro = iso.replace('Z', '456Z');
            const { rows } = await sql<{ at: Date; micro: Date; text: string }>`select ${iso}::timestamptz as at,
              ${micro}::timestamptz as micro, ${iso}::timestamptz::text as text`.execute(connection);
            expect({ zone, text: rows[0]!.text, at: rows[0]!.at.toISOString() }).toEqual({
              zone,
              text: rows[0]!.text,
              at: iso,
            });
            expect(rows[0]!.micro.toISOString()).toBe(iso);
          }
        } finally {
          await sql`select set_config('TimeZone', 'UTC', false)`.execute(connection);
        }
      });
    }
  });

  it('agree with pg’s own parser on every form PostgreSQL writes, fast path or not', () => {
    const slow = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date | number;
    const texts = [
      '2026-11-28 13:25:06+00',
      '2026-11-28 13:25:06.1+00',
      '2026-11-28 13:25:06.12+00',
      '2026-11-28 13:25:06.123+00',
      '2026-11-28 13:25:06.1234+00',
      '2026-11-28 13:25:06.123456+00',
      '2026-11-28 18:55:06.123456+05:30',
      '2026-11-28 09:55:06.5-03:30',
      '2026-11-28 14:25:06+01',
      '0099-12-31 23:59:59+00',
      '0001-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      '12026-11-28 13:25:06+00',
      'infinity',
      '-infinity',
    ];
    for (const text of texts) {
      const expected = slow(text);
      const actual = parseTimestamptz(text);
      expect({ text, time: actual instanceof Date ? actual.getTime() : actual }).toEqual({
        text,
        time: expected instanceof Date ? expected.getTime() : expected,
      });
    }
  });
});
