/** What loyalty holds under customers (docs/architecture.md#declared-cascades). */
import type { CascadeEdge } from '../../../core/cascades.js';
import { membershipEvent } from '../../../records/loyalty/membership.js';
import { CUSTOMER } from '../../../resource-kit/cascade-parents.js';
import { membershipsOfCustomer } from './queries.js';

export const membershipCascades: readonly CascadeEdge[] = [
  {
    // The customer's foreign keys remove their memberships (with their ledger and rewards) and the referrals made
    // to them; receivers hear of each membership's removal too, after customer.deleted, as service.md's
    // loyaltyMembership.deleted promises. The memberships are read before the row goes.
    parent: CUSTOMER,
    references: [
      { table: 'loyalty_memberships', column: 'customer_id' },
      { table: 'loyalty_rewards', column: 'customer_id' },
      { table: 'referrals', column: 'referred_customer_id' },
    ],
    action: 'delete',
    order: 5,
    async run(trx, organizationId, customerId) {
      const memberships = await membershipsOfCustomer(trx, organizationId, customerId);
      return {
        eventsAfterParent: memberships.map((membership) =>
          membershipEvent(organizationId, 'loyaltyMembership.deleted', membership),
        ),
      };
    },
  },
];
