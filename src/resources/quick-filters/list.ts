import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { QUICK_FILTER_RESOURCES } from '../../records/quick-filter.js';

/** What GET /quick-filters can filter, sort and search (docs/api.md#quick-filters). */
export const quickFilterList: ListDefinition = {
  name: 'quick filters',
  from: 'quick_filters q',
  alias: 'q',
  select: 'q.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'q.id' },
    resource: { type: 'enum', column: 'q.resource', enumValues: QUICK_FILTER_RESOURCES },
    name: { type: 'string', column: 'q.name' },
    createdAt: { type: 'timestamp', column: 'q.created_at' },
    updatedAt: { type: 'timestamp', column: 'q.updated_at' },
  },
  sorts: {
    createdAt: { column: 'q.created_at', type: 'timestamp', nullable: false },
    updatedAt: { column: 'q.updated_at', type: 'timestamp', nullable: false },
    name: { column: 'q.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  // An organization keeps a handful of saved views, so the name is matched without a trigram index.
  search: (pattern) => sql`q.name ilike ${pattern}`,
  includes: {},
};
