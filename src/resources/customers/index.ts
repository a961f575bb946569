import type { ResourceModule } from '../../http/types.js';
import { customerRoutes } from './routes.js';

export const customersResource: ResourceModule = {
  name: 'customers',
  permissions: ['customers:read', 'customers:write'],
  description:
    'Customers mirrored from the store (D29). Identity fields come through import; metadata, notes, tags and the email opt-out are editable.',
  routes: customerRoutes,
};

/** Analytics: the list whose filter analytics queries take. */
export { customerList } from './list.js';
