import type { ResourceModule } from '../../../http/types.js';
import { earningRoutes } from './routes.js';

export const loyaltyEarningResource: ResourceModule = {
  name: 'loyalty-earning',
  description:
    'Earning (POST /loyalty-events, /loyalty-stamps; orders earn on import), historical ledger import and bulk expiry of points.',
  routes: earningRoutes,
};
