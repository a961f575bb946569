import Type, { type Static, type TObject, type TOptional, type TString, type TInteger } from 'typebox';
import type { ListDefinition, SavedSelection } from './types.js';
import { FILTER_LIMITS } from './filter.js';

export const MAX_PAGE_SIZE = 250;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_SEARCH_LENGTH = 200;

const Limit = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE_SIZE,
  default: DEFAULT_PAGE_SIZE,
  description: 'Records per page, 1..250.',
});
const Cursor = Type.String({ minLength: 1, maxLength: 2048, description: 'The nextCursor of the previous page.' });
const FILTER_GRAMMAR =
  'JSON filter document: {"field": value} or {"field": {"$op": value}} with $eq $ne $gt $gte $lt $lte $in $nin ' +
  '$exists $contains $startsWith, combined with $and, $or, $not. See docs/api.md.';

/** One field as the documentation names it: `metadata` fields are filtered per key. */
function describeField(name: string, field: ListDefinition['fields'][string]): string {
  if (field.type === 'metadata') return `${name}.<key> (string)`;
  if (field.type === 'enum' && field.enumValues) return `${name} (one of ${field.enumValues.join(', ')})`;
  return `${name} (${field.type === 'timestamp' ? 'ISO 8601 date-time' : field.type})`;
}

/** The filter parameter of one list, naming the fields it accepts so callers need not guess (nor the fuzzer). */
function filterSchema(definition: ListDefinition) {
  const fields = Object.entries(definition.fields).map(([name, field]) => describeField(name, field));
  return Type.String({
    maxLength: FILTER_LIMITS.maxBytes,
    description: `${FILTER_GRAMMAR} Fields: ${fields.join('; ')}.`,
    'x-filterable-fields': Object.keys(definition.fields),
  });
}
const QuickFilter = Type.String({
  format: 'uuid',
  description:
    'A quick filter of this list by id: its filter and search are ANDed with filter and search, its sort applies when sort is omitted (docs/api.md#quick-filters).',
});
const Search = Type.String({
  minLength: 1,
  maxLength: MAX_SEARCH_LENGTH,
  description: 'Case-insensitive text search.',
});

/** The static shape every list query has; search and include exist only where the list offers them. */
type ListQueryProperties = {
  limit: TOptional<TInteger>;
  cursor: TOptional<TString>;
  sort: TOptional<TString>;
  search: TOptional<TString>;
  filter: TOptional<TString>;
  include: TOptional<TString>;
  quickFilter: TOptional<TString>;
};

/** What a list's query string offers beyond the common parameters. */
export interface ListQueryOptions {
  /** `quickFilter=<id>`: the list's quick filters apply (docs/api.md#quick-filters). */
  quickFilter?: boolean;
}

/** The common list parameters of service.md for one list, with its own sort values and includes. */
export function listQuerySchema(
  definition: ListDefinition,
  options: ListQueryOptions = {},
): TObject<ListQueryProperties> {
  const sorts = Object.keys(definition.sorts).flatMap((name) => [name, `-${name}`]);
  const includes = Object.keys(definition.includes);
  return Type.Object(
    {
      limit: Type.Optional(Limit),
      cursor: Type.Optional(Cursor),
      // An enum, not a union of literals: generators read it as one string type, and a wrong value is one error
      // naming every allowed value.
      sort: Type.Optional(
        Type.Unsafe<string>({ type: 'string', enum: sorts, description: `Default ${definition.defaultSort}.` }),
      ),
      ...(definition.search ? { search: Type.Optional(Search) } : {}),
      filter: Type.Optional(filterSchema(definition)),
      ...(includes.length ? { include: Type.Optional(includeSchema(definition)) } : {}),
      ...(options.quickFilter ? { quickFilter: Type.Optional(QuickFilter) } : {}),
    },
    { additionalProperties: false },
  ) as unknown as TObject<ListQueryProperties>;
}

export function includeSchema(definition: ListDefinition) {
  return Type.String({
    maxLength: 500,
    description: `Comma-separated extras: ${Object.keys(definition.includes).join(', ')}.`,
  });
}

/** Filter and search only: what bulk updates take in their query string. */
export function selectionQuerySchema(
  definition: ListDefinition,
  options: ListQueryOptions = {},
): TObject<Pick<ListQueryProperties, 'filter' | 'search' | 'quickFilter'>> {
  return Type.Object(
    {
      filter: Type.Optional(filterSchema(definition)),
      ...(definition.search ? { search: Type.Optional(Search) } : {}),
      ...(options.quickFilter ? { quickFilter: Type.Optional(QuickFilter) } : {}),
    },
    { additionalProperties: false },
  ) as unknown as TObject<Pick<ListQueryProperties, 'filter' | 'search' | 'quickFilter'>>;
}

export interface ListParams {
  limit?: number | undefined;
  cursor?: string | undefined;
  sort?: string | undefined;
  search?: string | undefined;
  filter?: string | undefined;
  include?: string | undefined;
  /** The saved selection the request named (`quickFilter`), resolved by the resource layer. */
  saved?: SavedSelection | undefined;
}

export type SelectionParams = Pick<ListParams, 'filter' | 'search' | 'saved'>;
export type ListQuery = Static<ReturnType<typeof listQuerySchema>>;
