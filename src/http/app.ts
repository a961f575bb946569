import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import Type from 'typebox';
import type { Config } from '../config/index.js';
import { ApiError } from './errors.js';
import type { Database } from '../db/engine.js';
import type { RateLimiter } from '../ratelimit/types.js';
import { authenticate, authorize } from './auth.js';
import { registerErrorHandling } from './error-handler.js';
import { registerHealth } from './health.js';
import { registerIdempotency } from './idempotency.js';
import { createMetrics, registerMetrics, type Metrics } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { chargeRequest } from './rate-limit.js';
import type { PatronApp, PlatformServices, ResourceModule } from './types.js';
import { validatorCompiler } from './validation.js';

export const API_PREFIX = '/v1';
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const NO_QUERY_PARAMETERS = Type.Object({}, { additionalProperties: false });

export interface AppOptions {
  config: Config;
  database: Database;
  limiter: RateLimiter;
  /** Wired in by the composition root; the platform never imports a resource. */
  resources: readonly ResourceModule[];
  logger?: FastifyServerOptions['logger'];
}

export interface BuiltApp {
  app: PatronApp;
  metrics: Metrics;
}

export async function buildApp(options: AppOptions): Promise<BuiltApp> {
  const { config, database, limiter, resources } = options;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["idempotency-key"]'],
    },
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Replaced by closeConnectionsWhenClosing, which answers in the D3 envelope.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>() as PatronApp;

  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodies(app);
  enforceRouteContract(app);
  closeConnectionsWhenClosing(app);

  const metrics = createMetrics(() => database.poolStats());
  registerErrorHandling(app, BODY_LIMIT_BYTES);
  registerMetrics(app, metrics);
  registerAccessControl(app, database, limiter, metrics);
  registerIdempotency(app, database.db);
  registerHealth(app, database);
  await registerOpenApi(app, resources);

  const services: PlatformServices = { database, db: database.db, config };
  await app.register(
    async (v1) => {
      for (const resource of resources) await resource.routes(v1 as PatronApp, services);
    },
    { prefix: API_PREFIX },
  );
  await app.ready();
  return { app, metrics };
}

/**
 * Only JSON bodies are accepted (anything else is 415). An empty body counts as no body, so actions that take
 * none can be called by clients that always send Content-Type: application/json.
 */
function registerJsonBodies(app: PatronApp): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });
}

/**
 * Shutdown waits for in-flight requests, but a keep-alive connection would then sit idle and hold the server
 * open until the client's timeout. Responses sent while closing therefore end their connection, and a request
 * arriving on such a connection after shutdown began is told to go elsewhere.
 */
function closeConnectionsWhenClosing(app: PatronApp): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // One hook for both jobs: every hook costs a few microseconds on every request.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry on another instance.', undefined, {
        'retry-after': '1',
      });
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}

/**
 * D14 order: authenticate → charge → permission, in one hook (validation and the handler follow in Fastify's
 * lifecycle). Routes without a declared permission (health, metrics, docs) are public.
 */
function registerAccessControl(app: PatronApp, database: Database, limiter: RateLimiter, metrics: Metrics): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (!config.permission) return;
    const auth = await authenticate(database.db, request);
    request.auth = auth;
    await chargeRequest(limiter, metrics, auth, config, reply);
    authorize(auth, config.permission);
  });
}

/**
 * Every /v1 route must declare its permission and cost next to its schema, and refuses unknown query
 * parameters (D4) even when it takes none.
 */
function enforceRouteContract(app: PatronApp): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    const config = route.config ?? {};
    if (!config.permission) throw new Error(`Route ${route.method} ${route.url} declares no permission`);
    if (!Number.isInteger(config.cost) || (config.cost ?? 0) < 1) {
      throw new Error(`Route ${route.method} ${route.url} declares no cost`);
    }
    route.schema = { ...route.schema, querystring: route.schema?.querystring ?? NO_QUERY_PARAMETERS };
  });
}
