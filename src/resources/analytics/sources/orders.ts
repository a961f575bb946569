import { sql } from 'kysely';
import type { AnalyticsSource } from '../types.js';
import { customerCountry, date, tagsDimension, text, uuid } from './common.js';
import { orderList } from '../../orders/index.js';

export const ordersSource: AnalyticsSource = {
  resource: 'orders',
  description: 'Orders mirrored from the store. Filter: the document of GET /orders.',
  list: orderList,
  measures: {
    count: { kind: 'count', description: 'Number of orders.' },
    revenue: {
      kind: 'sum',
      value: 'o.total_cents',
      description:
        'Sum of totalCents, in cents, of the orders selected (cancelled ones too, unless the filter leaves them out with ' +
        '{"cancelledAt": null}). Amounts are added as stored, whatever their currency: group by currencyCode when an ' +
        'organization sells in several.',
    },
    averageOrderValue: {
      kind: 'average',
      value: 'o.total_cents',
      description: 'revenue / count: the mean totalCents in cents (a fraction of a cent is kept); null without orders.',
    },
    uniqueCustomers: {
      kind: 'distinct',
      value: 'o.customer_id',
      description: 'Number of distinct customers who placed the orders.',
    },
  },
  dimensions: {
    createdAt: date('o.created_at', 'When the order was placed (in the store).', false),
    updatedAt: date('o.updated_at', 'When the order last changed.', false),
    shippedAt: date('o.shipped_at', 'When the order shipped; null while unshipped.'),
    deliveredAt: date('o.delivered_at', 'When the order was delivered; null until then.'),
    cancelledAt: date('o.cancelled_at', 'When the order was cancelled; null unless it was.'),
    currencyCode: text('o.currency_code', 'The currency of the order amounts (ISO 4217).', false),
    siteId: uuid('o.site_id', 'The site (store) the order came from.', false),
    'customer.id': uuid('o.customer_id', 'The customer who placed the order.', false),
    'customer.country': customerCountry('order'),
    'items.productId': {
      type: 'uuid',
      column: 'order_products.product_id',
      nullable: true,
      many: {
        name: 'orderProducts',
        // Distinct per order: an order with two variants of one product counts once under that product.
        join: (organizationId) => sql`left join (
          select distinct oi.order_id, oi.product_id from order_items oi where oi.organization_id = ${organizationId}
        ) order_products on order_products.order_id = o.id`,
      },
      description:
        'A product sold in the order. An order counts once under each of its products; one without items under null.',
    },
    'tags.name': tagsDimension('order', 'o.id', 'order'),
  },
  metadata: {
    column: 'o.metadata',
    description: "The value of one key of the order's metadata; null where the key is absent.",
  },
};
