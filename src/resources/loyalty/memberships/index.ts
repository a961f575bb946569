import type { ResourceModule } from '../../../http/types.js';
import { membershipRoutes } from './routes.js';

export const loyaltyMembershipsResource: ResourceModule = {
  name: 'loyalty-memberships',
  description: 'Loyalty memberships (D31, D34): joining, leaving and rejoining, tier pinning, import.',
  routes: membershipRoutes,
};
