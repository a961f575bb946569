import type { ResourceModule } from '../../core/types.js';
import { eventRoutes } from './routes.js';

export const eventsResource: ResourceModule = {
  name: 'events',
  permissions: ['events:read'],
  description:
    'Every event the organization’s changes recorded, whether or not an endpoint subscribes to it, as its deliveries send it; POST /events/{id}/deliver (webhook-deliveries) sends one to an endpoint.',
  routes: eventRoutes,
};

/** An event's envelope as text, for a by-hand delivery of it (POST /events/{id}/deliver, in webhook-deliveries). */
export { findEventEnvelope } from './queries.js';
