/**
 * The `webhooks` of the OpenAPI document (docs/api.md#the-openapi-document): one entry per event of the catalog, the
 * POST a subscribed endpoint receives (docs/api.md#fan-out-and-payload), its body the envelope with `data` typed as
 * the record the event carries, and the delivery headers (docs/api.md#delivery-headers-and-signatures). Which record
 * an event carries is declared by the resource that sends it (ResourceModule.events), so the platform names none.
 */
import type { EventCatalog, ResourceModule } from '../core/types.js';
import { describedPattern } from '../core/pattern-message.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tag every webhook is filed under. */
export const WEBHOOK_TAG = {
  name: 'webhook-payloads',
  description:
    'The POST each event sends to the active endpoints subscribed to it: the envelope { id, event, timestamp, ' +
    'idempotencyKey, livemode, data } (what GET /events/{id} answers), data being the record as the API returns it, signed when the endpoint has a secret.',
};

const PARAMETERS: Json = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's idempotencyKey: the same on a resend. Deduplicate on it.",
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this POST was sent, in Unix seconds; reject a delivery too far from your clock (a replay).',
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: false,
    description:
      'Standard Webhooks signature, sent when the endpoint has a secret: `v1,<base64 HMAC-SHA256 of ' +
      '"<webhook-id>.<webhook-timestamp>.<raw body>">`, space-separated, two of them for 24 h after a rotation ' +
      '(docs/api.md, "Delivery headers and signatures").',
    schema: {
      type: 'string',
      maxLength: 1000,
      ...describedPattern(
        '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$',
        'must be one or more signatures "v1,<base64>" separated by single spaces',
      ),
    },
  },
  XWebhookSignature: {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: false,
    description:
      'Sent when the endpoint has a secret: `sha256=` and the lowercase hex HMAC-SHA256 of the raw body, keyed ' +
      'with the UTF-8 bytes of the secret. Verify against the raw bytes, in constant time.',
    schema: {
      type: 'string',
      maxLength: 71,
      ...describedPattern('^sha256=[0-9a-f]{64}$', 'must be "sha256=" and 64 lower-case hexadecimal digits'),
    },
  },
  WebhookUserAgent: {
    name: 'User-Agent',
    in: 'header',
    required: true,
    description: 'Patron-Webhooks/1.',
    schema: { type: 'string', enum: ['Patron-Webhooks/1'] },
  },
};

/**
 * The signatures as security schemes, so a reader sees how a delivery authenticates itself: either header (both
 * come together), or none when the endpoint has no secret (unsigned deliveries).
 */
const SECURITY_SCHEMES: Json = {
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Standard Webhooks: base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>" with the ' +
      "endpoint's secret (its decoded bytes for a whsec_ secret, else its UTF-8 bytes), which also rejects replays.",
  },
  webhookHexSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Signature',
    description: "sha256=<hex HMAC-SHA256 of the raw body>, keyed with the UTF-8 bytes of the endpoint's secret.",
  },
};
const SECURITY = [{ webhookSignature: [] }, { webhookHexSignature: [] }, {}];

const RESPONSES: Json = {
  '2XX': { description: 'Any 2xx acknowledges the delivery: it is recorded as succeeded.' },
  '4XX': {
    description:
      'Any other answer (a redirect included, which is not followed), or none within WEBHOOK_TIMEOUT_MS, is ' +
      'recorded as a failed delivery, with no automatic retry.',
  },
};

const NOT_SENT_YET =
  'No operation of this API sends this event yet: the specification names it for records the API does not hold. ' +
  'Its data will be that record, in the shape its API returns; until then the shape is not fixed.';

/** `event.name` → `eventNameWebhook`. */
const operationId = (name: string) =>
  name.replace(/\.([a-z])/g, (_, letter: string) => letter.toUpperCase()) + 'Webhook';

/**
 * A record schema as the document holds it: a reference to the component of its `$id` (added when no route has
 * added it), or, without an `$id`, the schema itself; records it embeds by `$id` are referenced the same way.
 */
function documented(schema: Json, schemas: Json, root = true): Json {
  const id = typeof schema.$id === 'string' ? schema.$id : undefined;
  if (id !== undefined) {
    if (!(id in schemas)) {
      schemas[id] = {}; // taken first, so a record that embeds itself refers to itself
      const { $id: _id, ...body } = schema;
      schemas[id] = embedded(body, schemas);
    }
    return { $ref: `#/components/schemas/${id}` };
  }
  return root ? embedded(schema, schemas) : schema;
}

function embedded(schema: Json, schemas: Json): Json {
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value)) copy[key] = value.map((item) => (isObject(item) ? nested(item, schemas) : item));
    else copy[key] = isObject(value) ? nested(value, schemas) : value;
  }
  return copy;
}

const nested = (schema: Json, schemas: Json): Json =>
  typeof schema.$id === 'string' ? documented(schema, schemas, false) : embedded(schema, schemas);

/** The envelope of one event, `data` being the record it carries. */
function envelope(name: string, data: Json): Json {
  return {
    type: 'object',
    required: ['id', 'event', 'timestamp', 'idempotencyKey', 'livemode', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The event id: GET /events/{id} reads these same bytes.' },
      event: { type: 'string', enum: [name], description: 'The event name.' },
      timestamp: {
        type: 'string',
        format: 'date-time',
        description: "When the change was recorded (the recording transaction's time), not when this POST was sent.",
      },
      idempotencyKey: {
        type: 'string',
        format: 'uuid',
        description:
          "The event's id, also sent as webhook-id: never delivered twice to the same endpoint except by a " +
          'resend or a lost acknowledgement; ignore repeats.',
      },
      livemode: { type: 'boolean', description: 'True for live data (always, until test mode).' },
      data,
    },
    additionalProperties: false,
    description:
      'The envelope, its fields in this order: docs/api.md, "Fan-out and payload". Verify the signature against ' +
      'the raw bytes before parsing them.',
  };
}

/**
 * Adds `webhooks` (one per catalog event, in the catalog's order) and the delivery header parameters to the
 * document. Throws on a resource naming an event the catalog does not hold, two resources giving one event
 * different records, or a catalog `firing` flag that disagrees with what the resources declare, so a mistake stops
 * the start rather than publishing a wrong document (docs/api.md#event-catalog).
 */
export function addWebhooks<T extends object>(
  document: T,
  resources: readonly ResourceModule[],
  catalog: EventCatalog,
): T {
  const openapi = document as unknown as Json;
  const components = (openapi.components ?? (openapi.components = {})) as Json;
  const schemas = (components.schemas ?? (components.schemas = {})) as Json;
  const carried = new Map<string, object>();
  for (const resource of resources) {
    for (const { names, schema } of resource.events ?? []) {
      for (const name of names) {
        if (!catalog.isKnown(name)) throw new Error(`${resource.name} declares ${name}, which is not in the catalog`);
        const known = carried.get(name);
        if (known && known !== schema) throw new Error(`${name} is declared with two different records`);
        carried.set(name, schema);
      }
    }
  }
  // A name the catalog says nothing sends must not be sent. (The other way round, every firing name declared by
  // some resource, holds for the composed app only, not for an app of a few modules: test/contract checks it.)
  for (const { name, firing } of catalog.events) {
    if (!firing && carried.has(name)) {
      throw new Error(`${name} is marked firing: false in the event catalog, but a resource declares it`);
    }
  }
  components.securitySchemes = { ...((components.securitySchemes as Json | undefined) ?? {}), ...SECURITY_SCHEMES };
  components.parameters = { ...((components.parameters as Json | undefined) ?? {}), ...PARAMETERS };
  const parameters = Object.keys(PARAMETERS).map((key) => ({ $ref: `#/components/parameters/${key}` }));
  const webhooks: Json = {};
  for (const { name, firesWhen, firing } of catalog.events) {
    const schema = carried.get(name);
    const data = schema
      ? documented(schema as Json, schemas)
      : { type: 'object', additionalProperties: true, description: NOT_SENT_YET };
    webhooks[name] = {
      post: {
        operationId: operationId(name),
        summary: name,
        description: firing ? firesWhen : `Not sent yet (firing: false in GET /v1/webhook-events). ${firesWhen}`,
        'x-firing': firing,
        tags: [WEBHOOK_TAG.name],
        parameters,
        security: SECURITY,
        requestBody: { required: true, content: { 'application/json': { schema: envelope(name, data) } } },
        responses: RESPONSES,
      },
    };
  }
  openapi.webhooks = webhooks;
  return document;
}
