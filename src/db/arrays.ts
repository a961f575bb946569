import { sql, type RawBuilder } from 'kysely';

/*
 * Bulk statements send thousands of values per column. The drivers encode a JavaScript array parameter by quoting
 * and regex-escaping every element, which costs more CPU than PostgreSQL spends parsing them; these build the
 * parameter text directly where the values need no escaping, or let PostgreSQL split one JSON text.
 */

/**
 * An array parameter as its literal. Only for values that cannot contain a quote, comma, brace, backslash or space
 * and are never null or the word NULL: uuids from this service or the database, integers, and the names of the
 * event catalog.
 */
export const plainArrayLiteral = (values: readonly (string | number)[]): string => `{${values.join(',')}}`;

/** As plainArrayLiteral, for uuids from this service or the database some of which are null (written NULL). */
export const nullableUuidArrayLiteral = (values: readonly (string | null)[]): string =>
  `{${values.map((value) => value ?? 'NULL').join(',')}}`;

/** A json[] expression from already serialized JSON texts: one JSON array parameter, split by PostgreSQL. */
export const jsonArrayOf = (texts: readonly string[]): RawBuilder<unknown[]> =>
  sql`array(select json_array_elements(${`[${texts.join(',')}]`}::json))`;
