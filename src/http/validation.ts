import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { COUNTRY_CODE_MESSAGE, isCountryCodeList } from '../util/countries.js';
import { CURRENCY_CODE_MESSAGE, isCurrencyCodeList } from '../util/currencies.js';
import type { ErrorDetail } from '../core/errors.js';
import { PATTERN_MESSAGE_KEYWORD } from '../core/pattern-message.js';
import { formerlyReadInteger, integerProperties } from '../versions/integer-text.js';

const common: Options = {
  allErrors: true,
  // Unknown fields are errors, never silently dropped (docs/api.md#strict-input).
  removeAdditional: false,
  useDefaults: true,
  strict: false,
  allowUnionTypes: true,
  messages: true,
  // Errors carry the schema they failed, so a pattern's words (x-pattern-message) can replace its regular expression.
  verbose: true,
};

/**
 * The longest date-time accepted: nanoseconds and an offset (2026-01-31T12:00:00.123456789+05:30 is 35). The
 * document states it as maxLength (docs/api.md#the-openapi-document).
 */
export const MAX_DATE_TIME_LENGTH = 40;

/** What toISOString writes without an extended year, and PostgreSQL stores (it has no year 0). */
const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const rfc3339DateTime = fullFormats['date-time'] as {
  validate: (text: string) => boolean;
  compare: (a: string, b: string) => number | undefined;
};

/**
 * RFC 3339 (offset required: docs/api.md#timestamps), and an instant the service can hold: between years 0001 and 9999
 * in UTC and not a leap second, which JavaScript dates cannot represent. Before this, such values passed validation and
 * failed later with a 500 (Invalid Date, or PostgreSQL's year 0 refusal).
 */
function isStorableDateTime(text: string): boolean {
  if (text.length > MAX_DATE_TIME_LENGTH || !rfc3339DateTime.validate(text)) return false;
  const instant = Date.parse(text);
  return Number.isFinite(instant) && instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT;
}

function makeAjv(options: Options) {
  const ajv = new Ajv({ ...common, ...options });
  addFormats.default(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime, compare: rfc3339DateTime.compare });
  return ajv;
}

// Bodies are JSON: a wrong type is the caller's mistake and must be reported, so they are never coerced.
// Query strings and paths arrive as text, so "limit=10" is coerced to the number the schema wants.
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  const validate = textAjv.compile(schema as object);
  const integers = httpPart === 'querystring' ? integerProperties(schema) : [];
  if (integers.length === 0) return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  return plainIntegers(validate, integers) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/**
 * An integer query parameter takes decimal digits only (docs/api.md#api-versions): Ajv's coercion alone read `1e2`,
 * `100.0` or `0x10` as a number. Checked on the text before Ajv coerces it: text Ajv would have read as an integer is
 * reported here, anything else by the schema's own errors.
 */
function plainIntegers(validate: ValidateFunction, names: readonly string[]) {
  const check = (data: unknown): boolean => {
    const query = (data ?? {}) as Record<string, unknown>;
    const errors: ErrorObject[] = [];
    for (const name of names) {
      const value = query[name];
      if (typeof value === 'string' && formerlyReadInteger(value) !== undefined) {
        errors.push({
          keyword: 'integerText',
          instancePath: `/${name}`,
          schemaPath: `#/properties/${name}`,
          params: {},
          message: 'must be an integer written in decimal digits, such as 100',
        });
      }
    }
    const valid = validate(data);
    check.errors = errors.length > 0 ? [...errors, ...(validate.errors ?? [])] : validate.errors;
    return valid && errors.length === 0;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
}

/**
 * A validator of JSON values against a body schema, for values that arrive other than as a request body (the rows of
 * an import job's file): the details name paths under `row`, as a request's name them under `body`.
 */
export function compileBodyValidator(schema: object): (value: unknown) => ErrorDetail[] | null {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? null : validationDetails(validate.errors ?? [], 'row'));
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };
const MAX_DETAILS = 20;

/**
 * Turns Ajv's errors into the error envelope's details (docs/api.md#error-envelope): a dotted path a person can find,
 * and what is wrong there.
 */
export function validationDetails(
  errors: readonly (FastifySchemaValidationError | ErrorObject)[],
  part: string | undefined,
): ErrorDetail[] {
  const root = PART_NAMES[part ?? 'body'] ?? part ?? 'body';
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  // A union of literals fails with one `const` error per literal: one detail names them all.
  const allowedAt = new Map<string, { detail: ErrorDetail; values: unknown[] }>();
  for (const error of withoutUnmeantBranches(errors)) {
    if (error.keyword === 'const') {
      const path = toPath(root, error.instancePath);
      const value = (error.params as { allowedValue?: unknown }).allowedValue;
      const known = allowedAt.get(path);
      if (known) {
        if (!known.values.includes(value)) known.values.push(value);
        known.detail.message = `must be one of ${known.values.map((v) => JSON.stringify(v)).join(', ')}`;
        continue;
      }
      const detail = { path, message: `must be ${JSON.stringify(value)}` };
      allowedAt.set(path, { detail, values: [value] });
      details.push(detail);
      if (details.length >= MAX_DETAILS) break;
      continue;
    }
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

type AnyError = FastifySchemaValidationError | ErrorObject;

/**
 * A value that fails a union (`anyOf`/`oneOf`, e.g. a string or null) gets an error from every branch, including
 * the branches whose type it does not have: a 10-character `hmacSecret` is "too short" and also "must be null". Only
 * the branches of the value's own type say something a person can act on, so the branches that failed merely on the
 * type are dropped when another branch has a better reason. When every branch failed on the type, their errors
 * become one that names each type ("must be a string or null"). Errors of nested unions are pruned the same way.
 */
function withoutUnmeantBranches(errors: readonly AnyError[]): AnyError[] {
  const dropped = new Set<number>();
  const replaced = new Map<number, AnyError>();
  errors.forEach((union, unionIndex) => {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') return;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, number[]>();
    errors.forEach((error, index) => {
      if (index === unionIndex || dropped.has(index) || !error.schemaPath.startsWith(prefix)) return;
      if (error.instancePath !== union.instancePath && !error.instancePath.startsWith(`${union.instancePath}/`)) return;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), index]);
    });
    if (branches.size < 2) return;
    // A branch the value does not even have the type of; its other errors (an enum, a pattern) are noise too.
    const typeErrorOf = (indexes: number[]) =>
      indexes.find((index) => errors[index]!.keyword === 'type' && errors[index]!.instancePath === union.instancePath);
    const mismatched = [...branches.values()].filter((indexes) => typeErrorOf(indexes) !== undefined);
    if (mismatched.length === 0) return;
    for (const indexes of mismatched) indexes.forEach((index) => dropped.add(index));
    if (mismatched.length < branches.size) return;
    const typeErrors = mismatched.map((indexes) => typeErrorOf(indexes)!);
    const types = [
      ...new Set(typeErrors.flatMap((index) => String(errors[index]!.params.type ?? '').split(','))),
    ].filter(Boolean);
    dropped.delete(typeErrors[0]!);
    replaced.set(typeErrors[0]!, { ...errors[typeErrors[0]!]!, params: { type: types.join(',') } } as AnyError);
  });
  return errors.flatMap((error, index) => (dropped.has(index) ? [] : [replaced.get(index) ?? error]));
}

function toPath(root: string, instancePath: string, extra?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  return segments.reduce(
    (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`),
    root,
  );
}

function describe(error: FastifySchemaValidationError | ErrorObject, root: string): ErrorDetail | null {
  const params = (error.params ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return {
        path: toPath(root, error.instancePath, String(params.additionalProperty)),
        message: 'is not a known field',
      };
    case 'required':
      return { path: toPath(root, error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'type':
      return { path: toPath(root, error.instancePath), message: `must be ${article(String(params.type))}` };
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      // 249 country codes are no message: name what they are instead (docs/api.md#customers).
      if (isCountryCodeList(allowed)) return { path: toPath(root, error.instancePath), message: COUNTRY_CODE_MESSAGE };
      if (isCurrencyCodeList(allowed))
        return { path: toPath(root, error.instancePath), message: CURRENCY_CODE_MESSAGE };
      return {
        path: toPath(root, error.instancePath),
        message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      };
    }
    case 'const':
      return { path: toPath(root, error.instancePath), message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'format':
      return { path: toPath(root, error.instancePath), message: formatMessage(String(params.format)) };
    case 'pattern': {
      // The words the schema gives its pattern, never the regular expression (docs/api.md#validation-messages).
      const described = (error as ErrorObject).parentSchema?.[PATTERN_MESSAGE_KEYWORD] as unknown;
      return {
        path: toPath(root, error.instancePath),
        message:
          typeof described === 'string' ? described : 'is not in the form this field takes (see its description)',
      };
    }
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

/** "a string", "an integer", "null" (no article: there is one null), joined with "or". */
function article(type: string): string {
  const parts = type.split(',');
  return parts
    .map((part) => (part === 'null' ? 'null' : /^[aeiou]/.test(part) ? `an ${part}` : `a ${part}`))
    .join(' or ');
}

function formatMessage(format: string): string {
  switch (format) {
    case 'uuid':
      return 'must be a UUID';
    case 'date-time':
      return 'must be an ISO 8601 date-time with a time-zone offset, from year 0001 to 9999 (UTC), e.g. 2026-01-31T12:00:00Z';
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
