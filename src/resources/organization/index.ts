import type { ResourceModule } from '../../http/types.js';
import { organizationRoutes } from './routes.js';

export const organizationResource: ResourceModule = {
  name: 'organization',
  description: 'The organization the calling key belongs to: plan (rate limits) and settings.',
  routes: organizationRoutes,
};
