/** The webhook delivery record: its response shape, the columns it is read from and the one row→record mapping. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { WebhookDeliveriesTable } from '../db/schema.js';
import { Timestamp, Uuid } from './common.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const;

/**
 * The body a delivery POSTs (service.md Events "Envelope", with `id` and `livemode`: docs/api.md#events-api), as it
 * was sent, in the order it was sent.
 */
export const Envelope = Type.Object(
  {
    id: Type.String({ description: 'The event id (GET /events/{id}); a test ping’s own id.' }),
    event: Type.String({ description: 'The event name, e.g. order.updated; webhook.test for a test ping.' }),
    timestamp: Timestamp,
    idempotencyKey: Type.String({ description: 'The event id; the same for a resend.' }),
    livemode: Type.Boolean({ description: 'True for live data (always, until test mode).' }),
    data: Type.Unknown({ description: 'The record the event is about, in the shape the API returns it.' }),
  },
  { additionalProperties: false },
);

/** service.md "Webhook delivery record", plus responseStatus. */
export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    webhookId: Uuid,
    eventName: Type.String(),
    idempotencyKey: Type.String(),
    url: Type.String({ description: "Where it was (or will be) sent: the endpoint's URL when sent." }),
    payload: Envelope,
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('sending'), Type.Literal('succeeded'), Type.Literal('failed')],
      {
        description:
          'pending (queued), sending (POST in progress), succeeded (2xx), failed (anything else; never retried).',
      },
    ),
    error: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it failed, e.g. "receiver answered HTTP 500", "timed out after 10000 ms", "interrupted"; null unless failed.',
    }),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: "The receiver's HTTP status, when it answered.",
    }),
    requested: Type.Boolean({
      description:
        'True for a delivery sent by hand (POST /events/{id}/deliver, a resend, a test ping), whether or not the endpoint subscribes to the event; false for one its subscription queued.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

/** A row of the webhook_delivery_records view (the table's columns, payload always present). */
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** The columns toDelivery reads. */
export const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'event_name',
  'idempotency_key',
  'url',
  'payload',
  'status',
  'error',
  'response_status',
  'requested',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DeliveryRow)[];
export type WebhookDeliveryFields = Pick<DeliveryRow, (typeof DELIVERY_COLUMNS)[number]>;

export const toDelivery = (row: WebhookDeliveryFields): WebhookDelivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventName: row.event_name,
  idempotencyKey: row.idempotency_key,
  url: row.url,
  // Both engines hand json columns back parsed, in the stored key order.
  payload: withEventId(row.payload as LegacyEnvelope),
  status: row.status,
  error: row.error,
  responseStatus: row.response_status,
  requested: row.requested,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

type LegacyEnvelope = Omit<WebhookDelivery['payload'], 'id' | 'livemode'> & Partial<WebhookDelivery['payload']>;

/**
 * A delivery sent by hand before the envelope carried `id` and `livemode` (migration 0036) stored its body without
 * them; it is shown with them (its idempotencyKey is the event's id, or the ping's own), so the log has one shape
 * (docs/api.md#events-api). Every other payload is returned as it is.
 */
const withEventId = (payload: LegacyEnvelope): WebhookDelivery['payload'] =>
  payload.id !== undefined && payload.livemode !== undefined
    ? (payload as WebhookDelivery['payload'])
    : {
        id: payload.idempotencyKey,
        event: payload.event,
        timestamp: payload.timestamp,
        idempotencyKey: payload.idempotencyKey,
        livemode: true,
        data: payload.data,
      };
