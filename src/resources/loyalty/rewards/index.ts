import type { ResourceModule } from '../../../core/types.js';
import { rewardRoutes } from './routes.js';
import { LoyaltyReward } from '../../../records/loyalty/reward.js';

export const loyaltyRewardsResource: ResourceModule = {
  name: 'loyalty-rewards',
  description:
    'Rewards held by loyalty members: issued by hand, claimed with points, produced by stamp cards or earning rules; redeemed by code, revoked, or expired overnight.',
  routes: rewardRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: [
        'loyaltyReward.issued',
        'loyaltyReward.redeemed',
        'loyaltyReward.revoked',
        'loyaltyReward.expired',
        'loyaltyReward.expiringSoon',
      ],
      schema: LoyaltyReward,
    },
  ],
};
