import type { ResourceModule } from '../../../core/types.js';
import { membershipRoutes } from './routes.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { membershipCascades } from './cascades.js';

export const loyaltyMembershipsResource: ResourceModule = {
  name: 'loyalty-memberships',
  description: 'Loyalty memberships: joining, leaving and rejoining, tier pinning, import.',
  routes: membershipRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyMembership.created', 'loyaltyMembership.tierChanged', 'loyaltyMembership.deleted'],
      schema: LoyaltyMembership,
    },
  ],
  // Deleting a customer removes their memberships.
  cascades: membershipCascades,
};
