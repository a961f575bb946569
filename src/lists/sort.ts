import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../core/errors.js';
import type { CursorPosition, ListDefinition, Sort } from './types.js';

export function parseSort(definition: ListDefinition, raw: string | undefined, path = 'query.sort'): Sort {
  const key = raw ?? definition.defaultSort;
  const descending = key.startsWith('-');
  const def = definition.sorts[descending ? key.slice(1) : key];
  if (!def) {
    const allowed = Object.keys(definition.sorts).flatMap((name) => [name, `-${name}`]);
    throw validationError(`Cannot sort ${definition.name} by "${key}"; use one of ${allowed.join(', ')}.`, [
      { path, message: `must be one of ${allowed.join(', ')}` },
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
  if (sort.def.zeroWhenAbsent) return sql`coalesce(${column}, 0)`;
  return sort.def.type === 'timestamp'
    ? sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : column;
}

/** One index range of a page: its condition and its order. */
export interface Segment {
  where: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>;
}

const castOf = (sort: Sort) => sql.raw({ timestamp: 'timestamptz', string: 'text', integer: 'bigint' }[sort.def.type]);

/**
 * The rows after a cursor position (or from the start) in page order, as index ranges to read one after the other
 * until the page is full. Ties break on id in the sort's direction; nulls come last in both directions
 * (docs/api.md#page-size-and-sort-order).
 *
 * A nullable column is two ranges, its values and then its nulls, rather than one condition: `(col, id) > (v, id)
 * or col is null` is no index range, so a page deep in the list would read every row before it. Each range is
 * ordered without `nulls last`, which also lets `desc` run an ascending index backward.
 */
export function segments(sort: Sort, idColumn: string, position: CursorPosition | null): Segment[] {
  if (sort.def.zeroWhenAbsent) return countSegments(sort, idColumn, position);
  const column = sql.raw(sort.def.column);
  const idRef = sql.raw(idColumn);
  const direction = sql.raw(sort.descending ? 'desc' : 'asc');
  const after = sql.raw(sort.descending ? '<' : '>');
  // A sort on the id itself (time-ordered UUID v7 ids, docs/api.md#identifiers): one range of the id alone, which an
  // index ending in the id walks; `(id, id) < (v, id)` would be no index condition at all.
  if (sort.def.column === idColumn)
    return [
      {
        where: position ? sql`${idRef} ${after} ${position.id}::uuid` : sql`true`,
        orderBy: sql`${idRef} ${direction}`,
      },
    ];
  // Within the nulls the column is constant: ordering by it anyway keeps the planner on the sort's index.
  const orderBy = sql`${column} ${direction}, ${idRef} ${direction}`;
  if (position?.value === null)
    return [{ where: sql`${column} is null and ${idRef} ${after} ${position.id}::uuid`, orderBy }];
  // A row comparison is never true on a null, so this range does not reach a nullable column's nulls.
  const afterValue = position
    ? sql`(${column}, ${idRef}) ${after} (${position.value}::${castOf(sort)}, ${position.id}::uuid)`
    : null;
  if (!sort.def.nullable) return [{ where: afterValue ?? sql`true`, orderBy }];
  return [
    { where: afterValue ?? sql`${column} is not null`, orderBy },
    { where: sql`${column} is null`, orderBy },
  ];
}

/**
 * A count that is 0 where its row is absent (SortDef.zeroWhenAbsent): the counted rows (count ≥ 1) and the others
 * (count 0, ordered by id alone) as two ranges, the others last when descending and first when ascending. A cursor
 * holds 0 for a row of the others, so it tells which range the page ended in. Each range is an index walk. The
 * counted rows are ordered and compared on the count table's own columns, so the row comparison is a condition of its
 * index (on the list's id it would be a filter after the join, reading every row before the page); testing its id
 * column for null lets PostgreSQL read the left join as a join there, and as an anti-join walked along the list's
 * primary key for the others.
 */
function countSegments(sort: Sort, idColumn: string, position: CursorPosition | null): Segment[] {
  const column = sql.raw(sort.def.column);
  const countedId = sql.raw(sort.def.zeroWhenAbsent!.idColumn);
  const idRef = sql.raw(idColumn);
  const direction = sql.raw(sort.descending ? 'desc' : 'asc');
  const after = sql.raw(sort.descending ? '<' : '>');
  const value = position === null ? null : Number(position.value);
  const counted: Segment = {
    where:
      value !== null && value > 0
        ? sql`${countedId} is not null and (${column}, ${countedId}) ${after} (${value}::bigint, ${position!.id}::uuid)`
        : sql`${countedId} is not null`,
    orderBy: sql`${column} ${direction}, ${countedId} ${direction}`,
  };
  const uncounted: Segment = {
    where:
      value === 0 ? sql`${countedId} is null and ${idRef} ${after} ${position!.id}::uuid` : sql`${countedId} is null`,
    orderBy: sql`${idRef} ${direction}`,
  };
  if (sort.descending) return value === 0 ? [uncounted] : [counted, uncounted];
  return value !== null && value > 0 ? [counted] : [uncounted, counted];
}
