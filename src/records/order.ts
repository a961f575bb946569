/** The order record: its response shape, columns, mapping and events. It embeds its customer and line items. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { OrdersTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { ImportJob, Metadata, NullableTimestamp, Timestamp, Uuid } from './common.js';
import { EmbeddedCustomer } from './customer.js';
import { OrderItem } from './order-item.js';

const orderFields = {
  id: Uuid,
  siteId: Uuid,
  customerId: Uuid,
  remoteId: Type.String({ description: 'Identifier in the originating store; import matches on it.' }),
  number: Type.String(),
  totalCents: Type.Integer(),
  subtotalCents: Type.Integer(),
  shippingCents: Type.Integer(),
  taxCents: Type.Integer(),
  currencyCode: Type.String(),
  shippedAt: NullableTimestamp,
  deliveredAt: NullableTimestamp,
  cancelledAt: NullableTimestamp,
  metadata: Metadata,
  notes: Type.String({ description: 'Internal notes.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** An order embedded in another record (a survey's include=order): its own fields, none of its extras. */
export const EmbeddedOrder = Type.Object(orderFields, { $id: 'EmbeddedOrder', additionalProperties: false });

/** An order as the API and its webhooks show it: only the extras that were requested are present. */
export const Order = Type.Object(
  {
    ...orderFields,
    importJob: Type.Optional(Type.Union([ImportJob, Type.Null()])),
    itemsCount: Type.Optional(Type.Integer()),
    customer: Type.Optional(EmbeddedCustomer),
    items: Type.Optional(Type.Array(OrderItem, { description: 'Line items in order.' })),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Order', additionalProperties: false },
);
export type Order = Static<typeof Order>;

export type OrderRow = Selectable<OrdersTable>;
/** The columns toOrder reads: what an import returns from its writes (not organization_id, earn_loyalty, discount_codes). */
export const ORDER_COLUMNS = [
  'id',
  'site_id',
  'customer_id',
  'remote_id',
  'number',
  'total_cents',
  'subtotal_cents',
  'shipping_cents',
  'tax_cents',
  'currency_code',
  'shipped_at',
  'delivered_at',
  'cancelled_at',
  'metadata',
  'notes',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof OrderRow)[];
export type OrderFields = Pick<OrderRow, (typeof ORDER_COLUMNS)[number]>;

/** The one mapping from an order row to its API shape (base record, no extras). */
export const toOrder = (row: OrderFields): Order => ({
  id: row.id,
  siteId: row.site_id,
  customerId: row.customer_id,
  remoteId: row.remote_id,
  number: row.number,
  totalCents: row.total_cents,
  subtotalCents: row.subtotal_cents,
  shippingCents: row.shipping_cents,
  taxCents: row.tax_cents,
  currencyCode: row.currency_code,
  shippedAt: row.shipped_at?.toISOString() ?? null,
  deliveredAt: row.delivered_at?.toISOString() ?? null,
  cancelledAt: row.cancelled_at?.toISOString() ?? null,
  metadata: row.metadata,
  notes: row.notes,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type OrderEventName = 'order.updated' | 'order.deleted';

export const orderEvent = (organizationId: string, name: OrderEventName, row: OrderFields): EventToRecord => ({
  organizationId,
  name,
  schema: Order,
  record: toOrder(row),
});
