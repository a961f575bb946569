/** The quick filter record (docs/api.md#quick-filters): its response shape, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { QuickFiltersTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Timestamp, Uuid } from './common.js';

/** The lists a quick filter can belong to (docs/api.md#quick-filters). */
export const QUICK_FILTER_RESOURCES = [
  'products',
  'orders',
  'customers',
  'reviews',
  'wishlists',
  'product-questions',
  'loyalty-rewards',
  'loyalty-memberships',
  'loyalty-activity',
] as const;
export type QuickFilterResource = (typeof QUICK_FILTER_RESOURCES)[number];

/** An enum, not a union of literals: generators read it as one string type, and a wrong value names every value. */
export const QuickFilterResourceValue = Type.Unsafe<QuickFilterResource>({
  type: 'string',
  enum: [...QUICK_FILTER_RESOURCES],
  description: 'The list the quick filter belongs to; its filter, search and sort are those of that list.',
});

/** A quick filter (docs/api.md#quick-filters): a saved view of one list, applied with `quickFilter=<id>`. */
export const QuickFilter = Type.Object(
  {
    id: Uuid,
    resource: QuickFilterResourceValue,
    name: Type.String(),
    filter: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "A filter document of the resource's list (docs/api.md#filter-documents); {} selects everything.",
      },
    ),
    search: Type.Union([Type.String(), Type.Null()], { description: "The list's search, or null for none." }),
    sort: Type.Union([Type.String(), Type.Null()], {
      description: "One of the list's sort values, used when a request names no sort; null for the list's default.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'QuickFilter', additionalProperties: false },
);
export type QuickFilter = Static<typeof QuickFilter>;

export type QuickFilterRow = Selectable<QuickFiltersTable>;

/** The columns toQuickFilter reads. */
export const QUICK_FILTER_COLUMNS = [
  'id',
  'resource',
  'name',
  'filter',
  'search',
  'sort',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof QuickFilterRow)[];
export type QuickFilterFields = Pick<QuickFilterRow, (typeof QUICK_FILTER_COLUMNS)[number]>;

/** The one mapping from a quick filter row to its API shape. */
export const toQuickFilter = (row: QuickFilterFields): QuickFilter => ({
  id: row.id,
  resource: row.resource as QuickFilterResource,
  name: row.name,
  filter: row.filter,
  search: row.search,
  sort: row.sort,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type QuickFilterEventName = 'quickFilter.created' | 'quickFilter.updated' | 'quickFilter.deleted';

export const quickFilterEvent = (
  organizationId: string,
  name: QuickFilterEventName,
  row: QuickFilterFields,
): EventToRecord => ({
  organizationId,
  name,
  schema: QuickFilter,
  record: toQuickFilter(row),
});
