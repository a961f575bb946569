import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptzSlowly = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date | number;

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const digits = (text: string, from: number, to: number) => {
  let value = 0;
  for (let at = from; at < to; at++) value = value * 10 + digit(text, at);
  return value;
};

/**
 * A timestamptz as PostgreSQL writes it in a UTC session ('2026-11-28 13:25:06.123456+00', the fraction optional
 * and 1–6 digits), read straight into a Date; any other form (another zone's offset, years past 9999, BC,
 * ±infinity) goes to pg's own parser. A list page reads several timestamps per record, and pg's regex-based parser
 * cost more than assembling the record (docs/journal/2026-11-28-node-cpu-per-page-gc-stalls.md).
 * Sub-millisecond digits are dropped, as pg's parser and Date do.
 */
export function parseTimestamptz(text: string): Date | number {
  const length = text.length;
  if (
    length >= 22 &&
    length <= 29 &&
    text.charCodeAt(4) === 45 && // '-'
    text.charCodeAt(10) === 32 && // ' '
    text.charCodeAt(length - 3) === 43 && // '+'
    text.charCodeAt(length - 2) === 48 && // '0'
    text.charCodeAt(length - 1) === 48 &&
    (length === 22 || text.charCodeAt(19) === 46) // '.'
  ) {
    let milliseconds = 0;
    if (length > 22) {
      const fraction = length - 23; // digits after the point
      milliseconds = digits(text, 20, 20 + Math.min(fraction, 3));
      if (fraction === 1) milliseconds *= 100;
      else if (fraction === 2) milliseconds *= 10;
    }
    const year = digits(text, 0, 4);
    const time = Date.UTC(
      year,
      digits(text, 5, 7) - 1,
      digits(text, 8, 10),
      digits(text, 11, 13),
      digits(text, 14, 16),
      digits(text, 17, 19),
      milliseconds,
    );
    // Date.UTC reads years 0–99 as 1900–1999; those (and anything malformed) take the careful path.
    if (year >= 100 && Number.isFinite(time)) return new Date(time);
  }
  return parseTimestamptzSlowly(text);
}

export { TIMESTAMPTZ_OID };
