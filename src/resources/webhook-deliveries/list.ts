import type { ListDefinition } from '../../lists/types.js';
import { DELIVERY_STATUSES } from '../../records/delivery-record.js';

/**
 * What GET /webhooks/{id}/events can filter and sort. "createdAt" orders by the endpoint's delivery sequence:
 * per endpoint it follows creation (commit) order exactly, whereas deliveries recorded in one transaction share
 * one created_at. It is also the index (organization_id, webhook_id, sequence) the page reads.
 */
export const deliveryList: ListDefinition = {
  name: 'webhook deliveries',
  // The view composes the envelope of a recorded event's delivery from the event (migration 0011).
  from: 'webhook_delivery_records d',
  alias: 'd',
  select: 'd.*',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'd.id' },
    status: { type: 'enum', column: 'd.status', enumValues: DELIVERY_STATUSES },
    eventName: { type: 'string', column: 'd.event_name' },
    idempotencyKey: { type: 'string', column: 'd.idempotency_key' },
    createdAt: { type: 'timestamp', column: 'd.created_at' },
  },
  sorts: {
    createdAt: { column: 'd.sequence', type: 'integer', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {},
};

/**
 * The same list with the endpoint as a field, for the service to scope a page to one endpoint through the engine's
 * filter (ANDed with the caller's filter, which is checked against deliveryList first so its errors read as sent).
 */
export const scopedDeliveryList: ListDefinition = {
  ...deliveryList,
  fields: { ...deliveryList.fields, webhookId: { type: 'uuid', column: 'd.webhook_id' } },
};
