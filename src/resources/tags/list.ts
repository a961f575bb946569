import { sql } from 'kysely';
import type { TagKind } from '../../db/schema.js';
import type { ListDefinition } from '../../lists/types.js';
import { recordCounts } from './queries.js';

/**
 * What GET /<kind>-tags can filter, sort, search and include. One definition per kind: the base relation is
 * the tags of that kind only (the kind is a constant of the code, never user input).
 */
export function tagList(kind: TagKind): ListDefinition {
  return {
    name: `${kind} tags`,
    from: `(select * from tags where kind = '${kind}') tg`,
    alias: 'tg',
    select: 'tg.*',
    joins: {},
    relations: {},
    fields: {
      id: { type: 'uuid', column: 'tg.id' },
      name: { type: 'string', column: 'tg.name' },
      createdAt: { type: 'timestamp', column: 'tg.created_at' },
    },
    sorts: {
      name: { column: 'tg.name', type: 'string', nullable: false },
      createdAt: { column: 'tg.created_at', type: 'timestamp', nullable: false },
    },
    defaultSort: '-createdAt',
    search: (pattern) => sql`tg.name ilike ${pattern}`,
    includes: {
      count: { load: ({ db, organizationId }, ids) => recordCounts(db, organizationId, kind, ids), empty: () => 0 },
    },
  };
}
