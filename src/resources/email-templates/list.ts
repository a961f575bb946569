import { sql } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';
import { EMAIL_TEMPLATE_KINDS } from '../../records/email-template.js';

/** What GET /email-templates can filter, sort and search (docs/api.md#email-templates). */
export const emailTemplateList: ListDefinition = {
  name: 'email templates',
  from: 'email_templates t',
  alias: 't',
  select: 't.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 't.id' },
    kind: { type: 'enum', column: 't.kind', enumValues: EMAIL_TEMPLATE_KINDS },
    isActive: { type: 'boolean', column: 't.is_active' },
    locale: { type: 'string', column: 't.locale' },
    name: { type: 'string', column: 't.name' },
    createdAt: { type: 'timestamp', column: 't.created_at' },
    updatedAt: { type: 'timestamp', column: 't.updated_at' },
  },
  sorts: {
    createdAt: { column: 't.created_at', type: 'timestamp', nullable: false },
    updatedAt: { column: 't.updated_at', type: 'timestamp', nullable: false },
    name: { column: 't.name', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  // An organization keeps a handful of templates, so the name is matched without a trigram index.
  search: (pattern) => sql`t.name ilike ${pattern}`,
  includes: {},
};
