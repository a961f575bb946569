import type { ListDefinition } from '../../lists/types.js';
import { MAIL_KINDS, MAIL_STATUSES } from '../../records/mail-message.js';

/** What GET /mail-log can filter and sort (docs/api.md#mail): newest first by the (organization_id, created_at, id) index. */
export const mailList: ListDefinition = {
  name: 'mail log',
  from: 'mail m',
  alias: 'm',
  select: 'm.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'm.id' },
    status: { type: 'enum', column: 'm.status', enumValues: MAIL_STATUSES },
    kind: { type: 'enum', column: 'm.kind', enumValues: MAIL_KINDS },
    recipient: { type: 'string', column: 'm.recipient' },
    customerId: { type: 'uuid', column: 'm.customer_id' },
    createdAt: { type: 'timestamp', column: 'm.created_at' },
    sentAt: { type: 'timestamp', column: 'm.sent_at' },
  },
  sorts: {
    createdAt: { column: 'm.created_at', type: 'timestamp', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {},
};
