import swagger from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { ErrorEnvelope } from '../core/errors.js';
import { refineDocument } from './openapi-document.js';
import { addWebhooks, WEBHOOK_TAG } from './openapi-webhooks.js';
import type { DocumentedExamples, EventCatalog, PatronApp, Refusals, ResourceModule } from '../core/types.js';
import {
  changelogText,
  documentForVersion,
  invalidVersion,
  isKnownVersion,
  LATEST_VERSION,
  VERSIONS,
  type OpenApiDocument,
} from '../versions/index.js';

const COMMON_ERRORS: Record<string, string> = {
  '400': 'VALIDATION_ERROR: the query, path or body is malformed or has unknown fields.',
  '401': 'UNAUTHORIZED: the key is missing, malformed, unknown or revoked, or the dashboard session has ended.',
  '403':
    "FORBIDDEN: the key (or the dashboard user's role) lacks the permission this endpoint requires, or a dashboard write lacks its X-CSRF-Token or comes from another Origin.",
  '429': 'TOO_MANY_REQUESTS: the organization cannot afford the cost now; see Retry-After.',
  '500': 'INTERNAL_ERROR: an unexpected fault; quote the X-Request-Id.',
  '503': 'SERVICE_UNAVAILABLE: the database is unreachable; see Retry-After.',
};
const BODY_ERRORS: Record<string, string> = {
  '413': 'PAYLOAD_TOO_LARGE: the body exceeds 10 MiB.',
  '415': 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
};
/** What an endpoint that answers only a dashboard session may answer instead (docs/api.md#dashboard-sessions). */
const SESSION_ERRORS: Record<string, string> = {
  '400': COMMON_ERRORS['400']!,
  '401': 'UNAUTHORIZED: no dashboard session cookie, or the session has ended; sign in again.',
  '403':
    "FORBIDDEN: an API key was sent (this endpoint answers only a dashboard session), the user's role lacks the permission, or a write lacks the session's X-CSRF-Token or comes from another Origin.",
  '500': COMMON_ERRORS['500']!,
  '503': COMMON_ERRORS['503']!,
};
/** What signing in may answer (docs/api.md#dashboard-sessions). */
const SIGN_IN_ERRORS: Record<string, string> = {
  '400': 'VALIDATION_ERROR: the body is malformed, or sends neither email and password nor signInToken.',
  '401': 'UNAUTHORIZED: the email or password is not right, or the sign-in link has been used or has expired.',
  '403': 'FORBIDDEN: the Origin header names another site than this server.',
  '429': 'TOO_MANY_REQUESTS: five failed sign-ins for this email within 15 minutes; see Retry-After.',
  '500': COMMON_ERRORS['500']!,
  '503': COMMON_ERRORS['503']!,
};

/** Every method but GET may carry a body, which is parsed (and refused) whatever the route does with it. */
/** What /openapi.json says of a route that acts only on test data (docs/api.md#test-mode). */
const TEST_MODE_ONLY_TEXT =
  'Test mode only: a test key (sk_test_…) or a dashboard session in test mode; a live key or session is 403.';

const METHODS_WITH_BODY = ['POST', 'PUT', 'PATCH', 'DELETE'];
const PATH_RECORD_MISSING =
  "NOT_FOUND: no record with this id in the organization (another organization's answers the same).";
const IDEMPOTENCY_CONFLICT =
  'the Idempotency-Key was already used for another request, or that request is still running';

/**
 * The error statuses an operation may answer: the common ones; 413 and 415 where a body may be sent; 404 where the path
 * names a record; 409 on every POST (Idempotency-Key: docs/api.md#idempotency-keys); and the route's own declared
 * refusals.
 */
function errorResponses(
  method: string,
  url: string,
  refusals: Refusals = {},
  access?: 'session' | 'public',
): Record<string, string> {
  const errors: Record<string, string> = {
    ...(access === 'session' ? SESSION_ERRORS : access === 'public' ? SIGN_IN_ERRORS : COMMON_ERRORS),
    ...(METHODS_WITH_BODY.includes(method) ? BODY_ERRORS : {}),
  };
  const own: Record<string, string | undefined> = { ...refusals };
  if (url.includes(':'))
    errors['404'] = own['404'] ? `${PATH_RECORD_MISSING} Also: ${own['404']}.` : PATH_RECORD_MISSING;
  else if (own['404']) errors['404'] = `NOT_FOUND: ${own['404']}.`;
  // The dashboard's own endpoints keep no Idempotency-Key answers (docs/api.md#dashboard-sessions).
  const keyed = method === 'POST' && access === undefined;
  const conflicts = [own['409'], keyed ? IDEMPOTENCY_CONFLICT : undefined].filter(Boolean);
  if (conflicts.length) errors['409'] = `CONFLICT: ${conflicts.join('; or ')}.`;
  if (own['422']) errors['422'] = `UNPROCESSABLE: ${own['422']}.`;
  if (own['429']) errors['429'] = `TOO_MANY_REQUESTS: ${own['429']}.`;
  return errors;
}

const errorResponse = (description: string) => ({ description, $ref: 'ErrorEnvelope#' });

/** OpenAPI 3.1 generated from the route schemas, with each operation's permission, cost and error responses. */
export async function registerOpenApi(
  app: PatronApp,
  resources: readonly ResourceModule[],
  eventCatalog: EventCatalog,
  examples?: DocumentedExamples,
): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Patron API',
        // The API version this document describes (docs/api.md#api-versions); ?version= serves another.
        version: LATEST_VERSION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        description:
          'Admin API for one organization\'s customer-engagement data. Authenticate with "Authorization: Bearer ' +
          'sk_…" (a live key) or "sk_test_…" (a test key, acting on the organization\'s test data). Every ' +
          'operation lists the permission it needs (x-permission) and the rate-limit tokens it ' +
          'spends (x-cost). Errors use the envelope { error: { code, message, details? } }. Versions are dates: ' +
          "send Patron-Version: <YYYY-MM-DD> to pick one (else the organization's apiVersion applies); every " +
          "answer carries the version it was served at, and GET /openapi.json?version=<date> is that version's " +
          'document (docs/api.md, "API versions").',
      },
      // Absolute and templated (docs/api.md#the-openapi-document): mock servers and generators need a whole URL, and
      // each deployment fills in its own scheme and host. /docs overrides it with the origin it was opened on.
      servers: [
        {
          url: '{scheme}://{host}/v1',
          description:
            'A Patron server in its environment (local, staging or production); the local quick start is http://127.0.0.1:3000.',
          variables: {
            scheme: { default: 'http', enum: ['http', 'https'], description: 'http, or https behind a TLS proxy.' },
            host: { default: '127.0.0.1:3000', description: 'The host and port the server is reached at.' },
          },
          // Public, not internal (for inventory checks).
          ...{ 'x-internal': false },
        },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_…' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'patron_session',
            description:
              "The dashboard's session, set by POST /session. Without an Authorization header every operation also " +
              'accepts it, never charged to the rate limit; writes need X-CSRF-Token (docs/api.md, "Dashboard sessions").',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description:
              "The session's csrfToken (POST and GET /session answer it), required with the session cookie on every " +
              'method but GET, HEAD and OPTIONS.',
          },
        },
      },
      tags: [
        ...resources.map((resource) => ({ name: resource.name, description: resource.description ?? '' })),
        WEBHOOK_TAG,
      ],
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? withVersionHeader(
            refineDocument(addWebhooks(documentObject.openapiObject, resources, eventCatalog), examples),
          )
        : documentObject.swaggerObject,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const config = (route as RouteOptions).config ?? {};
      if (!url.startsWith('/v1') || !(config.permission || config.access === 'public')) return { schema, url };
      const method = String(route.method).toUpperCase();
      const errors = errorResponses(method, url, config.refusals, config.access);
      if (config.testModeOnly) errors['403'] = `${errors['403']} Or the caller is live: ${TEST_MODE_ONLY_TEXT}`;
      if (config.documentedBody) {
        errors['413'] = `PAYLOAD_TOO_LARGE: ${config.documentedBody.tooLarge}`;
        errors['415'] = `UNSUPPORTED_MEDIA_TYPE: ${config.documentedBody.unsupported}`;
      }
      const documented = { ...(schema?.response as Record<string, unknown> | undefined) };
      for (const [status, description] of Object.entries(errors)) {
        if (!(status in documented)) documented[status] = errorResponse(description);
      }
      if (config.access) {
        const sessionOnly = config.access === 'session';
        const who = !sessionOnly
          ? 'Public: no key or session needed. Not charged to the rate limit.'
          : `Dashboard session only (an API key is 403); never charged to the rate limit. Permission: ${
              config.permission === 'any' ? 'any signed-in user' : `\`${config.permission}\``
            }.`;
        return {
          url: url.replace(/^\/v1/, ''),
          schema: {
            ...schema,
            response: documented,
            // A write needs the cookie and the CSRF token together; a read the cookie alone.
            security: !sessionOnly
              ? []
              : method === 'GET'
                ? [{ sessionCookie: [] }]
                : [{ sessionCookie: [], csrfToken: [] }],
            description: [schema?.description, who].filter(Boolean).join('\n\n'),
            ...(sessionOnly ? { 'x-permission': config.permission, 'x-session-only': true } : { 'x-public': true }),
          },
        };
      }
      const permissionText = config.permission === 'any' ? 'any valid key' : `\`${config.permission}\``;
      return {
        url: url.replace(/^\/v1/, ''),
        schema: {
          ...schema,
          ...(config.documentedBody
            ? { body: { description: config.documentedBody.description, content: config.documentedBody.content } }
            : {}),
          response: documented,
          security: [{ bearerAuth: [] }],
          description: [
            schema?.description,
            `Permission: ${permissionText}. Cost: ${config.cost ?? 1} token(s).`,
            config.testModeOnly ? TEST_MODE_ONLY_TEXT : undefined,
          ]
            .filter(Boolean)
            .join('\n\n'),
          'x-permission': config.permission,
          'x-cost': config.cost ?? 1,
          ...(config.testModeOnly ? { 'x-test-mode-only': true } : {}),
          ...(config.buckets?.length ? { 'x-rate-limit-buckets': config.buckets.map((bucket) => bucket.name) } : {}),
        },
      };
    },
  });
  // The newest version's document, or with ?version= an older one's (each built once, then kept).
  const documents = new Map<string, unknown>();
  app.get('/openapi.json', { schema: { hide: true } }, async (request) => {
    const { version } = request.query as { version?: unknown };
    if (version === undefined || version === LATEST_VERSION) return app.swagger();
    if (typeof version !== 'string' || !isKnownVersion(version)) throw invalidVersion(String(version), 'query.version');
    request.apiVersion = version;
    let document = documents.get(version);
    if (!document) {
      document = documentForVersion(app.swagger() as unknown as OpenApiDocument, version);
      documents.set(version, document);
    }
    return document;
  });
  // The changelog the Deprecation answers link to (rel="deprecation").
  const changelog = changelogText();
  app.get('/changelog', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').send(changelog),
  );
}

/**
 * Every operation documents the Patron-Version header (docs/api.md#api-versions), and the document lists the versions
 * there are (`x-api-versions`, oldest first).
 */
function withVersionHeader<T>(document: T): T {
  const openapi = document as unknown as {
    paths?: Record<string, Record<string, { parameters?: unknown[] }>>;
    components?: { parameters?: Record<string, unknown> };
    [extension: string]: unknown;
  };
  openapi.components = {
    ...openapi.components,
    parameters: {
      ...openapi.components?.parameters,
      PatronVersion: {
        name: 'Patron-Version',
        in: 'header',
        required: false,
        description: `The API version to serve the request at (YYYY-MM-DD, one of ${VERSIONS.join(', ')}); without it, the organization's apiVersion. An unknown one is 400 INVALID_VERSION. Every answer carries the version it was served at in a Patron-Version header.`,
        schema: { type: 'string', enum: [...VERSIONS] },
      },
    },
  };
  for (const methods of Object.values(openapi.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      if (!operation || typeof operation !== 'object') continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/PatronVersion' }];
    }
  }
  openapi['x-api-versions'] = [...VERSIONS];
  return document;
}
