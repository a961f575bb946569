import Type, { type Static, type TObject, type TOptional, type TString, type TInteger } from 'typebox';
import type { ListDefinition } from './types.js';
import { FILTER_LIMITS } from './filter.js';

export const MAX_PAGE_SIZE = 250;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_SEARCH_LENGTH = 200;

const Limit = Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Records per page, 1..250.' });
const Cursor = Type.String({ minLength: 1, maxLength: 2048, description: 'The nextCursor of the previous page.' });
const Filter = Type.String({
  maxLength: FILTER_LIMITS.maxBytes,
  description:
    'JSON filter document: {"field": value} or {"field": {"$op": value}} with $eq $ne $gt $gte $lt $lte $in $nin ' +
    '$exists $contains $startsWith, combined with $and, $or, $not. See docs/api.md.',
});
const Search = Type.String({ minLength: 1, maxLength: MAX_SEARCH_LENGTH, description: 'Case-insensitive text search.' });

/** The static shape every list query has; search and include exist only where the list offers them. */
type ListQueryProperties = {
  limit: TOptional<TInteger>;
  cursor: TOptional<TString>;
  sort: TOptional<TString>;
  search: TOptional<TString>;
  filter: TOptional<TString>;
  include: TOptional<TString>;
};

/** The common list parameters of service.md for one list, with its own sort values and includes. */
export function listQuerySchema(definition: ListDefinition): TObject<ListQueryProperties> {
  const sorts = Object.keys(definition.sorts).flatMap((name) => [name, `-${name}`]);
  const includes = Object.keys(definition.includes);
  return Type.Object(
    {
      limit: Type.Optional(Limit),
      cursor: Type.Optional(Cursor),
      sort: Type.Optional(
        Type.Union(sorts.map((value) => Type.Literal(value)), { description: `Default ${definition.defaultSort}.` }),
      ),
      ...(definition.search ? { search: Type.Optional(Search) } : {}),
      filter: Type.Optional(Filter),
      ...(includes.length ? { include: Type.Optional(includeSchema(definition)) } : {}),
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
export function selectionQuerySchema(definition: ListDefinition): TObject<Pick<ListQueryProperties, 'filter' | 'search'>> {
  return Type.Object(
    { filter: Type.Optional(Filter), ...(definition.search ? { search: Type.Optional(Search) } : {}) },
    { additionalProperties: false },
  ) as unknown as TObject<Pick<ListQueryProperties, 'filter' | 'search'>>;
}

export interface ListParams {
  limit?: number | undefined;
  cursor?: string | undefined;
  sort?: string | undefined;
  search?: string | undefined;
  filter?: string | undefined;
  include?: string | undefined;
}

export type SelectionParams = Pick<ListParams, 'filter' | 'search'>;
export type ListQuery = Static<ReturnType<typeof listQuerySchema>>;
