import type { FastifyError, FastifyRequest } from 'fastify';
import {
  isDatabaseUnavailable,
  isDateTimeOutOfRange,
  isForeignKeyViolation,
  isNulCharacter,
  isTransientConflict,
  isUniqueViolation,
} from '../db/errors.js';
import { requestLabels } from './auth.js';
import { ApiError, type ErrorCode } from '../core/errors.js';
import type { PatronApp } from '../core/types.js';
import { summarize, validationDetails } from './validation.js';

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

const RETRY_AFTER_DATABASE_SECONDS = '5';

/**
 * Maps anything thrown while serving a request to the error envelope (docs/api.md#error-envelope). Nothing internal
 * ever reaches the caller.
 */
export function toApiError(error: unknown, request: FastifyRequest, bodyLimit: number): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown };
  if (Array.isArray(fastifyError.validation)) {
    const details = validationDetails(fastifyError.validation, fastifyError.validationContext);
    return new ApiError('VALIDATION_ERROR', summarize(details), details);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', `The request body exceeds the ${formatBytes(bodyLimit)} limit.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type ${JSON.stringify(request.headers['content-type'] ?? '(none)')} is not supported: send JSON with Content-Type: application/json.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('VALIDATION_ERROR', 'The Content-Length header does not match the body that was sent.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('VALIDATION_ERROR', 'The request URL is malformed.');
  }
  if (
    error instanceof SyntaxError ||
    (fastifyError.statusCode === 400 && /JSON|prototype|constructor/i.test(fastifyError.message ?? ''))
  ) {
    return new ApiError(
      'VALIDATION_ERROR',
      `The request body is not valid JSON: ${fastifyError.message ?? 'parse error'}.`,
      [{ path: 'body', message: 'is not valid JSON' }],
    );
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly.', undefined, {
      'retry-after': RETRY_AFTER_DATABASE_SECONDS,
    });
  }
  if (isTransientConflict(error)) {
    // Still losing to concurrent transactions after src/db/retry.ts ran it again: nothing was applied.
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'The request kept colliding with concurrent changes to the same records and was not applied; retry it.',
      undefined,
      { 'retry-after': '1' },
    );
  }
  if (isNulCharacter(error)) {
    // The transaction rolled back, so nothing changed: it is the caller's text that cannot be stored.
    return new ApiError('VALIDATION_ERROR', 'Text values must not contain the NUL character (\\u0000).', [
      { path: 'body', message: 'contains a NUL character (\\u0000)' },
    ]);
  }
  if (isDateTimeOutOfRange(error)) {
    // As for NUL: the statement failed on the caller's value (a filter operand, a cursor, a date computed from an
    // input), and its transaction rolled back.
    return new ApiError(
      'VALIDATION_ERROR',
      'A date-time in the request is outside what can be stored: use years 0001 to 9999 (UTC).',
      [{ path: 'request', message: 'has a date-time out of range' }],
    );
  }
  if (isForeignKeyViolation(error)) {
    return new ApiError(
      'CONFLICT',
      'A record this change refers to no longer exists, or is still referred to (it changed while the request ran); nothing was applied.',
    );
  }
  if (isUniqueViolation(error)) {
    return new ApiError('CONFLICT', 'The change conflicts with an existing record (a unique value is already taken).');
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500 && CODE_FOR_STATUS[status]) {
    return new ApiError(CODE_FOR_STATUS[status], fastifyError.message ?? 'The request was refused.');
  }
  return new ApiError(
    'INTERNAL_ERROR',
    `An unexpected error occurred. Quote request id ${request.id} when reporting it.`,
  );
}

export function registerErrorHandling(app: PatronApp, bodyLimit: number): void {
  const outage = outageLog(app);
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, request, bodyLimit);
    const outageCause = databaseOutageCause(error, apiError);
    if (outageCause !== undefined) outage.refused(outageCause);
    else if (apiError.code === 'SERVICE_UNAVAILABLE') {
      const cause = error as { code?: unknown; message?: unknown };
      request.log.warn(
        { cause: { code: cause.code, message: cause.message }, ...requestLabels(request) },
        apiError.message,
      );
    } else if (apiError.statusCode >= 500)
      request.log.error({ err: error, ...requestLabels(request) }, 'request failed');
    else
      request.log.debug(
        { code: apiError.code, message: apiError.message, ...requestLabels(request) },
        'request refused',
      );
    if (apiError.headers) reply.headers(apiError.headers);
    return reply.code(apiError.statusCode).send(apiError.toBody());
  });
  // A request answered below 500 after an outage means the database serves again.
  app.addHook('onResponse', (_request, reply, done) => {
    if (reply.statusCode < 500) outage.served();
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const error = new ApiError(
      'NOT_FOUND',
      `There is no endpoint ${request.method} ${path}. See /openapi.json for the API.`,
    );
    return reply.code(404).send(error.toBody());
  });
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * The database fault behind a 503, if it is one: the error itself, or the cause of a refusal that already names the
 * outage (the readiness probe's). Undefined for any other answer.
 */
function databaseOutageCause(error: unknown, apiError: ApiError): unknown {
  if (apiError.code !== 'SERVICE_UNAVAILABLE') return undefined;
  if (isDatabaseUnavailable(error)) return error;
  return error instanceof ApiError ? error.cause : undefined;
}

/**
 * A database outage is logged as two lines, when it starts and when it ends, not one per refused request: under
 * load a stack or a line per request would bury everything else in the log (docs/api.md#outages-and-concurrent-writes).
 */
function outageLog(app: PatronApp) {
  let outage: { since: number; refused: number } | null = null;
  return {
    refused(error: unknown) {
      if (outage) {
        outage.refused++;
        return;
      }
      outage = { since: Date.now(), refused: 1 };
      const cause = error as { code?: unknown; message?: unknown };
      app.log.warn(
        { cause: { code: cause.code, message: cause.message } },
        'database unavailable: answering 503 with Retry-After until it serves again',
      );
    },
    served() {
      if (!outage) return;
      app.log.info(
        { outageMs: Date.now() - outage.since, refused: outage.refused },
        'database available again after an outage',
      );
      outage = null;
    },
  };
}
