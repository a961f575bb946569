import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { absoluteRefs, ROOT_ID, type Operation, type Schema } from './openapi.js';

/**
 * The published request schemas compiled the way the server compiles its own (src/http/validation.ts): bodies
 * never coerced, query and path text coerced, defaults applied. A request the published schema refuses must be a
 * 400; one it accepts must not be refused as malformed by validation.
 */
export class RequestValidators {
  private readonly bodyAjv = make(false);
  private readonly textAjv = make('array');
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(document: any) {
    for (const ajv of [this.bodyAjv, this.textAjv])
      ajv.addSchema({ $id: ROOT_ID, components: absoluteRefs(document.components ?? {}) });
  }

  body(operation: Operation, value: unknown): boolean {
    if (!operation.body) return true;
    return this.compiled(`body ${operation.id}`, this.bodyAjv, operation.body)(structuredClone(value));
  }

  query(operation: Operation, entries: readonly [string, string][]): boolean {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(operation.queryParams.map((parameter) => [parameter.name, parameter.schema])),
      required: operation.queryParams.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      additionalProperties: false,
    };
    return this.compiled(`query ${operation.id}`, this.textAjv, schema)(parseQuery(entries));
  }

  path(operation: Operation, values: readonly string[]): boolean {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(operation.pathParams.map((parameter) => [parameter.name, parameter.schema])),
    };
    const object = Object.fromEntries(operation.pathParams.map((parameter, i) => [parameter.name, values[i]]));
    return this.compiled(`path ${operation.id}`, this.textAjv, schema)(object);
  }

  private compiled(key: string, ajv: Ajv2020, schema: Schema): ValidateFunction {
    let validate = this.cache.get(key);
    if (!validate) {
      validate = ajv.compile(absoluteRefs(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }
}

function make(coerceTypes: false | 'array'): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allowUnionTypes: true,
  });
  addFormats.default(ajv);
  return ajv;
}

/** As Fastify's query parser reads it: a repeated name becomes an array. */
export function parseQuery(entries: readonly [string, string][]): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = {};
  for (const [name, value] of entries) {
    const existing = object[name];
    object[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return object;
}

/**
 * Parses a body as the platform does (src/http/app.ts): blank is no body; otherwise JSON, where a `__proto__` key
 * or a `constructor.prototype` is refused (Fastify's secure parser). Returns { ok: false } for what must be a 400.
 */
export function parseBody(payload: string | Buffer | undefined): { ok: true; value: unknown } | { ok: false } {
  if (payload === undefined) return { ok: true, value: undefined };
  let text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
  if (text.trim() === '') return { ok: true, value: undefined };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    let poisoned = false;
    const value = JSON.parse(text, function (key, inner) {
      if (key === '__proto__' || (key === 'constructor' && inner && typeof inner === 'object' && 'prototype' in inner))
        poisoned = true;
      return inner;
    });
    return poisoned ? { ok: false } : { ok: true, value };
  } catch {
    return { ok: false };
  }
}
