import { sql } from 'kysely';
import type { ListDefinition } from '../../../lists/types.js';
import { RULE_SECTIONS } from '../../../records/loyalty/rule-config.js';

/** What GET /loyalty-rules can filter, sort and search: the rules in configuration (not deleted). */
export const ruleList: ListDefinition = {
  name: 'loyalty rules',
  from: '(select * from loyalty_rules where deleted_at is null) r',
  alias: 'r',
  select: 'r.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'r.id' },
    loyaltyProgramId: { type: 'uuid', column: 'r.loyalty_program_id' },
    section: { type: 'enum', column: 'r.section', enumValues: RULE_SECTIONS },
    name: { type: 'string', column: 'r.name' },
    isActive: { type: 'boolean', column: 'r.is_active' },
    metadata: { type: 'metadata', column: 'r.metadata' },
    createdAt: { type: 'timestamp', column: 'r.created_at' },
    updatedAt: { type: 'timestamp', column: 'r.updated_at' },
  },
  sorts: {
    createdAt: { column: 'r.created_at', type: 'timestamp', nullable: false },
    name: { column: 'r.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`r.name ilike ${pattern}`,
  includes: {},
};
