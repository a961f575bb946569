/** What orders hold under customers and sites (docs/architecture.md#declared-cascades). */
import { conflict } from '../../core/errors.js';
import type { Executor } from '../../db/executor.js';
import type { CascadeEdge } from '../../core/cascades.js';
import { CUSTOMER, SITE } from '../../resource-kit/cascade-parents.js';

const countOrders = async (trx: Executor, organizationId: string, column: 'customer_id' | 'site_id', id: string) =>
  Number(
    (
      await trx
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('organization_id', '=', organizationId)
        .where(column, '=', id)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const orderCascades: readonly CascadeEdge[] = [
  {
    // A customer with orders stays (409): every order references its customer.
    parent: CUSTOMER,
    references: [{ table: 'orders', column: 'customer_id' }],
    action: 'restrict',
    order: 0,
    async run(trx, organizationId, customerId) {
      const orders = await countOrders(trx, organizationId, 'customer_id', customerId);
      if (orders > 0) {
        throw conflict(
          `The customer has ${orders} order${orders === 1 ? '' : 's'}; delete ${orders === 1 ? 'it' : 'them'} first, since every order references its customer.`,
        );
      }
    },
  },
  {
    // A site with orders stays (409): every order keeps its site. The site is locked first, so no order is written
    // against it between the count and the delete.
    parent: SITE,
    references: [{ table: 'orders', column: 'site_id' }],
    action: 'restrict',
    order: 0,
    async run(trx, organizationId, siteId) {
      const orders = await countOrders(trx, organizationId, 'site_id', siteId);
      if (orders > 0) {
        throw conflict(
          `The site is used by ${orders} order${orders === 1 ? '' : 's'}; delete ${orders === 1 ? 'it' : 'them'} first, since every order keeps its site.`,
        );
      }
    },
  },
];
