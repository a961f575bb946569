/** What surveys hold under orders and customers (docs/architecture.md#declared-cascades). */
import type { CascadeEdge } from '../../core/cascades.js';
import { CUSTOMER, ORDER } from '../../resource-kit/cascade-parents.js';
import { deleteSurveys } from './service.js';

export const surveyCascades: readonly CascadeEdge[] = [
  {
    // A deleted order's surveys go with it (survey.deleted each; requests not sent yet are withdrawn), before the
    // order's event.
    parent: ORDER,
    references: [{ table: 'surveys', column: 'order_id' }],
    action: 'delete',
    order: 10,
    run: async (trx, organizationId, orderId) => ({
      events: await deleteSurveys(trx, organizationId, { orderIds: [orderId] }),
    }),
  },
  {
    // Every survey is for an order, and a customer with orders is not deleted: the foreign key's cascade is a
    // backstop that sends nothing.
    parent: CUSTOMER,
    references: [{ table: 'surveys', column: 'customer_id' }],
    action: 'foreign-key',
    order: 50,
  },
];
