import type { ResourceModule } from '../../core/types.js';
import { ORGANIZATION_WRITE, organizationRoutes } from './routes.js';

export const organizationResource: ResourceModule = {
  name: 'organization',
  permissions: [ORGANIZATION_WRITE],
  description: 'The organization the calling key belongs to: plan (rate limits) and settings.',
  routes: organizationRoutes,
};
