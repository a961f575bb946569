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
      firesWhen: {
        'loyaltyMembership.created':
          'POST /loyalty-memberships (a customer joins or rejoins a program), and each membership POST /loyalty-memberships/import creates.',
        'loyaltyMembership.tierChanged':
          'A member moves between tiers: PATCH /loyalty-memberships/{id} (pinning), points that move a member up (earning, adjustments, imports), tier creation or changes that move members, membership import, and the overnight tier review.',
        'loyaltyMembership.deleted':
          'DELETE /loyalty-memberships/{id}, and each membership of a customer DELETE /customers/{id} removes (leaving a program sends none).',
      },
    },
  ],
  // Deleting a customer removes their memberships.
  cascades: membershipCascades,
};
