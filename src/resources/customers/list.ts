import { sql } from 'kysely';
import type { FieldDef, ListDefinition } from '../../lists/types.js';
import { tagNamesOf } from '../../resource-kit/tags.js';
import { EMAIL_OPT_OUT_SOURCES } from './schemas.js';

/**
 * D10's customer text (email, first and last name, phone) under a table alias, written exactly as the expression of
 * the customers_search_trgm index (migration 0006), which leads with organization_id: every list that searches
 * customers compares this with `like lower(pattern)` so the index applies. `alias` is a constant of the caller.
 */
export const customerSearchText = (alias: string) =>
  sql.raw(
    `(lower(${alias}.email) || ' ' || coalesce(lower(${alias}.first_name), '') || ' ' || coalesce(lower(${alias}.last_name), '') || ' ' || coalesce(${alias}.phone, ''))`,
  );

/** The customer.* filter paths of a list that joins the customer as `c` through its join named `customer`. */
export const joinedCustomerFields = (idColumn: string): Record<string, FieldDef> => ({
  'customer.id': { type: 'uuid', column: idColumn },
  'customer.email': { type: 'string', column: 'c.email', join: 'customer' },
  'customer.firstName': { type: 'string', column: 'c.first_name', join: 'customer' },
  'customer.lastName': { type: 'string', column: 'c.last_name', join: 'customer' },
  'customer.metadata': { type: 'metadata', column: 'c.metadata', join: 'customer' },
});

/** What GET /customers (and its bulk update) can filter, sort, search and include (D29, D10). */
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
