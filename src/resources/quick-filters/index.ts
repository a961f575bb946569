import type { ResourceModule } from '../../core/types.js';
import { QuickFilter } from '../../records/quick-filter.js';
import { quickFilterRoutes } from './routes.js';
import type { QuickFilterLists } from './service.js';

/**
 * Quick filters (docs/api.md#quick-filters). The composition root hands in the list of each resource a quick filter
 * can belong to, so this folder reads no other resource's files and the lists' own folders can import
 * `resolveQuickFilter` from here without a cycle.
 */
export function quickFiltersResource(lists: QuickFilterLists): ResourceModule {
  return {
    name: 'quick-filters',
    permissions: ['quickFilters:read', 'quickFilters:write'],
    description:
      'Saved views: a filter document, search and sort of one list under a name, applied with quickFilter=<id> on that list, its bulk update and the analytics query.',
    routes: quickFilterRoutes(lists),
    // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
    events: [
      {
        names: ['quickFilter.created', 'quickFilter.updated', 'quickFilter.deleted'],
        schema: QuickFilter,
        firesWhen: 'POST, PATCH and DELETE on /quick-filters.',
      },
    ],
  };
}

/** Every list, bulk update and analytics query that takes quickFilter=<id>: the quick filter as a saved selection. */
export { QUICK_FILTER_MISSING, resolveQuickFilter, withQuickFilter, type QuickFilterLists } from './service.js';
