import { sql, type Kysely, type RawBuilder } from 'kysely';
import { PREPARE } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import { validationError } from '../core/errors.js';
import { canonicalJson } from '../util/canonical-json.js';
import { checkCursorBeforeSaved, cursorBinding, decodeCursor, encodeCursor } from './cursor.js';
import { compileFilter, compileFilterParam, escapeLike, NUL_MESSAGE, type RelatedCondition } from './filter.js';
import { DEFAULT_PAGE_SIZE, type ListParams, type SelectionParams } from './query.js';
import { chooseRowByRow } from './related.js';
import { parseSort, segments, sortValueExpression } from './sort.js';
import type { IncludeContext, ListDefinition } from './types.js';

export interface Page<Row> {
  rows: Row[];
  nextCursor: string | null;
  /** Loaded extras: include name → record id → value. */
  includes: Map<string, Map<string, unknown>>;
}

export interface Selection {
  /** To-one joins the condition needs, as SQL. */
  joins: RawBuilder<unknown>;
  /** The organization, the filter and the search, ANDed. */
  where: RawBuilder<unknown>;
  /** The filter's to-many conditions every row must meet (see chooseRowByRow). */
  related: RelatedCondition[];
}

/**
 * The rows of one organization that a filter document and a search select, ANDed with a saved selection's (a quick
 * filter's, docs/api.md#quick-filters) when the request names one: the WHERE of a list page, a bulk update or an
 * analytics query, compiled once, the same way for all of them.
 */
export function compileSelection(
  definition: ListDefinition,
  organizationId: string,
  params: SelectionParams,
  extraJoins: Iterable<string> = [],
  perRow: ReadonlySet<number> = new Set(),
  filterPath = 'query.filter',
): Selection {
  const filter = compileFilterParam(definition, params.filter, { perRow, path: filterPath });
  const conditions: RawBuilder<unknown>[] = [
    sql`${sql.raw(`${definition.alias}.organization_id`)} = ${organizationId}::uuid`,
    filter.where,
  ];
  const joinNames = new Set([...filter.joins, ...extraJoins]);
  const related = [...filter.related];
  const searchCondition = (raw: string | null | undefined, path: string) => {
    const search = raw?.trim();
    if (!search) return;
    if (!definition.search)
      throw validationError(`The ${definition.name} list has no search.`, [{ path, message: 'is not supported here' }]);
    if (search.includes('\u0000'))
      throw validationError(`Invalid request: ${path} ${NUL_MESSAGE}.`, [{ path, message: NUL_MESSAGE }]);
    conditions.push(sql`(${definition.search(sql`${`%${escapeLike(search)}%`}`, sql`${organizationId}::uuid`)})`);
  };
  searchCondition(params.search, 'query.search');
  const saved = params.saved;
  if (saved) {
    // Its related conditions are numbered after the request filter's, as chooseRowByRow counted them.
    const offset = related.length;
    const savedFilter = compileFilter(definition, saved.filter, `${saved.path}.filter`, {
      perRow: new Set([...perRow].filter((n) => n >= offset).map((n) => n - offset)),
    });
    conditions.push(savedFilter.where);
    for (const name of savedFilter.joins) joinNames.add(name);
    related.push(...savedFilter.related);
    searchCondition(saved.search, `${saved.path}.search`);
  }
  const joins = [...joinNames].map((name) => {
    const join = definition.joins[name];
    if (!join) throw new Error(`List ${definition.name}: join ${name} is not defined`);
    return sql.raw(join);
  });
  return {
    joins: joins.length ? sql.join(joins, sql` `) : sql``,
    where: sql.join(conditions, sql` and `),
    related,
  };
}

/** Compiled only to be checked: never run, so no organization is needed. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/**
 * What a cursor's `b` binds: the request's own sort (or the list's default), filter and search. A saved selection's
 * sort, which applies when the request names none, is bound by the cursor's `q` with the rest of it, so `b` can be
 * checked before the saved selection is read, and cursors without one are as they always were.
 */
function requestBinding(definition: ListDefinition, params: ListParams): string {
  return cursorBinding(
    params.sort ?? definition.defaultSort,
    params.filter ? canonicalJson(JSON.parse(params.filter)) : '',
    params.search?.trim() ?? '',
  );
}

/**
 * Checks the parameters of a request that names a saved selection (filter, search, sort, include, the cursor) before
 * the saved selection is read, so that bad input is 400 whether or not the quick filter exists
 * (docs/api.md#quick-filters). The list, bulk update or query then checks them again as it runs.
 */
export function checkRequestSelection(definition: ListDefinition, params: ListParams): void {
  parseIncludes(definition, params.include);
  const sort = params.sort ? parseSort(definition, params.sort) : undefined;
  compileSelection(definition, NO_ORGANIZATION, { filter: params.filter, search: params.search });
  if (params.cursor) checkCursorBeforeSaved(params.cursor, requestBinding(definition, params), sort);
}

/** `include` values a list has parsed, kept per list: a client sends the same few with every request. */
const parsedIncludes = new WeakMap<ListDefinition, Map<string, readonly string[]>>();
/** Distinct `include` values kept per list; past this the memo starts over (random values cannot grow it). */
const PARSED_INCLUDES_PER_LIST = 64;
const NO_INCLUDES: readonly string[] = Object.freeze([]);

/**
 * Parses `include` against the list's extras; an unknown name is 400 (docs/api.md#includes). A value parsed before is
 * answered from a memo: splitting and checking six names was about 3 µs of a product GET with every include.
 */
export function parseIncludes(
  definition: ListDefinition,
  raw: string | undefined,
  path = 'query.include',
): readonly string[] {
  if (!raw) return NO_INCLUDES;
  let memo = parsedIncludes.get(definition);
  const known = memo?.get(raw);
  if (known) return known;
  const names = Object.freeze(checkIncludes(definition, raw, path));
  if (!memo) parsedIncludes.set(definition, (memo = new Map()));
  if (memo.size >= PARSED_INCLUDES_PER_LIST) memo.clear();
  memo.set(raw, names);
  return names;
}

function checkIncludes(definition: ListDefinition, raw: string, path: string): string[] {
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  const known = Object.keys(definition.includes);
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw validationError(
      `Unknown include "${unknown}" for ${definition.name}; available: ${known.join(', ') || 'none'}.`,
      [{ path, message: `"${unknown}" is not one of ${known.join(', ') || 'none'}` }],
    );
  }
  return names;
}

/** One query per requested extra for all the given records, never one per record (docs/api.md#includes). */
export async function loadIncludes(
  definition: ListDefinition,
  context: IncludeContext,
  names: readonly string[],
  ids: readonly string[],
): Promise<Map<string, Map<string, unknown>>> {
  const loaded = new Map<string, Map<string, unknown>>();
  if (ids.length === 0) return loaded;
  await Promise.all(
    names.map(async (name) => {
      loaded.set(name, await definition.includes[name]!.load(context, ids));
    }),
  );
  return loaded;
}

/**
 * Attaches loaded extras to an API record built for this answer (it is extended in place: copying every record of a
 * page cost more than the rest of the attaching); an extra that was not requested stays absent.
 */
export function withIncludes<T extends object>(
  definition: ListDefinition,
  record: T,
  id: string,
  includes: Map<string, Map<string, unknown>>,
): T {
  if (includes.size === 0) return record;
  const extended = record as Record<string, unknown>;
  for (const [name, values] of includes) {
    const value = values.get(id);
    extended[name] = value !== undefined || values.has(id) ? value : definition.includes[name]!.empty();
  }
  return record;
}

/**
 * What a page's queries share: the sort, the requested extras, the page size, the compiled selection and where the
 * cursor left off. The parameters are checked in this order, before any query.
 */
async function planPage(db: Kysely<DB>, definition: ListDefinition, organizationId: string, params: ListParams) {
  // A quick filter's sort applies when the request names none (docs/api.md#quick-filters).
  const sort = params.sort ? parseSort(definition, params.sort) : savedSort(definition, params.saved);
  const includeNames = parseIncludes(definition, params.include);
  const limit = params.limit ?? DEFAULT_PAGE_SIZE;
  const sortJoins = sort.def.join ? [sort.def.join] : [];
  let selection = compileSelection(definition, organizationId, params, sortJoins);
  const binding = requestBinding(definition, params);
  const savedVersion = params.saved?.version;
  const position = params.cursor ? decodeCursor(params.cursor, binding, sort, savedVersion) : null;
  const perRow = await chooseRowByRow(db, organizationId, selection.related, limit);
  if (perRow.size > 0) selection = compileSelection(definition, organizationId, params, sortJoins, perRow);
  const cursorAfter = (last: { _sort: string | number | null; id: string }) =>
    encodeCursor(binding, { value: last._sort ?? null, id: last.id }, savedVersion);
  return { sort, includeNames, limit, selection, position, cursorAfter };
}

/** One page of a list: filter, search, sort and keyset cursor (docs/api.md#lists). */
export async function listPage<Row extends { id: string }>(
  db: Kysely<DB>,
  definition: ListDefinition,
  organizationId: string,
  params: ListParams,
  columns?: RawBuilder<unknown>,
): Promise<Page<Row>> {
  const { sort, includeNames, limit, selection, position, cursorAfter } = await planPage(
    db,
    definition,
    organizationId,
    params,
  );

  // limit + 1 rows tell whether another page follows; the ranges are read in order until that many are found.
  const rows: (Row & { _sort: string | number | null })[] = [];
  for (const segment of segments(sort, `${definition.alias}.id`, position)) {
    // Prepared per connection (docs/architecture.md, statements run per request): a page's text is fixed by the
    // filter's shape, so a dashboard or a script paging with the same filter reuses the plan instead of planning it.
    const query = sql<Row & { _sort: string | number | null }>`${PREPARE}
      select ${columns ? sql`${sql.raw(definition.alias)}.id, ${columns}` : sql.raw(definition.select)},
        ${sortValueExpression(sort)} as _sort
      from ${sql.raw(definition.from)} ${selection.joins}
      where ${selection.where} and ${segment.where}
      order by ${segment.orderBy}
      limit ${limit + 1 - rows.length}`;
    rows.push(...(await query.execute(db)).rows);
    if (rows.length > limit) break;
  }

  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  const nextCursor = hasMore && last ? cursorAfter(last) : null;
  for (const row of page) delete (row as { _sort?: unknown })._sort;
  const includes = await loadIncludes(
    definition,
    { db, organizationId },
    includeNames,
    page.map((row) => row.id),
  );
  return { rows: page, nextCursor, includes };
}

/**
 * A list read from a cursor to its end without pages: the statements to run one after another (one per index range
 * of the sort), each selecting `line` (SQL over the list's `from`), then the row's sort value and id as text, in the
 * list's order; and the cursor that goes on after a row, from those two texts. For an export that streams its
 * records (docs/api.md#export-jobs).
 */
export async function listWalk(
  db: Kysely<DB>,
  definition: ListDefinition,
  organizationId: string,
  params: ListParams,
  line: RawBuilder<string>,
): Promise<{ statements: RawBuilder<unknown>[]; cursorAfter: (sortText: string | null, id: string) => string }> {
  const { sort, selection, position, cursorAfter } = await planPage(db, definition, organizationId, params);
  const statements = segments(sort, `${definition.alias}.id`, position).map(
    (segment) => sql`
      select ${line}, (${sortValueExpression(sort)})::text, ${sql.raw(definition.alias)}.id::text
      from ${sql.raw(definition.from)} ${selection.joins}
      where ${selection.where} and ${segment.where}
      order by ${segment.orderBy}`,
  );
  // The sort value as listPage reads it: a count or an integer column is a number, the rest text.
  const numeric = sort.def.type === 'integer' || sort.def.zeroWhenAbsent !== undefined;
  return {
    statements,
    cursorAfter: (sortText, id) =>
      cursorAfter({ _sort: sortText === null ? null : numeric ? Number(sortText) : sortText, id }),
  };
}

function savedSort(definition: ListDefinition, saved: SelectionParams['saved']) {
  return parseSort(definition, saved?.sort ?? undefined, saved ? `${saved.path}.sort` : 'query.sort');
}

/** What a list endpoint answers: one page of API records, each with the extras the caller asked for. */
export async function listRecords<Row extends { id: string }, ApiRecord extends object>(
  db: Kysely<DB>,
  definition: ListDefinition,
  organizationId: string,
  params: ListParams,
  toRecord: (row: Row) => ApiRecord,
): Promise<{ data: ApiRecord[]; nextCursor: string | null }> {
  const page = await listPage<Row>(db, definition, organizationId, params);
  return {
    data: page.rows.map((row) => withIncludes(definition, toRecord(row), row.id, page.includes)),
    nextCursor: page.nextCursor,
  };
}

/**
 * What a get endpoint answers: one API record with the extras the caller asked for. `include` is checked before the
 * record is read, so an unknown extra is 400 whether or not the record exists; a missing record is `missing()`.
 */
export async function getRecord<Row extends { id: string }, ApiRecord extends object>(
  db: Kysely<DB>,
  definition: ListDefinition,
  organizationId: string,
  include: string | undefined,
  read: { find: () => Promise<Row | undefined>; toRecord: (row: Row) => ApiRecord; missing: () => Error },
): Promise<ApiRecord> {
  const names = parseIncludes(definition, include);
  const row = await read.find();
  if (!row) throw read.missing();
  const includes = await loadIncludes(definition, { db, organizationId }, names, [row.id]);
  return withIncludes(definition, read.toRecord(row), row.id, includes);
}
