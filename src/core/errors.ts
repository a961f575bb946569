import Type from 'typebox';

/**
 * Every error code the API answers, with its status (docs/api.md#error-envelope): the one registry. ApiError takes
 * only these, and the envelope's `code` is documented as this list (an enum in /openapi.json).
 */
export const STATUS_OF = {
  VALIDATION_ERROR: 400,
  INVALID_VERSION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  REQUEST_HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof STATUS_OF;
export const ERROR_CODES = Object.keys(STATUS_OF) as ErrorCode[];

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error the API reports to its caller as the envelope { error: { code, message, details? } }. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = STATUS_OF[code];
  }

  toBody() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new ApiError('VALIDATION_ERROR', message, details);
/**
 * 404 naming what is missing: `what` names the record the way a person would ("The product"), so the message reads
 * "The product was not found." The type keeps a negative subject ("No reward…") from producing a double negative.
 */
export const notFound = (what: `The ${string}`) => new ApiError('NOT_FOUND', `${what} was not found.`);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new ApiError('UNPROCESSABLE', message, details);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Enum(ERROR_CODES, {
        type: 'string',
        description:
          'Stable machine-readable code (docs/api.md, "Error envelope"); a 400 is VALIDATION_ERROR, or INVALID_VERSION for an unknown API version.',
      }),
      message: Type.String({ description: 'A sentence a person can act on.' }),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            path: Type.String({ description: 'Where the fault is, e.g. body.data.url or query.limit.' }),
            message: Type.String(),
          }),
        ),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);
