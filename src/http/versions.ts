import type { FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { PatronApp } from '../core/types.js';
import { invalidVersion, isKnownVersion, LATEST_VERSION, planRoute, type RoutePlan } from '../versions/index.js';
import { compileBodyValidator } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's plans per older API version (src/versions), set when it is registered; none outside /v1. */
    versions?: ReadonlyMap<string, RoutePlan>;
  }
  interface FastifyRequest {
    /** The API version the request is served at, once resolved ('' before: docs/api.md#api-versions). */
    apiVersion: string;
  }
}

export interface VersionLayerOptions {
  /**
   * Checks every transformed answer against the route's response schema and fails the request (500) when it does not
   * fit: on in tests, so that a transform that writes a shape the older version never had fails loudly there.
   */
  checkResponses?: boolean;
}

const VERSION_HEADER = 'patron-version';

/**
 * Dated API versions (docs/api.md#api-versions). Each /v1 route gets its plans when it is registered (which changes
 * touch it, per older version). Per request: the version is resolved (the Patron-Version header, else the key's
 * organization's default, else the newest) before validation, where a request written for an older version is carried
 * forward to the newest shape; a successful answer is carried back before it is serialized; every answer says the
 * version it was served at. At the newest version each hook is a comparison and a header.
 */
export function registerVersions(app: PatronApp, { checkResponses = false }: VersionLayerOptions = {}): void {
  app.decorateRequest('apiVersion', '');
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith('/v1')) return;
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    const plans = planRoute({ method: method.toUpperCase(), url: route.url, querystring: route.schema?.querystring });
    route.config = { ...route.config, versions: plans };
  });

  app.addHook('preValidation', (request, reply, done) => {
    const plans = request.routeOptions.config.versions;
    if (!plans) return done();
    let version: string;
    try {
      version = resolveVersion(request);
    } catch (error) {
      return done(error as Error);
    }
    request.apiVersion = version;
    if (version === LATEST_VERSION) return done();
    const plan = plans.get(version);
    if (!plan) return done();
    reply.headers(plan.deprecationHeaders);
    if (plan.request.length > 0) {
      const parts = { query: (request.query ?? {}) as Record<string, unknown>, body: request.body };
      for (const step of plan.request) step(parts);
    }
    done();
  });

  app.addHook('preSerialization', (request, reply, payload, done) => {
    const version = request.apiVersion;
    if (version === LATEST_VERSION || version === '' || reply.statusCode >= 300) return done(null, payload);
    const plan = request.routeOptions.config.versions?.get(version);
    if (!plan || plan.response.length === 0) return done(null, payload);
    let body: unknown = payload;
    for (const step of plan.response) body = step(body);
    if (checkResponses) {
      const problem = checkAnswer(request, reply.statusCode, body);
      if (problem) return done(problem as never);
    }
    done(null, body);
  });

  // Every answer, errors and 401s included: the version served, or (when none was resolved) the one asked for if it
  // is known, else the newest.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('patron-version', request.apiVersion || askedOrNewest(request));
    done(null, payload);
  });
}

/** Header, else the key's organization's default, else the newest (a dashboard session: the header or the newest). */
function resolveVersion(request: FastifyRequest): string {
  const asked = request.headers[VERSION_HEADER];
  if (asked !== undefined) {
    if (typeof asked !== 'string' || !isKnownVersion(asked)) throw invalidVersion(String(asked));
    return asked;
  }
  return request.auth?.apiVersion ?? LATEST_VERSION;
}

function askedOrNewest(request: FastifyRequest): string {
  const asked = request.headers[VERSION_HEADER];
  return typeof asked === 'string' && isKnownVersion(asked) ? asked : LATEST_VERSION;
}

/** The version a request is served at, for code that renders for it (the events API); the newest outside /v1. */
export const versionOf = (request: FastifyRequest): string => request.apiVersion || LATEST_VERSION;

const validators = new WeakMap<object, (value: unknown) => unknown>();

function checkAnswer(request: FastifyRequest, status: number, body: unknown): Error | null {
  const schema = (request.routeOptions.schema?.response as Record<string, object> | undefined)?.[String(status)];
  if (!schema) return null;
  let validate = validators.get(schema);
  if (!validate) {
    validate = compileBodyValidator(
      JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as object,
    );
    validators.set(schema, validate);
  }
  const details = validate(body);
  if (!details) return null;
  return new ApiError(
    'INTERNAL_ERROR',
    `The answer transformed for API version ${request.apiVersion} does not fit its schema: ${JSON.stringify(details)}`,
  );
}
