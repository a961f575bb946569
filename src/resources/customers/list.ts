import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { tagNamesOf } from '../../resource-kit/tags.js';
import { customerSearchText, EMAIL_OPT_OUT_SOURCES } from '../../records/customer.js';

/**
 * What GET /customers (and its bulk update) can filter, sort, search and include (docs/api.md#customers,
 * docs/api.md#search).
 */
export const customerList: ListDefinition = {
  name: 'customers',
  from: 'customers c',
  alias: 'c',
  select: 'c.*',
  joins: {},
  relations: {
    tags: {
      from: 'customer_tags ct join tags t on t.organization_id = ct.organization_id and t.id = ct.tag_id',
      correlate: 'ct.organization_id = c.organization_id and ct.customer_id = c.id',
    },
  },
  fields: {
    id: { type: 'uuid', column: 'c.id' },
    email: { type: 'string', column: 'c.email' },
    firstName: { type: 'string', column: 'c.first_name' },
    lastName: { type: 'string', column: 'c.last_name' },
    phone: { type: 'string', column: 'c.phone' },
    country: { type: 'string', column: 'c.country' },
    birthday: { type: 'string', column: 'c.birthday' },
    metadata: { type: 'metadata', column: 'c.metadata' },
    emailOptOut: { type: 'boolean', column: 'c.email_opt_out' },
    emailOptOutSource: { type: 'enum', column: 'c.email_opt_out_source', enumValues: EMAIL_OPT_OUT_SOURCES },
    emailOptOutAt: { type: 'timestamp', column: 'c.email_opt_out_at' },
    createdAt: { type: 'timestamp', column: 'c.created_at' },
    updatedAt: { type: 'timestamp', column: 'c.updated_at' },
    'tags.name': { type: 'string', column: 't.name', many: 'tags' },
  },
  sorts: {
    createdAt: { column: 'c.created_at', type: 'timestamp', nullable: false },
    email: { column: 'c.email', type: 'string', nullable: false },
    lastName: { column: 'c.last_name', type: 'string', nullable: true },
  },
  defaultSort: '-createdAt',
  // lower() on both sides is what ILIKE does (phone is E.164: digits only); a term may also span two fields.
  search: (pattern) => sql`${customerSearchText('c')} like lower(${pattern})`,
  includes: {
    tags: { load: ({ db, organizationId }, ids) => tagNamesOf(db, organizationId, 'customer', ids), empty: () => [] },
  },
};
