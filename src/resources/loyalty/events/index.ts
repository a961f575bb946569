import type { ResourceModule } from '../../../http/types.js';
import { bulkExpireRoute } from '../activity/routes.js';
import { earningRoutes } from './routes.js';

/**
 * The OpenAPI tag "loyalty-earning": POST /loyalty-events, /loyalty-stamps, /loyalty-history and the bulk expiry of
 * GET /loyalty-activity's selection, registered in the order the API document lists them.
 */
export const loyaltyEarningResource: ResourceModule = {
  name: 'loyalty-earning',
  description:
    'Earning (POST /loyalty-events, /loyalty-stamps; orders earn on import), historical ledger import and bulk expiry of points.',
  routes: (app, services) => {
    earningRoutes(app, services);
    bulkExpireRoute(app, services);
  },
};
