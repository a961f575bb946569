import { sql } from 'kysely';
import type { ListDefinition } from '../../../lists/types.js';

export const tierList: ListDefinition = {
  name: 'loyalty tiers',
  from: 'loyalty_tiers t',
  alias: 't',
  select: 't.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 't.id' },
    loyaltyProgramId: { type: 'uuid', column: 't.loyalty_program_id' },
    name: { type: 'string', column: 't.name' },
    thresholdPoints: { type: 'integer', column: 't.threshold_points' },
    position: { type: 'integer', column: 't.position' },
    metadata: { type: 'metadata', column: 't.metadata' },
    createdAt: { type: 'timestamp', column: 't.created_at' },
  },
  sorts: {
    createdAt: { column: 't.created_at', type: 'timestamp', nullable: false },
    position: { column: 't.position', type: 'integer', nullable: false },
    thresholdPoints: { column: 't.threshold_points', type: 'integer', nullable: false },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`t.name ilike ${pattern}`,
  includes: {},
};
