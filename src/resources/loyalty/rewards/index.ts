import type { ResourceModule } from '../../../http/types.js';
import { rewardRoutes } from './routes.js';

export const loyaltyRewardsResource: ResourceModule = {
  name: 'loyalty-rewards',
  description:
    'Rewards held by loyalty members: issued by hand, claimed with points, produced by stamp cards or earning rules; redeemed by code, revoked, or expired overnight.',
  routes: rewardRoutes,
};
