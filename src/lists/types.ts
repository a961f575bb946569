import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../db/schema.js';

/** The value types a filter checks its operands against (docs/api.md#filter-documents). */
export type ValueType = 'uuid' | 'string' | 'integer' | 'boolean' | 'timestamp' | 'enum';

/**
 * A filterable field. `column` is trusted SQL written in code (e.g. `o.total_cents`); user input only ever picks a
 * field by name from the registry and supplies parameter values.
 */
export interface FieldDef {
  type: ValueType | 'metadata';
  column: string;
  enumValues?: readonly string[];
  /** A to-one join (by name in ListDefinition.joins) the column needs, e.g. `customer`. */
  join?: string;
  /** A to-many relation (by name in ListDefinition.relations): matches when ANY related row matches. */
  many?: string;
}

export interface SortDef {
  column: string;
  type: 'timestamp' | 'string' | 'integer';
  nullable: boolean;
  join?: string;
  /**
   * A count kept in a table of its own, reached through `join` (a left join), which holds a row only while the count
   * is above 0: a record without a row counts 0, the lowest value. The sort is read as two index ranges, the counted
   * records through the count table's (organization_id, count, record id) index and the others through the list's
   * primary key (see countSegments in sort.ts). `column` names the count; `idColumn` the count table's column holding
   * the record's id (null exactly where the record has no row). The sort is not nullable.
   */
  zeroWhenAbsent?: { idColumn: string };
}

/** A to-many relation, filtered with EXISTS (select 1 from <from> where <correlate> and …). */
export interface RelationDef {
  from: string;
  correlate: string;
}

export interface IncludeContext {
  db: Kysely<DB>;
  organizationId: string;
}

/** Loads one extra for a whole page in one query; returns the value per record id. */
export type IncludeLoader = (context: IncludeContext, ids: readonly string[]) => Promise<Map<string, unknown>>;

export interface IncludeDef {
  load: IncludeLoader;
  /** What a record without a loaded value gets (0 for counts, [] for lists, null for objects). */
  empty: () => unknown;
}

export interface ListDefinition {
  /** Used in messages, e.g. "orders". */
  name: string;
  /** Base table with its alias, e.g. `orders o`. */
  from: string;
  alias: string;
  /** Columns selected for a page, e.g. `o.*`. */
  select: string;
  joins: Record<string, string>;
  relations: Record<string, RelationDef>;
  fields: Record<string, FieldDef>;
  sorts: Record<string, SortDef>;
  defaultSort: string;
  /**
   * Builds the search condition from a parameterised ILIKE pattern; absent when the list has no search. The
   * engine also passes the organization as a parameter, for subqueries over other tables: one that names it
   * directly, rather than correlating on the outer row, runs once per query instead of once per row.
   */
  search?: (pattern: RawBuilder<unknown>, organizationId?: RawBuilder<unknown>) => RawBuilder<unknown>;
  includes: Record<string, IncludeDef>;
}

/** A parsed sort parameter. */
export interface Sort {
  /** As the caller wrote it, e.g. "-createdAt". */
  key: string;
  def: SortDef;
  descending: boolean;
}

/** Where a page ended: the last row's sort value and id (a cursor carries it). */
export interface CursorPosition {
  value: string | number | null;
  id: string;
}

/**
 * A selection saved apart from the request and resolved by the resource layer before the list runs (a quick filter,
 * docs/api.md#quick-filters). The engine ANDs its filter and search with the request's, uses its sort when the
 * request names none, and binds cursors to `version`, so the engine knows no resource and keeps one filtering path.
 */
export interface SavedSelection {
  /** An already checked filter document; `{}` selects everything. */
  filter: Record<string, unknown>;
  search: string | null;
  sort: string | null;
  /** Changes whenever the saved selection does (its id and updatedAt): a cursor issued under another is 400. */
  version: string;
  /** Where it came from, for error paths (e.g. `query.quickFilter`). */
  path: string;
}
