import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { ErrorDetail } from './errors.js';

const common: Options = {
  allErrors: true,
  // Unknown fields are errors (D4), never silently dropped.
  removeAdditional: false,
  useDefaults: true,
  strict: false,
  allowUnionTypes: true,
  messages: true,
};

function makeAjv(options: Options) {
  const ajv = new Ajv({ ...common, ...options });
  addFormats.default(ajv);
  return ajv;
}

// Bodies are JSON: a wrong type is the caller's mistake and must be reported, so they are never coerced.
// Query strings and paths arrive as text, so "limit=10" is coerced to the number the schema wants.
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };
const MAX_DETAILS = 20;

/** Turns Ajv's errors into D3 details: a dotted path a person can find, and what is wrong there. */
export function validationDetails(
  errors: readonly (FastifySchemaValidationError | ErrorObject)[],
  part: string | undefined,
): ErrorDetail[] {
  const root = PART_NAMES[part ?? 'body'] ?? part ?? 'body';
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const detail = describe(error, root);
    if (!detail) continue;
    const key = `${detail.path}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
    if (details.length >= MAX_DETAILS) break;
  }
  return details;
}

function toPath(root: string, instancePath: string, extra?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`), root);
}

function describe(error: FastifySchemaValidationError | ErrorObject, root: string): ErrorDetail | null {
  const params = (error.params ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: toPath(root, error.instancePath, String(params.additionalProperty)), message: 'is not a known field' };
    case 'required':
      return { path: toPath(root, error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'type':
      return { path: toPath(root, error.instancePath), message: `must be ${article(String(params.type))}` };
    case 'enum':
      return {
        path: toPath(root, error.instancePath),
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { path: toPath(root, error.instancePath), message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'format':
      return { path: toPath(root, error.instancePath), message: formatMessage(String(params.format)) };
    case 'anyOf':
    case 'oneOf':
      // The branch errors that precede it already say what is wrong; this summary adds nothing a person can use.
      return null;
    case 'if':
    case 'false schema':
      return null;
    default:
      return { path: toPath(root, error.instancePath), message: error.message ?? 'is invalid' };
  }
}

function article(type: string): string {
  const parts = type.split(',');
  return parts.map((part) => (/^[aeiou]/.test(part) ? `an ${part}` : `a ${part}`)).join(' or ');
}

function formatMessage(format: string): string {
  switch (format) {
    case 'uuid':
      return 'must be a UUID';
    case 'date-time':
      return 'must be an ISO 8601 date-time with a time-zone offset, e.g. 2026-01-31T12:00:00Z';
    case 'uri':
      return 'must be an absolute URL';
    case 'email':
      return 'must be an email address';
    default:
      return `must match format "${format}"`;
  }
}

/** One sentence naming the first problem, for the envelope's message. */
export function summarize(details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return 'The request is invalid.';
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  return `Invalid request: ${first.path} ${first.message}${more}.`;
}
