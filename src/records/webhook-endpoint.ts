/** The webhook endpoint record: its response shape, the columns it is read from, the row→record mapping, its events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { WebhookEndpointsTable } from '../db/schema.js';
import type { EventToRecord } from '../events/outbox.js';
import { Timestamp, Uuid } from './common.js';

/** service.md "Webhook endpoint". The secret never leaves the server: only whether there is one. */
export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    url: Type.String({ description: 'Where deliveries are POSTed, as given.' }),
    isActive: Type.Boolean({ description: 'Only active endpoints receive deliveries; false pauses them.' }),
    events: Type.Array(Type.String(), { description: 'Subscribed event names (GET /v1/webhook-events lists them).' }),
    hasHmacSecret: Type.Boolean({ description: 'Whether deliveries are signed. The secret itself is never returned.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WebhookEndpoint', additionalProperties: false },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** The columns toWebhookEndpoint reads (the secret only to tell whether there is one). */
export const WEBHOOK_ENDPOINT_COLUMNS = [
  'id',
  'url',
  'is_active',
  'events',
  'secret_ciphertext',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof WebhookEndpointRow)[];
export type WebhookEndpointFields = Pick<WebhookEndpointRow, (typeof WEBHOOK_ENDPOINT_COLUMNS)[number]>;

export const toWebhookEndpoint = (row: WebhookEndpointFields): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  isActive: row.is_active,
  events: row.events,
  hasHmacSecret: row.secret_ciphertext !== null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type WebhookEndpointEventName = 'webhook.created' | 'webhook.updated' | 'webhook.deleted';

export const webhookEvent = (
  organizationId: string,
  name: WebhookEndpointEventName,
  row: WebhookEndpointFields,
): EventToRecord => ({
  organizationId,
  name,
  schema: WebhookEndpoint,
  record: toWebhookEndpoint(row),
});
