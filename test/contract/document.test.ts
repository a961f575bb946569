import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
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

/** The `{ data: { … } }` form of a body that may also be sent bare (docs/api.md#wrapped-and-unwrapped-bodies). */
const wrapped = (schema: Json | undefined): Json | undefined =>
  schema?.anyOf?.find((form: Json) => form.properties?.data) ?? schema;

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
      const dashboardOnly = Boolean(operation['x-session-only'] || operation['x-public']);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        expect(response.description, `${where} ${status}`).toBeTruthy();
        expect(response.description, `${where} ${status}`).not.toBe('Default Response');
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toBeDefined();
        // The dashboard's own endpoints are never charged (docs/api.md#dashboard-sessions).
        if (dashboardOnly) expect(response.headers?.RateLimit, `${where} ${status}`).toBeUndefined();
        else if (status !== '401') {
          // Required wherever a valid key is known: not on a 500 or 503 that may come before it is looked up.
          const always = status !== '500' && status !== '503';
          for (const name of ['RateLimit', 'RateLimit-Policy']) {
            const header = response.headers?.[name];
            expect(header, `${where} ${status} ${name}`).toBeDefined();
            expect(document.components.headers[header.$ref.split('/').pop()].required ?? false).toBe(always);
          }
        }
        if (status === '429' || status === '503') expect(response.headers?.['Retry-After']).toBeDefined();
      }
      const idempotencyKey = (operation.parameters ?? []).find(
        (parameter: Json) => parameter.name === 'Idempotency-Key',
      );
      expect(Boolean(idempotencyKey), where).toBe(method === 'post' && !dashboardOnly);
    }
    expect(Object.keys(document.components.headers).sort()).toEqual(
      [
        'Idempotent-Replayed',
        'RateLimit',
        'RateLimit-Policy',
        'RateLimitIfKeyKnown',
        'RateLimit-PolicyIfKeyKnown',
        'Retry-After',
        'X-Request-Id',
      ].sort(),
    );
    expect(document.components.headers['X-Request-Id'].required).toBe(true);
  });

  it('documents bodies that may be wrapped as both forms, { data: { … } } or the fields bare, as the server takes them', async () => {
    const bodies = operations.filter(({ operation }) =>
      operation.requestBody?.content?.['application/json']?.schema?.anyOf?.some((form: Json) => form.properties?.data),
    );
    expect(bodies.length).toBe(26);
    for (const { method, path, operation } of bodies) {
      const where = `${method.toUpperCase()} ${path}`;
      const schema = operation.requestBody.content['application/json'].schema;
      const [data, bare] = schema.anyOf;
      expect(data, where).toMatchObject({ required: ['data'], additionalProperties: false });
      expect(bare, where).toEqual(data.properties.data);
      expect(schema.description, where).toContain('Wrapped and unwrapped bodies');
      expect(JSON.stringify(schema), where).not.toContain('x-required');
      // The same fields sent bare reach the same check as inside data: a create names the same missing fields.
      if (!bare.required) continue;
      const url = `/v1${path.replace(/\{[^}]+\}/g, '0192f1a0-0000-7000-8000-000000000000')}`;
      const send = (body: Json) => t.request({ method: method.toUpperCase() as 'POST', url, key: tenant.key, body });
      const paths = async (body: Json) =>
        ((await send(body)).json().error.details as { path: string }[]).map((detail) => detail.path).sort();
      expect(await paths({}), where).toEqual(bare.required.map((field: string) => `body.${field}`).sort());
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

  it("types a rule's config as the union of the section configs, and the server agrees with it", async () => {
    const schemas = document.components.schemas;
    const union = ['EarningRuleConfig', 'ClaimableRuleConfig', 'OfferRuleConfig', 'StampCardRuleConfig'].map(
      (name) => ({ $ref: `#/components/schemas/${name}` }),
    );
    const create = document.paths['/loyalty-rules'].post.requestBody.content['application/json'].schema;
    const update = document.paths['/loyalty-rules/{id}'].patch.requestBody.content['application/json'].schema;
    for (const config of [
      schemas.LoyaltyRule.properties.config,
      schemas.LoyaltyRuleSnapshot.properties.config,
      wrapped(create)!.properties.data.properties.config,
      wrapped(update)!.properties.data.properties.config,
      create.anyOf[1].properties.config,
    ])
      expect(config.oneOf).toEqual(union);
    expect(schemas.LoyaltyReward.properties.ruleSnapshot.anyOf).toEqual([
      { $ref: '#/components/schemas/LoyaltyRuleSnapshot' },
      { type: 'null' },
    ]);
    expect(JSON.stringify(document)).not.toMatch(/x-documented-as|x-component-name/);

    // What the server accepts and answers fits the document: each accepted config matches exactly one section's
    // config, and the rule it answers (config with defaults written out) and its snapshot match their records.
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');
    const check = (name: string) => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });
    const [rule, snapshot] = [check('LoyaltyRule'), check('LoyaltyRuleSnapshot')];
    const body = ajv.compile({
      $ref: 'openapi.json#/paths/~1loyalty-rules/post/requestBody/content/application~1json/schema',
    });
    const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
    const window = { startsAt: '2026-01-01T00:00:00Z', endsAt: '2026-01-03T00:00:00Z' };
    const accepted: [string, object][] = [
      ['rules', { type: 'orderSpend', pointsPerUnit: 2 }],
      ['rules', { type: 'event', eventName: 'signup', points: 50 }],
      ['rewards', { pointsCost: 500, reward: coupon }],
      ['offers', { type: 'pointsMultiplier', multiplier: 1.5, ...window }],
      ['offers', { type: 'reward', reward: { type: 'points', amount: 10 }, ...window }],
      ['stampCards', { stampsRequired: 10, reward: { ...coupon, expiry: { type: 'daysAfterIssuance', days: 30 } } }],
    ];
    for (const [section, config] of accepted) {
      const sent = { data: { section, name: `${section} rule`, config } };
      expect(body(sent), `${section} ${JSON.stringify(body.errors)}`).toBe(true);
      const response = await t.request({ method: 'POST', url: '/v1/loyalty-rules', key: tenant.key, body: sent });
      expect(response.statusCode, response.body).toBe(201);
      const answered = response.json();
      expect(rule(answered), `${section} ${JSON.stringify(rule.errors)}`).toBe(true);
      const { id, name } = answered;
      expect(snapshot({ id, name, section, config: answered.config }), JSON.stringify(snapshot.errors)).toBe(true);
    }
    // A config of no section's shape is outside the documented union.
    expect(body({ data: { section: 'rules', name: 'x', config: { type: 'orderSpend', pointsCost: 5 } } })).toBe(false);
  });

  it('documents the POST of every event in the catalog as a webhook, data typed as the record it carries', async () => {
    const catalog = (await t.request({ url: '/v1/webhook-events', key: tenant.key })).json().data as {
      name: string;
      firing: boolean;
    }[];
    expect(Object.keys(document.webhooks)).toEqual(catalog.map((event) => event.name));
    // The document marks the names nothing sends yet as the catalog does.
    for (const event of catalog) expect(document.webhooks[event.name].post['x-firing'], event.name).toBe(event.firing);
    const notSentYet: string[] = [];
    for (const [name, webhook] of Object.entries(document.webhooks as Record<string, Json>)) {
      const body = webhook.post.requestBody.content['application/json'].schema;
      expect(body.required, name).toEqual(['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data']);
      expect(body.properties.event.enum, name).toEqual([name]);
      expect(webhook.post.parameters.map((parameter: Json) => parameter.$ref.split('/').pop()).sort(), name).toEqual([
        'WebhookId',
        'WebhookSignature',
        'WebhookTimestamp',
        'WebhookUserAgent',
        'XWebhookSignature',
      ]);
      const data = body.properties.data;
      if (data.$ref) expect(document.components.schemas[data.$ref.split('/').pop()], name).toBeDefined();
      else notSentYet.push(name);
    }
    // Every name is sent by some operation now, so every webhook's data is typed as its record.
    expect(notSentYet).toEqual([]);
    const headers = Object.values(document.components.parameters as Record<string, Json>).map((p) => p.name);
    expect(headers).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Webhook-Signature']),
    );

    // What the server records fits: every event of a few changes, as its envelope, matches its webhook's body.
    const other = await t.tenant();
    const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      t.request({ method, url: `/v1${url}`, key: other.key, ...(body ? { body } : {}) });
    const site = (await send('POST', '/sites', { data: { name: 'Shop', domain: 'shop.example.com' } })).json();
    await send('PATCH', `/sites/${site.id}`, { data: { name: 'The shop' } });
    await send('DELETE', `/sites/${site.id}`);
    const rule = (
      await send('POST', '/loyalty-rules', {
        data: {
          section: 'stampCards',
          name: 'Card',
          config: { stampsRequired: 5, reward: { type: 'points', amount: 1 } },
        },
      })
    ).json();
    await send('PATCH', `/loyalty-rules/${rule.id}`, { data: { isActive: false } });
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');
    const events = await t.testDatabase.database.db
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', other.organization.id)
      .execute();
    expect(events.map((event) => event.name).sort()).toEqual([
      'loyaltyRule.created',
      'loyaltyRule.updated',
      'site.created',
      'site.deleted',
      'site.updated',
    ]);
    for (const event of events) {
      const pointer = `openapi.json#/webhooks/${event.name}/post/requestBody/content/application~1json/schema`;
      const validate = ajv.compile({ $ref: pointer });
      // The envelope as its deliveries send it, which GET /events/{id} answers byte for byte.
      const envelope = (await t.request({ url: `/v1/events/${event.id}`, key: other.key })).json();
      expect(validate(envelope), `${event.name} ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  // The fields the document marks required are exactly those the server asks for: an empty `data` is refused
  // naming each of them, and nothing else.
  it('requires on create exactly the fields the server requires', async () => {
    const creates = operations.filter(
      ({ operation }) =>
        wrapped(operation.requestBody?.content?.['application/json']?.schema)?.properties?.data?.required,
    );
    expect(creates.length).toBeGreaterThanOrEqual(8);
    for (const { method, path, operation } of creates) {
      const required: string[] = wrapped(operation.requestBody.content['application/json'].schema)!.properties.data
        .required;
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
