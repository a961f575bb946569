import type { ResourceModule } from '../../http/types.js';
import { webhookRoutes } from './routes.js';

export const webhooksResource: ResourceModule = {
  name: 'webhooks',
  description:
    'Endpoints that receive signed event deliveries (service.md "Webhook endpoint", D22–D24), and the event catalog.',
  routes: webhookRoutes,
};
