import Type, { type Static } from 'typebox';
import { MAX_WEBHOOK_URL_LENGTH } from '../../events/webhook-url.js';

export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;

const optionalFields = {
  url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'An absolute https:// URL on a public host; no user name, password or fragment.',
    }),
  ),
  events: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 200,
      description:
        'Exact event names from GET /v1/webhook-events; duplicates collapse. Replaces the subscription wholesale.',
    }),
  ),
  isActive: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  hmacSecret: Type.Optional(
    Type.Union([Type.String({ minLength: MIN_SECRET_LENGTH, maxLength: MAX_SECRET_LENGTH }), Type.Null()], {
      description: `${MIN_SECRET_LENGTH}..${MAX_SECRET_LENGTH} characters, stored encrypted. One starting with whsec_ must be a Standard Webhooks secret (whsec_ + base64 of 24 to 64 bytes), and webhook-signature is then keyed with the decoded bytes. On PUT: omitted keeps the stored secret, null removes it.`,
    }),
  ),
  apiVersion: Type.Optional(
    Type.Union([Type.String({ maxLength: 10 }), Type.Null()], {
      description:
        "The API version (YYYY-MM-DD) its deliveries are rendered in, any version the server knows; null (the default) follows the organization's apiVersion. On PUT: omitted keeps it.",
    }),
  ),
  generateSecret: Type.Optional(
    Type.Boolean({
      description:
        'true: the server generates a Standard Webhooks secret (whsec_ + base64 of 32 random bytes), stores it as hmacSecret and answers it once, in this response. Not with hmacSecret.',
    }),
  ),
};

export const WebhookFields = Type.Object(optionalFields, { additionalProperties: false });
export type WebhookFields = Static<typeof WebhookFields>;

export const WebhookBody = Type.Object(
  { data: Type.Optional(WebhookFields), ...optionalFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type WebhookBody = Static<typeof WebhookBody>;

export const WebhookEventCatalog = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        name: Type.String({ description: "The exact string to put in a webhook endpoint's events." }),
        firesWhen: Type.String({
          description:
            'What sends the event: the operations and jobs of this API (the specification’s words where firing is false).',
        }),
        firing: Type.Boolean({
          description:
            'False when nothing in this API sends the event yet (its records do not exist here): a subscription is accepted and receives nothing.',
        }),
      }),
    ),
  },
  { $id: 'WebhookEventCatalog' },
);
