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

/**
 * `p.id as p_id, p.slug as p_slug, …`: a joined record's column list under its table alias, each column renamed with
 * the alias as a prefix, so that records whose columns share names (id, slug, metadata…) fit in one SELECT list.
 * `joinedRecord` reads one back out of a result row. Column names and aliases are constants of the code, never input.
 */
export const prefixedColumnList = (columns: readonly string[], alias: string): RawBuilder<unknown> =>
  sql.raw(columns.map((column) => `${alias}.${column} as ${alias}_${column}`).join(', '));

/** A LEFT JOINed record's columns as prefixedColumnList names them: each is null when the join found nothing. */
export type LeftJoined<Alias extends string, Fields> = {
  [Column in keyof Fields & string as `${Alias}_${Column}`]: Fields[Column] | null;
};

/**
 * The record a LEFT JOIN found under `alias` (selected with prefixedColumnList(columns, alias)), or null when it
 * found none: a record's id is never null, so a null id means no row.
 */
export function joinedRecord<Fields extends { id: string }>(
  row: Readonly<Record<string, unknown>>,
  alias: string,
  columns: readonly (keyof Fields & string)[],
): Fields | null {
  const names = prefixedNames(columns, alias);
  if (row[names.id] === null) return null;
  const record: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) record[columns[i]!] = row[names.prefixed[i]!];
  return record as Fields;
}

// An include reads every joined row through joinedRecord (150 items of a page of orders, each with its product and
// variant), so the prefixed names are built once per column list and alias, not once per row and column.
const prefixedNamesOf = new WeakMap<readonly string[], Map<string, { id: string; prefixed: string[] }>>();
function prefixedNames(columns: readonly string[], alias: string): { id: string; prefixed: string[] } {
  let byAlias = prefixedNamesOf.get(columns);
  if (!byAlias) prefixedNamesOf.set(columns, (byAlias = new Map()));
  let names = byAlias.get(alias);
  if (!names) {
    names = { id: `${alias}_id`, prefixed: columns.map((column) => `${alias}_${column}`) };
    byAlias.set(alias, names);
  }
  return names;
}
