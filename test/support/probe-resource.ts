import { sql } from 'kysely';
import Type from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { authOf } from '../../src/http/auth.js';
import type { ResourceModule } from '../../src/core/types.js';
import { recordEvent } from '../../src/events/outbox.js';
import { ENDPOINT_BUCKETS } from '../../src/ratelimit/buckets.js';

/** Public shape of a probe "thing": the serializer drops anything else, like an API response does. */
export const Thing = Type.Object(
  { id: Type.String({ format: 'uuid' }), name: Type.String(), createdAt: Type.String({ format: 'date-time' }) },
  { additionalProperties: false },
);

export interface ProbeState {
  handled: number;
  failNext: boolean;
  /** Requests to /probe/slow that reached their handler (so a test knows one is in flight). */
  sleeping?: number;
}

/**
 * A resource module used only by tests: it plugs into the platform exactly like a real resource (no platform
 * change), and exposes routes with every cost, an endpoint bucket, a throwing route, a dangling write and a slow one.
 */
export function probeResource(state: ProbeState = { handled: 0, failNext: false }): ResourceModule {
  return {
    name: 'probe',
    permissions: ['probe:read'],
    routes(app, { db }) {
      app.get(
        '/probe',
        {
          config: { permission: 'products:read', cost: 1 },
          schema: {
            querystring: Type.Object(
              {
                limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
                at: Type.Optional(Type.String({ format: 'date-time' })),
              },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => {
          state.handled++;
          return { ok: true, limit: request.query.limit ?? null };
        },
      );
      app.get('/probe/cost5', { config: { permission: 'products:read', cost: 5 } }, async () => {
        state.handled++;
        return { ok: true };
      });
      app.get('/probe/cost10', { config: { permission: 'products:read', cost: 10 } }, async () => {
        state.handled++;
        return { ok: true };
      });
      app.post(
        '/probe/loyalty-events',
        { config: { permission: 'loyalty:write', cost: 1, buckets: [ENDPOINT_BUCKETS.loyaltyEvents] } },
        async () => {
          state.handled++;
          return { ok: true };
        },
      );
      app.get(
        '/probe/things/:id',
        {
          config: { permission: 'products:read', cost: 1 },
          schema: { params: Type.Object({ id: Type.String({ format: 'uuid' }) }) },
        },
        async (_request, reply) =>
          reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'The thing was not found.' } }),
      );
      // A write that refers to a record that does not exist (as when it is deleted while a request works).
      app.post('/probe/dangling', { config: { permission: 'any', cost: 1 } }, async (request) => {
        const { organizationId } = authOf(request);
        await sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type)
          values (${organizationId}::uuid, ${uuidv7()}::uuid, ${uuidv7()}::uuid, ${uuidv7()}::uuid, 'probe')`.execute(
          db,
        );
        return { ok: true };
      });
      app.get('/probe/boom', { config: { permission: 'any', cost: 1 } }, async () => {
        throw new Error('relation "secret_table" does not exist at SELECT * FROM secret_table');
      });
      app.get(
        '/probe/slow',
        {
          config: { permission: 'any', cost: 1 },
          schema: {
            querystring: Type.Object(
              { ms: Type.Integer({ minimum: 0, maximum: 10_000 }) },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => {
          state.sleeping = (state.sleeping ?? 0) + 1;
          await new Promise((resolve) => setTimeout(resolve, request.query.ms));
          return { slept: request.query.ms };
        },
      );
      app.post(
        '/probe/things',
        {
          config: {
            permission: 'products:write',
            cost: 1,
            refusals: { 409: 'a thing with this name exists', 422: 'the name refers to nothing' },
          },
          schema: {
            body: Type.Object(
              {
                name: Type.String({ minLength: 1, maxLength: 100 }),
                count: Type.Optional(Type.Integer({ minimum: 0 })),
              },
              { additionalProperties: false },
            ),
            response: { 201: Thing },
          },
        },
        async (request, reply) => {
          state.handled++;
          if (state.failNext) {
            state.failNext = false;
            throw new Error('transient failure');
          }
          const organizationId = authOf(request).organizationId;
          const thing = { id: uuidv7(), name: request.body.name, createdAt: new Date(), internal: 'never serialized' };
          await db.transaction().execute(async (trx) => {
            // Stands in for storing the name in a text column (PostgreSQL refuses NUL characters there).
            await sql`select ${thing.name}::text`.execute(trx);
            await recordEvent(trx, { organizationId, name: 'probe.created', schema: Thing, record: thing });
          });
          return reply.code(201).send(thing as never);
        },
      );
    },
  };
}
