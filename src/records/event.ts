/**
 * An event as GET /events reads it: exactly the body its deliveries POST (docs/api.md#events-api). A schema only: the
 * envelope is composed in SQL (webhook_envelope, migration 0036) and answered as that text, never rebuilt in Node.
 */
import Type, { type Static } from 'typebox';
import { Timestamp, Uuid } from './common.js';

export const Event = Type.Object(
  {
    id: Uuid,
    event: Type.String({ description: 'The event type, e.g. order.updated (what the `type` filter matches).' }),
    timestamp: Timestamp,
    idempotencyKey: Type.String({ description: 'The event id again: receivers deduplicate on it.' }),
    livemode: Type.Boolean({ description: 'True for live data (always, until test mode).' }),
    data: Type.Unknown({ description: 'The record the event is about, in the shape the API returned it then.' }),
  },
  { $id: 'Event', additionalProperties: false },
);
export type Event = Static<typeof Event>;
