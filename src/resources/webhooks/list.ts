import type { ListDefinition } from '../../lists/types.js';

/** What GET /webhooks can filter and sort (service.md); it has no search. */
export const webhookList: ListDefinition = {
  name: 'webhooks',
  from: 'webhook_endpoints w',
  alias: 'w',
  select: 'w.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'w.id' },
    url: { type: 'string', column: 'w.url' },
    isActive: { type: 'boolean', column: 'w.is_active' },
    createdAt: { type: 'timestamp', column: 'w.created_at' },
  },
  sorts: {
    createdAt: { column: 'w.created_at', type: 'timestamp', nullable: false },
    url: { column: 'w.url', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {},
};
