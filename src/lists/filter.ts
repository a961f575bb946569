import { sql, type RawBuilder } from 'kysely';
import { validationError, type ErrorDetail } from '../core/errors.js';
import type { FieldDef, ListDefinition, RelationDef, ValueType } from './types.js';
import { isUuid } from '../util/uuid.js';

export const FILTER_LIMITS = { maxBytes: 16 * 1024, maxDepth: 5, maxConditions: 100, maxArray: 500, maxString: 1000 };

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const METADATA_KEY = /^.{1,40}$/su;

const COMPARISON = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'] as const;
const OPERATORS = new Set<string>([...COMPARISON, '$in', '$nin', '$exists', '$contains', '$startsWith']);
const ORDERED: ReadonlySet<string> = new Set(['integer', 'timestamp', 'string']);
/** PostgreSQL text cannot hold U+0000: such an operand can match nothing and would fail the query. */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** A resolved filter path: the field definition and, for metadata, the key. */
interface Target {
  field: FieldDef;
  metadataKey?: string;
  /** The value type operands are checked against. */
  type: ValueType;
}

export interface CompiledFilter {
  where: RawBuilder<unknown>;
  /** To-one joins the condition needs, by name. */
  joins: Set<string>;
  /** The to-many conditions every selected row must meet (ANDed at the top), numbered in document order. */
  related: RelatedCondition[];
}

/** "Some related row matches": a to-many condition the planner could turn into a semi-join. */
export interface RelatedCondition {
  relation: RelationDef;
  /** Over the relation's columns only. */
  condition: RawBuilder<unknown>;
}

export interface FilterOptions {
  /**
   * The related conditions (by number) to test row by row: `exists (… offset 0)`, which PostgreSQL cannot flatten
   * into a semi-join, so a sorted page can walk its index and stop when full (src/lists/related.ts decides).
   */
  perRow?: ReadonlySet<number>;
  /** Where the document came from, for error paths (default `query.filter`; analytics takes it in `body.filter`). */
  path?: string;
}

class FilterError extends Error {
  constructor(readonly detail: ErrorDetail) {
    super(detail.message);
  }
}

const fail = (path: string, message: string): never => {
  throw new FilterError({ path, message });
};

/** Parses the `filter` query parameter (a JSON document) and compiles it to a parameterised condition. */
export function compileFilterParam(
  definition: ListDefinition,
  raw: string | undefined,
  options: FilterOptions = {},
): CompiledFilter {
  if (raw === undefined || raw === '') return { where: sql`true`, joins: new Set(), related: [] };
  const path = options.path ?? 'query.filter';
  if (Buffer.byteLength(raw) > FILTER_LIMITS.maxBytes) {
    throw validationError(`The filter is larger than ${FILTER_LIMITS.maxBytes / 1024} KiB.`, [
      { path, message: `must be at most ${FILTER_LIMITS.maxBytes} bytes` },
    ]);
  }
  let document: unknown;
  try {
    document = JSON.parse(raw);
  } catch {
    throw validationError(
      'The filter is not valid JSON: send a JSON object such as {"createdAt":{"$gte":"2026-01-01T00:00:00Z"}}.',
      [{ path, message: 'is not valid JSON' }],
    );
  }
  return compileFilter(definition, document, path, options);
}

/** Compiles an already parsed filter document (bulk updates and analytics pass theirs through here too). */
export function compileFilter(
  definition: ListDefinition,
  document: unknown,
  rootPath: string,
  options: FilterOptions = {},
): CompiledFilter {
  const state: State = { conditions: 0, joins: new Set<string>(), related: [], perRow: options.perRow ?? new Set() };
  try {
    if (!isPlainObject(document)) fail(rootPath, 'must be a JSON object keyed by field names');
    const where = compileObject(definition, document as Record<string, unknown>, rootPath, 1, state, true);
    return { where, joins: state.joins, related: state.related };
  } catch (error) {
    if (error instanceof FilterError) {
      throw validationError(`Invalid filter: ${error.detail.path} ${error.detail.message}.`, [error.detail]);
    }
    throw error;
  }
}

type State = { conditions: number; joins: Set<string>; related: RelatedCondition[]; perRow: ReadonlySet<number> };

/** `conjunctive`: the node is ANDed into the whole filter (not under $or or $not). */
function compileObject(
  definition: ListDefinition,
  node: Record<string, unknown>,
  path: string,
  depth: number,
  state: State,
  conjunctive: boolean,
): RawBuilder<unknown> {
  if (depth > FILTER_LIMITS.maxDepth) fail(path, `nests deeper than ${FILTER_LIMITS.maxDepth} levels`);
  const parts: RawBuilder<unknown>[] = [];
  for (const [key, value] of Object.entries(node)) {
    const here = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) fail(here, 'must be a non-empty array of filter objects');
      const branches = (value as unknown[]).map((branch, index) => {
        if (!isPlainObject(branch)) fail(`${here}[${index}]`, 'must be a filter object');
        return compileObject(
          definition,
          branch as Record<string, unknown>,
          `${here}[${index}]`,
          depth + 1,
          state,
          conjunctive && key === '$and',
        );
      });
      parts.push(sql`(${sql.join(branches, sql.raw(key === '$and' ? ' and ' : ' or '))})`);
    } else if (key === '$not') {
      if (!isPlainObject(value)) fail(here, 'must be a filter object');
      parts.push(
        sql`not coalesce((${compileObject(definition, value as Record<string, unknown>, here, depth + 1, state, false)}), false)`,
      );
    } else if (key.startsWith('$')) {
      fail(here, 'is not a logical operator: use $and, $or or $not, or a field name');
    } else {
      parts.push(compileField(definition, resolve(definition, key, here), value, here, state, conjunctive));
    }
  }
  if (parts.length === 0) return sql`true`;
  return parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` and `)})`;
}

function resolve(definition: ListDefinition, key: string, path: string): Target {
  // Own entries only: "__proto__" or "constructor" must not resolve to Object.prototype members.
  const fieldNamed = (name: string) => (Object.hasOwn(definition.fields, name) ? definition.fields[name] : undefined);
  const field = fieldNamed(key);
  if (field?.type === 'metadata') fail(path, `filters one metadata key at a time: use ${key}.<key>`);
  if (field) return { field, type: field.type as ValueType };
  // metadata.<key>, customer.metadata.<key>, variants.metadata.<key>: everything after "metadata." is the key.
  const nested = key.indexOf('.metadata.');
  const split = key.startsWith('metadata.') ? 'metadata'.length : nested >= 0 ? nested + '.metadata'.length : -1;
  if (split >= 0) {
    const metadataField = fieldNamed(key.slice(0, split));
    const metadataKey = key.slice(split + 1);
    if (metadataField?.type === 'metadata' && METADATA_KEY.test(metadataKey) && !metadataKey.includes('\u0000')) {
      return { field: metadataField, metadataKey, type: 'string' };
    }
  }
  const known = Object.entries(definition.fields)
    .map(([name, f]) => (f.type === 'metadata' ? `${name}.<key>` : name))
    .join(', ');
  return fail(path, `is not a filterable field of ${definition.name}; filterable: ${known}`);
}

function compileField(
  definition: ListDefinition,
  target: Target,
  value: unknown,
  path: string,
  state: State,
  conjunctive: boolean,
): RawBuilder<unknown> {
  const operations: [string, unknown][] = isPlainObject(value)
    ? Object.entries(value as Record<string, unknown>)
    : [['$eq', value]];
  if (operations.length === 0) fail(path, 'must hold at least one operator');
  const { field } = target;
  if (field.join) state.joins.add(field.join);
  const column =
    target.metadataKey !== undefined
      ? sql`(${sql.raw(field.column)} ->> ${target.metadataKey})`
      : sql.raw(field.column);
  const conditions = operations.map(([operator, operand]) => {
    state.conditions++;
    if (state.conditions > FILTER_LIMITS.maxConditions)
      fail(path, `makes the filter exceed ${FILTER_LIMITS.maxConditions} conditions`);
    if (!OPERATORS.has(operator)) {
      fail(`${path}.${operator}`, `is not an operator; use one of ${[...OPERATORS].join(', ')}`);
    }
    // A bare literal is an implicit $eq: report the path the caller wrote, not an operator they did not.
    return compileOperator(target, column, operator, operand, isPlainObject(value) ? `${path}.${operator}` : path);
  });
  const condition = conditions.length === 1 ? conditions[0]! : sql`(${sql.join(conditions, sql` and `)})`;
  if (!field.many) return condition;
  const relation = definition.relations[field.many];
  if (!relation) throw new Error(`List ${definition.name}: relation ${field.many} is not defined`);
  const exists = (inner: RawBuilder<unknown>, perRow = false) =>
    sql`exists (select 1 from ${sql.raw(relation.from)} where ${sql.raw(relation.correlate)} and ${inner}${sql.raw(perRow ? ' offset 0' : '')})`;
  // "Has no such value" reads naturally on a to-many path: no related row carries one.
  const only = operations[0];
  if (operations.length === 1 && only && only[0] === '$exists' && only[1] === false) {
    return sql`not ${exists(sql`${column} is not null`)}`;
  }
  if (operations.length === 1 && only && only[0] === '$eq' && only[1] === null) {
    return sql`not ${exists(sql`${column} is not null`)}`;
  }
  if (!conjunctive) return exists(condition);
  const number = state.related.push({ relation, condition }) - 1;
  return exists(condition, state.perRow.has(number));
}

function compileOperator(
  target: Target,
  column: RawBuilder<unknown>,
  operator: string,
  operand: unknown,
  path: string,
): RawBuilder<unknown> {
  const { type } = target;
  switch (operator) {
    case '$exists':
      if (typeof operand !== 'boolean') fail(path, 'must be true or false');
      return operand ? sql`${column} is not null` : sql`${column} is null`;
    case '$eq':
      if (operand === null) return sql`${column} is null`;
      return sql`${column} = ${literal(target, operand, path)}`;
    case '$ne':
      if (operand === null) return sql`${column} is not null`;
      // "Not equal" includes records where the field has no value.
      return sql`${column} is distinct from ${literal(target, operand, path)}`;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      if (!ORDERED.has(type)) fail(path, `does not apply to ${type} fields`);
      const symbol = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[operator];
      return sql`${column} ${sql.raw(symbol)} ${literal(target, operand, path)}`;
    }
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand) || operand.length === 0) fail(path, 'must be a non-empty array');
      const values = operand as unknown[];
      if (values.length > FILTER_LIMITS.maxArray) fail(path, `must have at most ${FILTER_LIMITS.maxArray} values`);
      const nonNull = values
        .filter((item) => item !== null)
        .map((item, index) => checked(target, item, `${path}[${index}]`));
      const hasNull = nonNull.length !== values.length;
      const list = sql`any(${nonNull}::${sql.raw(arrayType(type))})`;
      if (operator === '$in') {
        return hasNull ? sql`(${column} = ${list} or ${column} is null)` : sql`${column} = ${list}`;
      }
      return hasNull
        ? sql`(${column} is not null and not (${column} = ${list}))`
        : sql`(${column} is null or not (${column} = ${list}))`;
    }
    case '$contains':
    case '$startsWith': {
      if (type !== 'string') fail(path, `applies to text fields only, not ${type}`);
      if (typeof operand !== 'string' || operand.length === 0) fail(path, 'must be a non-empty string');
      const text = operand as string;
      if (text.length > FILTER_LIMITS.maxString) fail(path, `must be at most ${FILTER_LIMITS.maxString} characters`);
      if (text.includes('\u0000')) fail(path, NUL_MESSAGE);
      const escaped = escapeLike(text);
      return sql`${column} ilike ${operator === '$contains' ? `%${escaped}%` : `${escaped}%`}`;
    }
    default:
      return fail(path, 'is not an operator');
  }
}

/** A checked operand as a typed SQL parameter. */
function literal(target: Target, operand: unknown, path: string): RawBuilder<unknown> {
  const value = checked(target, operand, path);
  return sql`${value}::${sql.raw(scalarType(target.type))}`;
}

function checked(target: Target, operand: unknown, path: string): string | number | boolean {
  const { type, field } = target;
  switch (type) {
    case 'uuid':
      if (typeof operand !== 'string' || !isUuid(operand)) fail(path, 'must be a UUID');
      return (operand as string).toLowerCase();
    case 'integer':
      if (typeof operand !== 'number' || !Number.isSafeInteger(operand)) fail(path, 'must be an integer');
      return operand as number;
    case 'boolean':
      if (typeof operand !== 'boolean') fail(path, 'must be true or false');
      return operand as boolean;
    case 'timestamp': {
      if (
        typeof operand !== 'string' ||
        !TIMESTAMP.test(operand) ||
        Number.isNaN(Date.parse(operand)) ||
        !isCalendarDate(operand)
      ) {
        fail(path, 'must be an ISO 8601 date-time with a time-zone offset, e.g. 2026-01-31T00:00:00Z');
      }
      const instant = new Date(operand as string);
      // PostgreSQL has no year 0 and JavaScript writes years outside 0001..9999 in a form it cannot read.
      if (instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999)
        fail(path, 'must fall between the years 0001 and 9999');
      return instant.toISOString();
    }
    case 'enum':
      if (typeof operand !== 'string' || !field.enumValues?.includes(operand)) {
        fail(path, `must be one of ${(field.enumValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`);
      }
      return operand as string;
    case 'string':
      if (typeof operand !== 'string') fail(path, 'must be a string');
      if ((operand as string).length > FILTER_LIMITS.maxString)
        fail(path, `must be at most ${FILTER_LIMITS.maxString} characters`);
      if ((operand as string).includes('\u0000')) fail(path, NUL_MESSAGE);
      return operand as string;
  }
}

/** Date.parse rolls 2026-02-30 over to March 2; a day the month does not have is a mistake to report. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function scalarType(type: ValueType): string {
  return {
    uuid: 'uuid',
    string: 'text',
    enum: 'text',
    integer: 'bigint',
    boolean: 'boolean',
    timestamp: 'timestamptz',
  }[type];
}
const arrayType = (type: ValueType) => `${scalarType(type)}[]`;

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
