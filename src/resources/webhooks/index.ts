import type { ResourceModule } from '../../core/types.js';
import { webhookRoutes } from './routes.js';
import { WebhookEndpoint } from '../../records/webhook-endpoint.js';

export const webhooksResource: ResourceModule = {
  name: 'webhooks',
  description: 'Endpoints that receive signed event deliveries (service.md "Webhook endpoint"), and the event catalog.',
  routes: webhookRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['webhook.created', 'webhook.updated', 'webhook.deleted'],
      schema: WebhookEndpoint,
      firesWhen:
        'POST /webhooks (created), PUT /webhooks/{id} and POST /webhooks/{id}/rotate-secret (updated), DELETE /webhooks/{id} (deleted).',
    },
  ],
};
