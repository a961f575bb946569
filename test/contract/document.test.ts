import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

/**
 * The document as code generators and linters read it (docs/api.md#the-openapi-document), and the server agreeing
 * with it.
 */
let t: TestApp;
let tenant: Tenant;
type Json = Record<string, any>;
let document: Json;
const operations: { method: string; path: string; operation: Json }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
  document = (await t.request({ url: '/openapi.json' })).json();
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>))
    for (const [method, operation] of Object.entries(methods)) operations.push({ method, path, operation });
});
afterAll(() => t.close());

function* nodes(value: unknown, at = ''): Generator<[string, Json]> {
  if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* nodes(item, `${at}/${index}`);
  else if (value && typeof value === 'object') {
    yield [at, value as Json];
    for (const [key, item] of Object.entries(value)) yield* nodes(item, `${at}/${key}`);
  }
}

describe('the OpenAPI document', () => {
  it('writes every union told apart by type as oneOf with a discriminator, never if/then', () => {
    const conditionals = [...nodes(document)].filter(([, node]) => 'if' in node || 'then' in node);
    expect(conditionals.map(([at]) => at)).toEqual([]);
    const unions = [...nodes(document)].filter(([, node]) => node.discriminator);
    expect(unions.length).toBeGreaterThan(0);
    for (const [at, union] of unions) {
      expect(union.discriminator.propertyName, at).toBe('type');
      // Each branch is a named schema the discriminator maps its type to.
      for (const [typeValue, target] of Object.entries(union.discriminator.mapping as Record<string, string>)) {
        expect(union.oneOf, at).toContainEqual({ $ref: target });
        const branch = document.components.schemas[target.replace('#/components/schemas/', '')];
        expect(branch.required, `${at} ${typeValue}`).toContain('type');
        expect(branch.properties.type.enum ?? [branch.properties.type.const], `${at} ${typeValue}`).toEqual([
          typeValue,
        ]);
      }
    }
  });

  it('describes every response, and documents the headers each operation sends and reads', () => {
    for (const { method, path, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        expect(response.description, `${where} ${status}`).toBeTruthy();
        expect(response.description, `${where} ${status}`).not.toBe('Default Response');
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toBeDefined();
        if (status !== '401') expect(response.headers?.RateLimit, `${where} ${status}`).toBeDefined();
        if (status === '429' || status === '503') expect(response.headers?.['Retry-After']).toBeDefined();
      }
      const idempotencyKey = (operation.parameters ?? []).find(
        (parameter: Json) => parameter.name === 'Idempotency-Key',
      );
      expect(Boolean(idempotencyKey), where).toBe(method === 'post');
    }
    expect(Object.keys(document.components.headers).sort()).toEqual(
      ['Idempotent-Replayed', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id'].sort(),
    );
  });

  it('documents bodies that may be wrapped in their canonical { data } form', () => {
    for (const { method, path, operation } of operations) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (schema?.properties?.data?.type !== 'object') continue;
      // A create requires data (and names its required fields); an update may send nothing in the bare form.
      expect(schema.required ?? [], `${method} ${path}`).toEqual(schema.properties.data.required ? ['data'] : []);
      expect(JSON.stringify(schema), `${method} ${path}`).not.toContain('x-required');
    }
  });

  it('bounds every array a request may send', () => {
    for (const { method, path, operation } of operations) {
      const unbounded = [...nodes(operation.requestBody ?? {})].filter(
        ([, node]) => node.type === 'array' && node.maxItems === undefined,
      );
      expect(
        unbounded.map(([at]) => at),
        `${method} ${path}`,
      ).toEqual([]);
    }
    expect(JSON.stringify(document)).not.toContain('x-max-items');
  });

  it('bounds every string and integer a request may send', () => {
    for (const { method, path, operation } of operations) {
      const sent = [...nodes(operation.requestBody ?? {}), ...nodes(operation.parameters ?? [])];
      for (const [at, node] of sent) {
        if (node.type === 'string')
          expect(node.maxLength ?? node.enum ?? node.const, `${method} ${path} ${at}`).toBeDefined();
        if (node.type === 'integer') {
          expect([node.minimum, node.maximum, node.format], `${method} ${path} ${at}`).not.toContain(undefined);
        }
      }
    }
  });

  // The fields the document marks required are exactly those the server asks for: an empty `data` is refused
  // naming each of them, and nothing else.
  it('requires on create exactly the fields the server requires', async () => {
    const creates = operations.filter(
      ({ operation }) => operation.requestBody?.content?.['application/json']?.schema?.properties?.data?.required,
    );
    expect(creates.length).toBeGreaterThanOrEqual(8);
    for (const { method, path, operation } of creates) {
      const required: string[] = operation.requestBody.content['application/json'].schema.properties.data.required;
      const url = `/v1${path.replace(/\{[^}]+\}/g, '0192f1a0-0000-7000-8000-000000000000')}`;
      const response = await t.request({
        method: method.toUpperCase() as 'POST',
        url,
        key: tenant.key,
        body: { data: {} },
      });
      expect(response.statusCode, `${method} ${path}`).toBe(400);
      expect(
        response
          .json()
          .error.details.map((detail: { path: string }) => detail.path)
          .sort(),
        `${method} ${path}`,
      ).toEqual(required.map((field) => `body.data.${field}`).sort());
    }
  });
});
