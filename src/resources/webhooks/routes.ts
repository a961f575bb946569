import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { IdParams } from '../../records/common.js';
import { webhookList } from './list.js';
import { WebhookBody, WebhookEventCatalog } from './schemas.js';
import { WebhookEndpoint, WebhookEndpointRotated, WebhookEndpointSaved } from '../../records/webhook-endpoint.js';
import { WebhookService } from './service.js';

const tags = ['webhooks'];

export function webhookRoutes(app: PatronApp, { db, config, eventCatalog }: PlatformServices): void {
  const webhooks = new WebhookService(db, config, eventCatalog);
  const read = { permission: 'webhooks:read', cost: 1 };
  const write = { permission: 'webhooks:write', cost: 1 };
  // Answers that can carry a generated secret are stored sealed for Idempotency-Key replays.
  const writeShowingSecret = { ...write, sealStoredAnswer: webhooks.box ?? undefined };

  app.get(
    '/webhook-events',
    {
      config: read,
      schema: {
        operationId: 'listWebhookEvents',
        summary: 'Every event name a webhook endpoint can subscribe to, with when it fires (not paged)',
        tags,
        response: { 200: WebhookEventCatalog },
      },
    },
    async () => webhooks.catalog(),
  );

  app.get(
    '/webhooks',
    {
      config: read,
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints, newest first by default',
        tags,
        querystring: listQuerySchema(webhookList),
        response: { 200: listEnvelope(WebhookEndpoint) },
      },
    },
    async (request) => webhooks.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/webhooks',
    {
      config: writeShowingSecret,
      schema: {
        operationId: 'createWebhook',
        summary:
          'Create a webhook endpoint (url and events required; isActive defaults to true; generateSecret answers a new secret once); triggers webhook.created',
        tags,
        body: WebhookBody,
        response: { 201: WebhookEndpointSaved },
      },
    },
    async (request, reply) => {
      const endpoint = await webhooks.create(authOf(request).organizationId, request.body);
      return reply.code(201).send(endpoint);
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config: read,
      schema: {
        operationId: 'getWebhook',
        summary: 'One webhook endpoint',
        tags,
        params: IdParams,
        response: { 200: WebhookEndpoint },
      },
    },
    async (request) => webhooks.get(authOf(request).organizationId, request.params.id),
  );

  app.put(
    '/webhooks/:id',
    {
      config: write,
      schema: {
        operationId: 'updateWebhook',
        summary:
          'Change a webhook endpoint: fields sent replace, fields left out keep (hmacSecret null removes it; generateSecret answers a new one once); triggers webhook.updated',
        tags,
        params: IdParams,
        body: WebhookBody,
        response: { 200: WebhookEndpointSaved },
      },
    },
    async (request) => webhooks.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: writeShowingSecret,
      schema: {
        operationId: 'rotateWebhookSecret',
        summary:
          'Replace the secret with a new generated one, answered once; for 24 hours deliveries are signed under both; triggers webhook.updated',
        tags,
        params: IdParams,
        response: { 200: WebhookEndpointRotated },
      },
    },
    async (request) => webhooks.rotateSecret(authOf(request).organizationId, request.params.id),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteWebhook',
        summary:
          'Delete a webhook endpoint and its delivery log (to pause instead, set isActive false); triggers webhook.deleted',
        tags,
        params: IdParams,
        response: { 200: WebhookEndpoint },
      },
    },
    async (request) => webhooks.delete(authOf(request).organizationId, request.params.id),
  );
}
