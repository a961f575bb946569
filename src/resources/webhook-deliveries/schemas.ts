import Type, { type Static } from 'typebox';
import { Timestamp, Uuid } from '../../records/common.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const;

/** The body a delivery POSTs (service.md Events "Envelope"), as it was sent. */
export const Envelope = Type.Object(
  {
    event: Type.String({ description: 'The event name, e.g. order.updated; webhook.test for a test ping.' }),
    timestamp: Timestamp,
    idempotencyKey: Type.String({ description: 'The event id; the same for a resend.' }),
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
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid }, { additionalProperties: false });
