import type { components } from './generated/schema.js';

/** The error envelope every failed request answers (docs/api.md#error-envelope), as the API document states it. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
/** One `{ path, message }` entry of an error's details, e.g. `body.data.items[2].quantity`. */
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];

/**
 * Every answer of the API that is not a success, thrown by every call of the client: the HTTP status, the
 * envelope's code, message and details, and the request id to quote (X-Request-Id).
 *
 * An answer that is not the envelope (a proxy's 502 page, say) still becomes a PatronError: its code is
 * `HTTP_<status>` and its message the start of the body. Network failures (connection refused, DNS) are not answers;
 * they surface as fetch's own TypeError.
 */
export class PatronError extends Error {
  override readonly name = 'PatronError';
  /** HTTP status, e.g. 404. */
  readonly status: number;
  /**
   * The envelope's stable code, e.g. NOT_FOUND or VALIDATION_ERROR; `HTTP_<status>` when the answer was not the
   * envelope (a proxy's page).
   */
  readonly code: ErrorEnvelope['error']['code'] | `HTTP_${number}`;
  /** What the server found wrong, field by field; empty when it named nothing. */
  readonly details: readonly ErrorDetail[];
  /** X-Request-Id of the answer, for support and the server's logs. */
  readonly requestId: string | undefined;
  /** The method and URL that failed. */
  readonly method: string;
  readonly url: string;

  constructor(init: {
    status: number;
    code: PatronError['code'];
    message: string;
    details?: readonly ErrorDetail[] | undefined;
    requestId?: string | undefined;
    method: string;
    url: string;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.method = init.method;
    this.url = init.url;
  }

  /** The error for an answer whose body was already read: `body` is the parsed JSON, or the text when not JSON. */
  static fromResponse(response: Response, body: unknown, method: string): PatronError {
    const envelope = isEnvelope(body) ? body.error : undefined;
    const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
    return new PatronError({
      status: response.status,
      code: envelope?.code ?? `HTTP_${response.status}`,
      message: envelope?.message ?? (text || `${method} ${response.url} answered HTTP ${response.status}`),
      details: envelope?.details,
      requestId: response.headers.get('x-request-id') ?? undefined,
      method,
      url: response.url,
    });
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
