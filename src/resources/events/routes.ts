import type { FastifyReply } from 'fastify';
import { authOf } from '../../http/auth.js';
import { versionOf } from '../../http/versions.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listEnvelope } from '../../records/envelope.js';
import { IdParams } from '../../records/common.js';
import { Event } from '../../records/event.js';
import { EventListQuery } from './schemas.js';
import { EventService, type JsonText } from './service.js';

const tags = ['events'];

/**
 * The envelopes are the database's text, answered as they are so an event reads byte for byte as its deliveries
 * send it (docs/api.md#events-api): a string with a JSON content type passes Fastify's serializer untouched, so the
 * route's schema documents the shape without rewriting it.
 */
const sendText = (reply: FastifyReply, { json }: JsonText) =>
  reply.type('application/json; charset=utf-8').send(json as never);

export function eventRoutes(app: PatronApp, { db, eventCatalog }: PlatformServices): void {
  const events = new EventService(db, eventCatalog);
  const read = { permission: 'events:read', cost: 1 };

  app.get(
    '/events',
    {
      config: read,
      schema: {
        operationId: 'listEvents',
        summary:
          'Every event of the organization, subscribed to or not, newest first, each exactly as its deliveries send it; filter on type (or a prefix like order.*), objectId and createdAt',
        tags,
        querystring: EventListQuery,
        response: { 200: listEnvelope(Event) },
      },
    },
    async (request, reply) =>
      sendText(reply, await events.list(authOf(request).organizationId, request.query, versionOf(request))),
  );

  app.get(
    '/events/:id',
    {
      config: read,
      schema: {
        operationId: 'getEvent',
        summary: 'One event, byte for byte the body its deliveries send (signatures aside)',
        tags,
        params: IdParams,
        response: { 200: Event },
      },
    },
    async (request, reply) =>
      sendText(reply, await events.get(authOf(request).organizationId, request.params.id, versionOf(request))),
  );
}
