import type { ResourceModule } from '../../../http/types.js';
import { pointsRoutes } from './routes.js';

export const loyaltyPointsResource: ResourceModule = {
  name: 'loyalty-points',
  description: 'The points ledger (D31): balance adjustments and GET /loyalty-activity.',
  routes: pointsRoutes,
};
