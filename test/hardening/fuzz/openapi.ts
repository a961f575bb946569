import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A JSON Schema node as the OpenAPI document writes it (3.1: plain JSON Schema 2020-12 plus annotations). */
export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
  description?: string;
}

/** One operation of the document, with what the fuzzer needs to build requests and judge their answers. */
export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As the document writes it, without the /v1 server prefix, e.g. /orders/{id}. */
  path: string;
  permission: string;
  cost: number;
  /**
   * Who may call it (docs/api.md#dashboard-sessions): a key (or a session), only a dashboard session, or anyone
   * (signing in).
   */
  access: 'key' | 'session' | 'public';
  /** Acts only on test data (`x-test-mode-only`): its valid requests carry a test key, and a live key is 403. */
  testModeOnly: boolean;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: Schema | undefined;
  /** The media types of a body that is a file rather than JSON (an import job's CSV or JSON Lines). */
  fileMediaTypes: readonly string[] | undefined;
  /** Every status the document lists for the operation. */
  statuses: ReadonlySet<number>;
  /** Validates a 2xx body against the documented response schema of that status. */
  validateSuccess(status: number, body: unknown): string | null;
}

export const SERVER_PREFIX = '/v1';
export const ROOT_ID = 'https://patron.invalid/openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Reads the operations of the served OpenAPI document. Response schemas are compiled with Ajv's 2020-12 dialect
 * (OpenAPI 3.1's), against the document's own components, so an answer is judged by what is published.
 */
export function readOperations(document: any): Operation[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: ROOT_ID, components: absoluteRefs(document.components ?? {}) });
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters: Parameter[] = op.parameters ?? [];
      const validators = new Map<number, ValidateFunction>();
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const schema = response?.content?.['application/json']?.schema;
        if (Number(status) < 300 && schema) validators.set(Number(status), ajv.compile(absoluteRefs(schema)));
      }
      operations.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase() as Operation['method'],
        path,
        permission: op['x-permission'],
        cost: op['x-cost'],
        access: op['x-session-only'] ? 'session' : op['x-public'] ? 'public' : 'key',
        testModeOnly: op['x-test-mode-only'] === true,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        queryParams: parameters.filter((parameter) => parameter.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
        fileMediaTypes:
          op.requestBody?.content && !op.requestBody.content['application/json']
            ? Object.keys(op.requestBody.content)
            : undefined,
        statuses: new Set(Object.keys(op.responses ?? {}).map(Number)),
        validateSuccess(status, body) {
          const validate = validators.get(status);
          if (!validate) return `no response schema is documented for ${status}`;
          if (validate(body)) return null;
          return ajv.errorsText(validate.errors, { dataVar: 'body' });
        },
      });
    }
  }
  return operations;
}

/** Resolves a local "#/components/…" reference of the document. */
export function resolver(document: any): (schema: Schema) => Schema {
  return function resolve(schema) {
    let current = schema;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops++) {
      const path = current.$ref.replace(/^#\//, '').split('/');
      current = path.reduce((node: any, key: string) => node?.[key], document);
    }
    return current ?? {};
  };
}

/** Rewrites the document's local references so a schema compiled on its own still finds the components. */
export function absoluteRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(absoluteRefs) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${ROOT_ID}${value}`
        : absoluteRefs(value);
  }
  return out as T;
}
