import type { ResourceModule } from '../../core/types.js';
import { deliveryRoutes, type DeliveryRouteOptions } from './routes.js';

/** A factory so tests can trust their loopback receiver's certificate; production uses the default. */
export function createWebhookDeliveriesResource(options: DeliveryRouteOptions = {}): ResourceModule {
  return {
    name: 'webhook-deliveries',
    description:
      "The delivery log of each webhook endpoint, and deliveries sent by hand: resend, test ping and the recovery of a receiver's outage.",
    routes: deliveryRoutes(options),
  };
}

export const webhookDeliveriesResource = createWebhookDeliveriesResource();
