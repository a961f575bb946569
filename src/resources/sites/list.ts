import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';

/** What GET /sites can filter, sort and search (docs/api.md#sites). */
export const siteList: ListDefinition = {
  name: 'sites',
  from: 'sites s',
  alias: 's',
  select: 's.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 's.id' },
    name: { type: 'string', column: 's.name' },
    domain: { type: 'string', column: 's.domain' },
    platform: { type: 'string', column: 's.platform' },
    currencyCode: { type: 'string', column: 's.currency_code' },
    createdAt: { type: 'timestamp', column: 's.created_at' },
  },
  sorts: {
    createdAt: { column: 's.created_at', type: 'timestamp', nullable: false },
    name: { column: 's.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`s.name ilike ${pattern} or s.domain ilike ${pattern}`,
  includes: {},
};
