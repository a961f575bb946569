import type { ResourceModule } from '../../../http/types.js';
import { tierRoutes } from './routes.js';

export const loyaltyTiersResource: ResourceModule = {
  name: 'loyalty-tiers',
  description: 'Tiers of a loyalty program (D31): thresholds of qualifying points, recalculated automatically.',
  routes: tierRoutes,
};
