import type { ResourceModule } from '../../core/types.js';
import { analyticsRoutes } from './routes.js';

export const analyticsResource: ResourceModule = {
  name: 'analytics',
  description: 'Chart-ready aggregation over the eight resources.',
  routes: analyticsRoutes,
};
