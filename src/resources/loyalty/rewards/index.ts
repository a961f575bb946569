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
      firesWhen: {
        'loyaltyReward.issued':
          'POST /loyalty-rewards, POST /loyalty-memberships/{id}/claim, and a rule that grants a reward (a full stamp card, a reward offer on order import).',
        'loyaltyReward.redeemed':
          'POST /loyalty-rewards/redeem, and a reward code on an order that POST /orders/import imports.',
        'loyaltyReward.revoked': 'POST /loyalty-rewards/{id}/revoke.',
        'loyaltyReward.expired': 'The overnight loyalty job, for pending rewards whose expiresAt has passed.',
        'loyaltyReward.expiringSoon':
          "The overnight loyalty job (03:00 on the organization's clock), once per reward or credit expiring within expiringSoonDays; never a customer action.",
      },
    },
  ],
};
