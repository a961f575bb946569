import Type from 'typebox';
import { Uuid } from '../../records/common.js';

export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid }, { additionalProperties: false });

/** At most this many deliveries are queued by one recovery (docs/api.md#recovering-a-receivers-outage). */
export const RECOVER_LIMIT = 10_000;

export const RecoverBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'Deliveries created at or after this time are recovered.',
      examples: ['2026-11-24T08:00:00Z'],
    }),
  },
  { additionalProperties: false },
);

export const RecoverResult = Type.Object(
  {
    queued: Type.Integer({
      minimum: 0,
      description: 'New deliveries queued behind the endpoint’s queue, one per failed idempotencyKey, in order.',
    }),
    more: Type.Boolean({
      description: `True when the recovery stopped at ${RECOVER_LIMIT.toLocaleString('en')} deliveries: call again to queue the rest.`,
    }),
  },
  { additionalProperties: false },
);

export const DeliverEventBody = Type.Object(
  {
    webhookEndpointId: Type.String({
      format: 'uuid',
      description: 'The endpoint of this organization to send the event to, whether or not it subscribes to its type.',
    }),
  },
  { additionalProperties: false },
);
