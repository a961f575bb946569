/**
 * The last pass over the OpenAPI document, so generators and linters read it exactly (docs/api.md#the-openapi-document).
 * The route schemas stay what validates requests; this pass only changes how some of them are written down:
 *
 * - A union told apart by `type` validates as `allOf` of `if`/`then` (one clear error per request); generators drop
 *   `if`/`then`, so it is written as `oneOf` + `discriminator`, which they turn into a tagged union.
 * - A body that may be sent inside `data` or bare is documented as both, `anyOf` `{ data: { … } }` and `{ … }`, with
 *   the fields a create requires marked required in each (named by the route with `x-required`).
 * - A field validated and written as an open object but checked against one of several shapes before the request
 *   acts (a rule's config, by section) is documented as the union of those shapes (`x-documented-as`), and a schema
 *   marked with `x-component-name` is documented once under that name and referred to where it is used.
 * - Every response gets a description, and the headers every operation sends or reads are documented once in
 *   components and referenced where they apply.
 * - Every operation carries its example (docs/api.md#documented-examples-and-the-demo-world): parameters and body as "Test Request"
 *   sends them, the success response the demo world answered, and each error response's envelope.
 */

import type { DocumentedExamples } from '../core/types.js';
import { VISIBLE_ASCII_PATTERN } from '../core/pattern-message.js';
import { MAX_DATE_TIME_LENGTH } from './validation.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The if/then shape `discriminated()` (src/records/discriminated.ts) writes: each branch picked by its `type`. */
function discriminatedBranches(schema: Json): Json[] | null {
  const allOf = schema.allOf;
  if (!Array.isArray(allOf) || allOf.length === 0) return null;
  const branches: Json[] = [];
  for (const part of allOf) {
    if (!isObject(part) || !isObject(part.if) || !isObject(part.then)) return null;
    // `const`, or the one-value `enum` the document writes for it.
    const typeOf = (part.if.properties as Json | undefined)?.type;
    const single = isObject(typeOf) && (typeOf.const ?? (Array.isArray(typeOf.enum) && typeOf.enum.length === 1));
    if (!single) return null;
    branches.push(part.then);
  }
  return branches;
}

const pascal = (text: string) =>
  text.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_, _gap, letter: string) => letter.toUpperCase());

/**
 * Names the branches of discriminated unions as component schemas, so a discriminator can select them (a
 * discriminator maps values to named schemas, not inline ones). A branch is named after the property holding the
 * union and its `type` (`tierWindow` + `rolling` → TierWindowRolling); the same branch met again reuses its name,
 * a different one under a taken name gets `Input` (a request's shape) or a number.
 */
class BranchNames {
  private readonly byContent = new Map<string, string>();
  constructor(private readonly schemas: Json) {}

  refer(property: string, typeValue: string, branch: Json, inRequest: boolean): string {
    return this.named(pascal(property) + pascal(typeValue), branch, inRequest);
  }

  /** `schema` as the component `base` (or, when another schema holds that name, `base` + Input or a number). */
  named(base: string, schema: Json, inRequest: boolean): string {
    const content = JSON.stringify(schema);
    let name = this.byContent.get(content);
    if (!name) {
      name = base;
      for (let n = 2; name in this.schemas; n++) name = n === 2 && inRequest ? `${base}Input` : `${base}${n}`;
      this.schemas[name] = schema;
      this.byContent.set(content, name);
    }
    return `#/components/schemas/${name}`;
  }
}

/** The one value of a branch's `type`: its `const`, or the one-value `enum` the document writes for it. */
function typeValueOf(branch: Json): string {
  const type = (branch.properties as Json | undefined)?.type as Json | undefined;
  const value = type?.const ?? (Array.isArray(type?.enum) ? type.enum[0] : undefined);
  return String(value);
}

/**
 * Rewrites every discriminated union and document-only bound below `node`, in place; `property` is the name the
 * node is held under, `inRequest` whether it is part of a request body.
 */
function rewriteSchemas(node: unknown, names: BranchNames, property: string, inRequest: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteSchemas(item, names, property, inRequest);
    return;
  }
  if (!isObject(node)) return;
  // A field documented as the union of the shapes a check before the request acts matches it against, while it is
  // validated and written as an open object (documentedAs in src/records/documented.ts).
  const documented = node['x-documented-as'];
  if (isObject(documented)) {
    for (const key of Object.keys(node)) delete node[key];
    Object.assign(node, structuredClone(documented));
  }
  // A schema documented under its own name (documentedComponent in src/records/documented.ts), referred to where used.
  const component = node['x-component-name'];
  if (typeof component === 'string') {
    const { 'x-component-name': _name, ...schema } = node;
    rewriteSchemas(schema, names, component, inRequest);
    const target = names.named(component, schema, inRequest);
    for (const key of Object.keys(node)) delete node[key];
    node.$ref = target;
    return;
  }
  // A bound the server checks itself (import rows: more is 413), written down as the keyword generators know.
  if (typeof node['x-max-items'] === 'number') {
    node.maxItems = node['x-max-items'];
    delete node['x-max-items'];
    // Tools that send past the bound (fuzzers, contract tests) learn which status answers it.
    node['x-over-max-items-status'] = 413;
  }
  // Integers are JSON numbers, exact only up to 2^53 - 1 (docs/api.md#money-amounts): their width, and for what a
  // request sends the bounds the server enforces, written down where the schema names none.
  if (node.type === 'integer') {
    // Bounds only where a request sends the integer: there the server refuses what it cannot hold exactly. What it
    // writes is not bounded the same way (a sum over many records can pass 2^53 - 1).
    if (inRequest && node.minimum === undefined && node.exclusiveMinimum === undefined)
      node.minimum = -Number.MAX_SAFE_INTEGER;
    if (inRequest && node.maximum === undefined && node.exclusiveMaximum === undefined)
      node.maximum = Number.MAX_SAFE_INTEGER;
    if (node.format === undefined) {
      const int32 = Number(node.minimum) >= -(2 ** 31) && Number(node.maximum) <= 2 ** 31 - 1;
      node.format = int32 ? 'int32' : 'int64';
    }
  }
  // Lengths the format itself bounds, written down for tools that look for maxLength.
  if (node.type === 'string' && node.maxLength === undefined && node.enum === undefined && node.const === undefined) {
    if (node.format === 'uuid') node.maxLength = 36;
    if (node.format === 'date-time') node.maxLength = MAX_DATE_TIME_LENGTH;
  }
  const branches = discriminatedBranches(node);
  if (branches) {
    const description = node.description;
    for (const key of Object.keys(node)) delete node[key];
    const mapping: Record<string, string> = {};
    const oneOf = branches.map((branch) => {
      // Unions nested in a branch (a reward's expiry) are named first, so the branch refers to them.
      rewriteSchemas(branch, names, property, inRequest);
      const typeValue = typeValueOf(branch);
      mapping[typeValue] = names.refer(property, typeValue, branch, inRequest);
      return { $ref: mapping[typeValue] };
    });
    Object.assign(node, {
      ...(description ? { description } : {}),
      oneOf,
      discriminator: { propertyName: 'type', mapping },
    });
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    // Examples are values, not schemas (an analytics dimension's example has a `type` of its own).
    if (key === 'example' || key === 'examples') continue;
    const held =
      key === 'properties' || key === 'items' || key === 'anyOf' || key === 'oneOf' || /^\d+$/.test(key)
        ? property
        : key;
    rewriteSchemas(value, names, held, inRequest || key === 'requestBody');
  }
}

const BOTH_FORMS =
  'The fields go inside `data`, or at the top level instead (not both): docs/api.md, "Wrapped and unwrapped bodies".';

/**
 * `{ data?: X, ...X }` written as what it accepts: `{ data: X }` or `X` itself, each with the fields the route
 * requires. `anyOf`, not `oneOf`: an update's `{}` is a bare body naming no field, and nothing is lost if a tool
 * finds it matches both.
 */
function bodyForms(schema: Json): Json | null {
  const properties = schema.properties;
  if (!isObject(properties) || !isObject(properties.data)) return null;
  const data = properties.data;
  if (data.type !== 'object' || !isObject(data.properties)) return null;
  const bare = Object.keys(properties).filter((key) => key !== 'data');
  if (bare.length === 0 || bare.some((key) => !(key in (data.properties as Json)))) return null;
  // A create requires its fields in either form; an update may send no field at all in the bare form (`{}`), which
  // the service answers itself (a PATCH naming no field: 400 or a no-op, as the resource documents).
  const required = Array.isArray(schema['x-required']) ? (schema['x-required'] as string[]) : [];
  const fields = { ...data, ...(required.length ? { required } : {}) };
  return {
    description: BOTH_FORMS,
    anyOf: [{ type: 'object', required: ['data'], properties: { data: fields }, additionalProperties: false }, fields],
  };
}

const RATE_LIMIT = {
  description:
    'What is left of the organization\'s bucket: `"org";r=<whole tokens left>;t=<seconds until full>` ' +
    '(docs/api.md, "Rate-limit headers").',
  schema: { type: 'string' },
};
const RATE_LIMIT_POLICY = {
  description: 'The organization bucket\'s policy: `"org";q=<ceiling>;w=60`.',
  schema: { type: 'string' },
};
/**
 * The headers a response may carry, `required` where the server always sends them: X-Request-Id on every answer, the
 * rate-limit headers on every answer to a valid key (docs/api.md#rate-limit-headers). A 500 or 503 may come before
 * the key is known (the database unreachable while looking it up), so there they are documented as optional.
 */
const HEADERS: Json = {
  'X-Request-Id': {
    description: "The request's id: the one sent in X-Request-Id when it was well formed, else a new UUID. Quote it.",
    required: true,
    schema: { type: 'string' },
  },
  RateLimit: { ...RATE_LIMIT, required: true },
  'RateLimit-Policy': { ...RATE_LIMIT_POLICY, required: true },
  RateLimitIfKeyKnown: RATE_LIMIT,
  'RateLimit-PolicyIfKeyKnown': RATE_LIMIT_POLICY,
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86400 },
  },
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: the same key and body within 24 h answer the first response again ' +
    '(docs/api.md, "Idempotency keys"). 1 to 255 visible ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255, ...VISIBLE_ASCII_PATTERN },
};

const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const schemaName = (value: unknown) =>
  isObject(value) && typeof value.$ref === 'string' ? value.$ref.split('/').pop() : undefined;

/** A description for a success response that has none: what the body is. */
function successDescription(status: string, schema: unknown, summary: string | undefined): string {
  const record = schemaName(schema);
  if (record) return `The ${record} record.`;
  if (isObject(schema) && isObject(schema.properties)) {
    const { data, nextCursor } = schema.properties;
    const item = isObject(data) ? schemaName(data.items) : undefined;
    if (item && nextCursor) return `A page of ${item} records, and the cursor of the next page.`;
  }
  return `${STATUS_TEXT[status] ?? 'Success'}: ${summary ?? 'the result'}.`;
}

/** The error code a documented error response starts its description with ("NOT_FOUND: no record…"). */
const ERROR_CODE = /^([A-Z_]+): (.*)$/s;

/** Puts an operation's example on its parameters, body and success response. */
function addExamples(operation: Json, examples: DocumentedExamples | undefined): void {
  const operationId = String(operation.operationId);
  const request = examples?.requests[operationId];
  if (!request) return;
  for (const parameter of (operation.parameters as Json[] | undefined) ?? []) {
    const name = String(parameter.name);
    if (parameter.in === 'path' && request.params?.[name]) parameter.example = request.params[name];
    if (parameter.in === 'query' && request.query?.[name]) {
      // An optional parameter's example is sent by "Test Request" only when it says so (Scalar's x-disabled): the
      // filter of a bulk update is what keeps it from changing every record. Named like the body's example, which
      // is the one the client picks for the parameters too.
      parameter.examples = {
        [operationId]: { summary: request.summary, value: request.query[name], 'x-disabled': false },
      };
    }
  }
  const media = ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.[
    request.contentType ?? 'application/json'
  ];
  if (isObject(media) && request.body !== undefined) {
    media.examples = { [operationId]: { summary: request.summary, value: request.body } };
  }
  const answered = examples?.responses[operationId];
  const response = answered ? (operation.responses as Record<string, Json>)[String(answered.status)] : undefined;
  // A file's answer (an export's download) has no JSON: its example goes on the first media type it names.
  const answers = response?.content as Json | undefined;
  const content = answers?.['application/json'] ?? (answers ? Object.values(answers)[0] : undefined);
  if (answered && isObject(content)) {
    content.examples = { [operationId]: { summary: request.summary, value: answered.body } };
  }
}

/** An error response's example: its envelope with the code its description names. */
function addErrorExample(status: string, response: Json): void {
  if (!/^[45]/.test(status)) return;
  const match = ERROR_CODE.exec(String(response.description ?? ''));
  const content = (response.content as Json | undefined)?.['application/json'];
  if (!match || !isObject(content)) return;
  const message = match[2]!.replace(/\.$/, '');
  content.example = { error: { code: match[1], message: message.charAt(0).toUpperCase() + message.slice(1) + '.' } };
}

/** The document as generators and linters should read it (see the file's comment). */
export function refineDocument<T extends object>(document: T, examples?: DocumentedExamples): T {
  const openapi = document as unknown as Json;
  const paths = (openapi.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      const charged = 'x-cost' in operation;
      const requestBody = operation.requestBody as Json | undefined;
      const media = (requestBody?.content as Json | undefined)?.['application/json'];
      if (isObject(media) && isObject(media.schema)) {
        const forms = bodyForms(media.schema);
        if (forms) media.schema = forms;
        else delete media.schema['x-required'];
      }
      if (method === 'post' && charged) {
        operation.parameters = [...((operation.parameters as unknown[]) ?? []), IDEMPOTENCY_KEY_PARAMETER];
      }
      addExamples(operation, examples);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        addErrorExample(status, response);
        const content = (response.content as Json | undefined)?.['application/json'];
        const schema = isObject(content) ? content.schema : undefined;
        if (!response.description || response.description === 'Default Response') {
          response.description = successDescription(status, schema, operation.summary as string | undefined);
        }
        const headers: Json = { 'X-Request-Id': ref('X-Request-Id') };
        if (charged && status !== '401') {
          const always = status !== '500' && status !== '503';
          headers.RateLimit = ref(always ? 'RateLimit' : 'RateLimitIfKeyKnown');
          headers['RateLimit-Policy'] = ref(always ? 'RateLimit-Policy' : 'RateLimit-PolicyIfKeyKnown');
        }
        if (status === '429' || status === '503' || (status === '409' && method === 'post'))
          headers['Retry-After'] = ref('Retry-After');
        if (method === 'post' && charged && status.startsWith('2'))
          headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
        response.headers = { ...headers, ...((response.headers as Json | undefined) ?? {}) };
      }
    }
  }
  const components = (openapi.components ?? (openapi.components = {})) as Json;
  const names = new BranchNames((components.schemas ?? (components.schemas = {})) as Json);
  rewriteSchemas(openapi.components, names, '', false);
  rewriteSchemas(openapi.paths, names, '', false);
  // A webhook's body is what the server sends, not what it reads: written as a response is.
  for (const webhook of Object.values((openapi.webhooks ?? {}) as Record<string, Json>)) {
    const media = ((webhook.post as Json | undefined)?.requestBody as Json | undefined)?.content as Json | undefined;
    rewriteSchemas(media?.['application/json'], names, '', false);
  }
  components.headers = { ...HEADERS, ...((components.headers as Json | undefined) ?? {}) };
  return document;
}
