import { sql } from 'kysely';
import type { ListDefinition } from '../../../lists/types.js';

/** What GET /loyalty-programs can filter, sort and search. */
export const programList: ListDefinition = {
  name: 'loyalty programs',
  from: 'loyalty_programs p',
  alias: 'p',
  select: 'p.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'p.id' },
    name: { type: 'string', column: 'p.name' },
    pointsName: { type: 'string', column: 'p.points_name' },
    metadata: { type: 'metadata', column: 'p.metadata' },
    createdAt: { type: 'timestamp', column: 'p.created_at' },
    updatedAt: { type: 'timestamp', column: 'p.updated_at' },
  },
  sorts: {
    createdAt: { column: 'p.created_at', type: 'timestamp', nullable: false },
    name: { column: 'p.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`p.name ilike ${pattern}`,
  includes: {},
};
