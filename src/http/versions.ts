import { Ajv } from 'ajv';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { ApiError, type ErrorDetail } from '../core/errors.js';
import type { PatronApp } from '../core/types.js';
import {
  documentForVersion,
  invalidVersion,
  isKnownVersion,
  LATEST_VERSION,
  planRoute,
  type OpenApiDocument,
  type RoutePlan,
} from '../versions/index.js';
import { validationDetails } from './validation.js';

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

  // An older version's answer is carried back from the bytes the newest schema wrote: the newest serializer (and its
  // guard on required fields) runs unchanged, and the transforms see exactly what a client of the newest version
  // reads, as the events' transforms do. Only successful JSON answers of changed routes pay for the parse.
  const checker = checkResponses ? new VersionedAnswerChecker(app) : undefined;
  app.addHook('onSend', (request, reply, payload, done) => {
    const version = request.apiVersion || askedOrNewest(request);
    reply.header('patron-version', version);
    if (version === LATEST_VERSION || reply.statusCode >= 300 || typeof payload !== 'string') {
      return done(null, payload);
    }
    const plan = request.routeOptions.config.versions?.get(version);
    if (!plan || plan.response.length === 0) return done(null, payload);
    let body = JSON.parse(payload) as unknown;
    for (const step of plan.response) body = step(body);
    const problem = checker?.check(request, reply.statusCode, body);
    if (problem) return done(problem as never);
    done(null, JSON.stringify(body));
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

/**
 * Tests' guard (docs/api.md#api-versions): an answer carried back to an older version must fit that version's own
 * document, so that a transform writing a shape the version never had fails loudly (500) instead of reaching clients.
 */
class VersionedAnswerChecker {
  private readonly validators = new Map<string, (value: unknown) => ErrorDetail[] | null>();
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

  constructor(private readonly app: PatronApp) {}

  check(request: FastifyRequest, status: number, body: unknown): Error | null {
    const version = request.apiVersion;
    const method = request.method.toLowerCase();
    const key = `${version} ${method} ${request.routeOptions.url} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const document = documentForVersion(this.app.swagger() as unknown as OpenApiDocument, version);
      const path = (request.routeOptions.url ?? '').replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[method] as
        { responses?: Record<string, { content?: Record<string, { schema?: object }> }> } | undefined;
      const schema = operation?.responses?.[String(status)]?.content?.['application/json']?.schema;
      if (!schema) return null;
      const compiled = this.ajv.compile({ ...schema, components: document.components });
      validate = (value) => (compiled(value) ? null : validationDetails(compiled.errors ?? [], 'body'));
      this.validators.set(key, validate);
    }
    const details = validate(body);
    if (!details) return null;
    return new ApiError(
      'INTERNAL_ERROR',
      `The answer transformed for API version ${version} does not fit that version's document: ${JSON.stringify(details)}`,
    );
  }
}
