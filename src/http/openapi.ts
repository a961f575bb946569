import swagger from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { ErrorEnvelope } from './errors.js';
import { refineDocument } from './openapi-document.js';
import { addWebhooks, WEBHOOK_TAG } from './openapi-webhooks.js';
import type { DocumentedExamples, PatronApp, Refusals, ResourceModule } from './types.js';

const COMMON_ERRORS: Record<string, string> = {
  '400': 'VALIDATION_ERROR: the query, path or body is malformed or has unknown fields.',
  '401': 'UNAUTHORIZED: the key is missing, malformed, unknown or revoked.',
  '403': 'FORBIDDEN: the key lacks the permission this endpoint requires.',
  '429': 'TOO_MANY_REQUESTS: the organization cannot afford the cost now; see Retry-After.',
  '500': 'INTERNAL_ERROR: an unexpected fault; quote the X-Request-Id.',
  '503': 'SERVICE_UNAVAILABLE: the database is unreachable; see Retry-After.',
};
const BODY_ERRORS: Record<string, string> = {
  '413': 'PAYLOAD_TOO_LARGE: the body exceeds 10 MiB.',
  '415': 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
};
/** Every method but GET may carry a body, which is parsed (and refused) whatever the route does with it. */
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
function errorResponses(method: string, url: string, refusals: Refusals = {}): Record<string, string> {
  const errors: Record<string, string> = {
    ...COMMON_ERRORS,
    ...(METHODS_WITH_BODY.includes(method) ? BODY_ERRORS : {}),
  };
  const own: Record<string, string | undefined> = { ...refusals };
  if (url.includes(':'))
    errors['404'] = own['404'] ? `${PATH_RECORD_MISSING} Also: ${own['404']}.` : PATH_RECORD_MISSING;
  else if (own['404']) errors['404'] = `NOT_FOUND: ${own['404']}.`;
  const conflicts = [own['409'], method === 'POST' ? IDEMPOTENCY_CONFLICT : undefined].filter(Boolean);
  if (conflicts.length) errors['409'] = `CONFLICT: ${conflicts.join('; or ')}.`;
  if (own['422']) errors['422'] = `UNPROCESSABLE: ${own['422']}.`;
  return errors;
}

const errorResponse = (description: string) => ({ description, $ref: 'ErrorEnvelope#' });

/** OpenAPI 3.1 generated from the route schemas, with each operation's permission, cost and error responses. */
export async function registerOpenApi(
  app: PatronApp,
  resources: readonly ResourceModule[],
  examples?: DocumentedExamples,
): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Patron API',
        version: '1.0.0',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        description:
          'Admin API for one organization\'s customer-engagement data. Authenticate with "Authorization: Bearer ' +
          'sk_…". Every operation lists the permission it needs (x-permission) and the rate-limit tokens it ' +
          'spends (x-cost). Errors use the envelope { error: { code, message, details? } }.',
      },
      // Relative, so the document and /docs work from whatever host and scheme served them.
      servers: [
        {
          url: '/v1',
          description: 'This server: the environment (local, staging or production) that served this document.',
          // Public, not internal (for inventory checks).
          ...{ 'x-internal': false },
        },
      ],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_…' } } },
      tags: [
        ...resources.map((resource) => ({ name: resource.name, description: resource.description ?? '' })),
        WEBHOOK_TAG,
      ],
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? refineDocument(addWebhooks(documentObject.openapiObject, resources), examples)
        : documentObject.swaggerObject,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const config = (route as RouteOptions).config ?? {};
      if (!config.permission || !url.startsWith('/v1')) return { schema, url };
      const method = String(route.method).toUpperCase();
      const errors = errorResponses(method, url, config.refusals);
      if (config.documentedBody) {
        errors['413'] = `PAYLOAD_TOO_LARGE: ${config.documentedBody.tooLarge}`;
        errors['415'] = `UNSUPPORTED_MEDIA_TYPE: ${config.documentedBody.unsupported}`;
      }
      const documented = { ...(schema?.response as Record<string, unknown> | undefined) };
      for (const [status, description] of Object.entries(errors)) {
        if (!(status in documented)) documented[status] = errorResponse(description);
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
          description: [schema?.description, `Permission: ${permissionText}. Cost: ${config.cost ?? 1} token(s).`]
            .filter(Boolean)
            .join('\n\n'),
          'x-permission': config.permission,
          'x-cost': config.cost ?? 1,
          ...(config.buckets?.length ? { 'x-rate-limit-buckets': config.buckets.map((bucket) => bucket.name) } : {}),
        },
      };
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
