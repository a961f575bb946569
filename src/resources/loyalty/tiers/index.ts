import type { ResourceModule } from '../../../core/types.js';
import { tierRoutes } from './routes.js';
import { LoyaltyTier } from '../../../records/loyalty/tier.js';

export const loyaltyTiersResource: ResourceModule = {
  name: 'loyalty-tiers',
  description: 'Tiers of a loyalty program: thresholds of qualifying points, recalculated automatically.',
  routes: tierRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyTier.created', 'loyaltyTier.updated', 'loyaltyTier.deleted'],
      schema: LoyaltyTier,
      firesWhen: 'POST, PATCH and DELETE on /loyalty-tiers.',
    },
  ],
};
