import type { ResourceModule } from '../../http/types.js';
import { siteRoutes } from './routes.js';

export const sitesResource: ResourceModule = {
  name: 'sites',
  permissions: ['sites:read', 'sites:write'],
  description: "The stores the organization's data comes from (D28). Orders and product links reference them.",
  routes: siteRoutes,
};
