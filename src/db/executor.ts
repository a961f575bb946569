import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from './schema.js';

/** What a query runs on: the database, or a transaction of it. Every query function takes one. */
export type Executor = Kysely<DB> | Transaction<DB>;

/**
 * `a.id, a.name, …`: a record's column list (checked against the table by its record file) for a SELECT or
 * RETURNING list, optionally under a table alias. Column names and aliases are constants of the code, never input.
 */
export const columnList = (columns: readonly string[], alias?: string): RawBuilder<unknown> =>
  sql.raw(columns.map((column) => (alias ? `${alias}.${column}` : column)).join(', '));
