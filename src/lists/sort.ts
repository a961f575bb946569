import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../http/errors.js';
import type { ListDefinition, SortDef } from './types.js';

export interface Sort {
  /** As the caller wrote it, e.g. "-createdAt". */
  key: string;
  def: SortDef;
  descending: boolean;
}

export function parseSort(definition: ListDefinition, raw: string | undefined): Sort {
  const key = raw ?? definition.defaultSort;
  const descending = key.startsWith('-');
  const def = definition.sorts[descending ? key.slice(1) : key];
  if (!def) {
    const allowed = Object.keys(definition.sorts).flatMap((name) => [name, `-${name}`]);
    throw validationError(`Cannot sort ${definition.name} by "${key}"; use one of ${allowed.join(', ')}.`, [
      { path: 'query.sort', message: `must be one of ${allowed.join(', ')}` },
    ]);
  }
  return { key, def, descending };
}

/**
 * The sort value as the cursor stores it. Timestamps are rendered with microseconds, the database's own
 * precision, so rows that differ by less than a millisecond are neither skipped nor repeated.
 */
export function sortValueExpression(sort: Sort): RawBuilder<unknown> {
  const column = sql.raw(sort.def.column);
  return sort.def.type === 'timestamp'
    ? sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : column;
}

/**
 * Nulls last in both directions; ties break on id in the sort's direction (D8). `nulls last` is only written
 * for nullable columns: on a NOT NULL column it changes nothing, but `desc nulls last` no longer matches a
 * backward scan of an ascending index, and PostgreSQL would sort the whole organization on every page.
 */
export function orderBy(sort: Sort, idColumn: string): RawBuilder<unknown> {
  const direction = sql.raw(sort.descending ? 'desc' : 'asc');
  const nulls = sql.raw(sort.def.nullable ? ' nulls last' : '');
  return sql`${sql.raw(sort.def.column)} ${direction}${nulls}, ${sql.raw(idColumn)} ${direction}`;
}

const castOf = (sort: Sort) => sql.raw({ timestamp: 'timestamptz', string: 'text', integer: 'bigint' }[sort.def.type]);

/** Rows strictly after (value, id) in the page order. */
export function keysetCondition(sort: Sort, idColumn: string, value: string | number | null, id: string): RawBuilder<unknown> {
  const column = sql.raw(sort.def.column);
  const idRef = sql.raw(idColumn);
  const after = sql.raw(sort.descending ? '<' : '>');
  if (value === null) return sql`(${column} is null and ${idRef} ${after} ${id}::uuid)`;
  const tuple = sql`(${column}, ${idRef}) ${after} (${value}::${castOf(sort)}, ${id}::uuid)`;
  return sort.def.nullable ? sql`(${tuple} or ${column} is null)` : tuple;
}
