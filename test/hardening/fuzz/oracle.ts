import type { LightMyRequestResponse } from 'fastify';
import type { Operation } from './openapi.js';
import type { Mode, PlannedRequest } from './requests.js';

/** D3: the codes each error status carries; a 400 about an API version (a header or an apiVersion field) is D47's. */
const CODES_OF_STATUS: Record<number, string[]> = {
  400: ['VALIDATION_ERROR', 'INVALID_VERSION'],
  401: ['UNAUTHORIZED'],
  403: ['FORBIDDEN'],
  404: ['NOT_FOUND'],
  409: ['CONFLICT'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  422: ['UNPROCESSABLE'],
  429: ['TOO_MANY_REQUESTS'],
  500: ['INTERNAL_ERROR'],
  503: ['SERVICE_UNAVAILABLE'],
};

/**
 * What is wrong with an answer, or null when it holds: no 5xx; a status the operation documents (and the one the
 * request must get, when it must get one); a 2xx body valid against the documented response schema; an error body
 * that is exactly the D3 envelope with the status's code; X-Request-Id always, Retry-After on 429. In the invalid
 * phase, nothing may succeed.
 */
export function judge(
  operation: Operation,
  request: PlannedRequest,
  response: LightMyRequestResponse,
  mode: Mode,
): string | null {
  const status = response.statusCode;
  if (status >= 500) return `server error ${status}: ${response.body.slice(0, 300)}`;
  if (!operation.statuses.has(status))
    return `status ${status} is not documented for ${operation.id} (documented: ${[...operation.statuses].join(', ')}): ${response.body.slice(0, 300)}`;
  if (request.expect && status !== 429 && !request.expect.includes(status)) {
    return `expected ${request.expect.join(' or ')}, got ${status}: ${response.body.slice(0, 300)}`;
  }
  if (mode === 'invalid' && status < 400) return `the invalid request was accepted with ${status}`;
  if (!response.headers['x-request-id']) return 'no X-Request-Id header';
  if (status === 204) return response.body === '' ? null : `a 204 with a body: ${response.body.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `the body is not JSON: ${response.body.slice(0, 200)}`;
  }
  if (status < 300) {
    const problem = operation.validateSuccess(status, body);
    return problem ? `the ${status} body does not match the documented schema: ${problem}` : null;
  }
  const envelope = envelopeProblem(body, status);
  if (envelope) return envelope;
  if (status === 429 && !/^[1-9]\d*$/.test(String(response.headers['retry-after'] ?? '')))
    return '429 without a whole-seconds Retry-After';
  return null;
}

function envelopeProblem(body: unknown, status: number): string | null {
  const shown = JSON.stringify(body).slice(0, 300);
  if (!isObject(body) || !onlyKeys(body, ['error']) || !isObject(body.error)) return `not the D3 envelope: ${shown}`;
  const { error } = body;
  if (!onlyKeys(error, ['code', 'message', 'details'])) return `unexpected fields in the envelope: ${shown}`;
  if (!(CODES_OF_STATUS[status] ?? []).includes(String(error.code)))
    return `code ${String(error.code)} does not belong to status ${status}`;
  if (typeof error.message !== 'string' || error.message.trim() === '') return `the envelope has no message: ${shown}`;
  if (error.details !== undefined) {
    if (!Array.isArray(error.details)) return `details is not an array: ${shown}`;
    for (const detail of error.details) {
      if (
        !isObject(detail) ||
        !onlyKeys(detail, ['path', 'message']) ||
        typeof detail.path !== 'string' ||
        typeof detail.message !== 'string'
      ) {
        return `a detail is not { path, message }: ${shown}`;
      }
    }
  }
  return null;
}

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));
