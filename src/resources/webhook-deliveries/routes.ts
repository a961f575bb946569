import { createSecretBox } from '../../core/secret-box.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { WebhookSender } from '../../jobs/dispatcher/sender.js';
import { listQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { IdParams } from '../../records/common.js';
import { deliveryList } from './list.js';
import { DeliverEventBody, DeliveryParams, RecoverBody, RecoverResult } from './schemas.js';
import { WebhookDelivery } from '../../records/delivery-record.js';
import { WebhookDeliveryService } from './service.js';

const tags = ['webhook-deliveries'];

export interface DeliveryRouteOptions {
  /** Test only: certificates to trust for receivers (production uses NODE_EXTRA_CA_CERTS). */
  ca?: string | string[] | undefined;
}

export function deliveryRoutes(options: DeliveryRouteOptions = {}) {
  return (app: PatronApp, { db, config }: PlatformServices): void => {
    const sender = new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      policy: { allowHttp: config.allowHttpWebhooks, allowPrivateHosts: config.webhookAllowPrivateHosts },
      ca: options.ca,
    });
    app.addHook('onClose', () => sender.close());
    const deliveries = new WebhookDeliveryService(
      db,
      sender,
      config.secretKey ? createSecretBox(config.secretKey) : null,
    );
    const read = { permission: 'webhooks:read', cost: 1 };
    const write = { permission: 'webhooks:write', cost: 1 };

    app.get(
      '/webhooks/:id/events',
      {
        config: read,
        schema: {
          operationId: 'listWebhookDeliveries',
          summary:
            "The endpoint's delivery log, newest first, with payloads and errors; filter on status and eventName",
          tags,
          params: IdParams,
          querystring: listQuerySchema(deliveryList),
          response: { 200: listEnvelope(WebhookDelivery) },
        },
      },
      async (request) => deliveries.list(authOf(request).organizationId, request.params.id, request.query),
    );

    app.post(
      '/webhooks/:id/events/:deliveryId/resend',
      {
        config: { ...write, refusals: { 409: 'the endpoint is inactive' } },
        schema: {
          operationId: 'resendWebhookDelivery',
          summary: 'Send a delivery again now (a new record with the same idempotencyKey); answers with its outcome',
          tags,
          params: DeliveryParams,
          response: { 201: WebhookDelivery },
        },
      },
      async (request, reply) => {
        const delivery = await deliveries.resend(
          authOf(request).organizationId,
          request.params.id,
          request.params.deliveryId,
        );
        return reply.code(201).send(delivery);
      },
    );

    app.post(
      '/webhooks/:id/recover',
      {
        config: { permission: 'webhooks:write', cost: 5, refusals: { 409: 'the endpoint is inactive' } },
        schema: {
          operationId: 'recoverWebhookDeliveries',
          summary:
            "Queue again every failed delivery since a time (after a receiver's outage): new records with the same idempotencyKey, in order",
          tags,
          params: IdParams,
          body: RecoverBody,
          response: { 202: RecoverResult },
        },
      },
      async (request, reply) => {
        const result = await deliveries.recover(authOf(request).organizationId, request.params.id, request.body.since);
        return reply.code(202).send(result);
      },
    );

    app.post(
      '/events/:id/deliver',
      {
        config: {
          ...write,
          refusals: {
            409: 'the endpoint is inactive',
            422: 'the webhook endpoint does not exist in this organization',
          },
        },
        schema: {
          operationId: 'deliverEvent',
          summary:
            'Send a past event now to one endpoint, whether or not it subscribes to its type: a new, signed delivery (requested: true); answers with its outcome',
          tags: ['events'],
          params: IdParams,
          body: DeliverEventBody,
          response: { 201: WebhookDelivery },
        },
      },
      async (request, reply) => {
        const delivery = await deliveries.deliverEvent(
          authOf(request).organizationId,
          request.params.id,
          request.body.webhookEndpointId,
        );
        return reply.code(201).send(delivery);
      },
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { ...write, refusals: { 409: 'the endpoint is inactive' } },
        schema: {
          operationId: 'testWebhook',
          summary:
            'Send a webhook.test ping now (data: the endpoint); answers with the delivery record and its outcome',
          tags,
          params: IdParams,
          response: { 201: WebhookDelivery },
        },
      },
      async (request, reply) => {
        const delivery = await deliveries.test(authOf(request).organizationId, request.params.id);
        return reply.code(201).send(delivery);
      },
    );
  };
}
