import type { ResourceModule } from '../../http/types.js';
import { tagRoutes } from './routes.js';

export const tagsResource: ResourceModule = {
  name: 'tags',
  // Customer tags need the customers permissions; service.md names only the other two families.
  permissions: ['customers:read', 'customers:write'],
  description:
    'Tag records of products, orders and customers. Tags are created by tagging records; here they are listed, renamed and deleted.',
  routes: tagRoutes,
};
