import { sql } from 'kysely';
import { SQL_UUID_V7 } from '../../events/outbox.js';
import type { SendOutcome } from '../../jobs/dispatcher/sender.js';
import type { Executor } from '../../db/executor.js';
import type { DeliveryRow } from '../../records/delivery-record.js';

export const findEndpoint = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'is_active'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The endpoint, locked so its sequence can be drawn; the whole row, for the test ping's data. */
export const lockEndpoint = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

export const findDelivery = (db: Executor, organizationId: string, webhookId: string, id: string) =>
  db
    .selectFrom('webhook_delivery_records')
    .select(['event_id', 'event_name', 'idempotency_key', sql<string>`payload::text`.as('body')])
    .where('organization_id', '=', organizationId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * A delivery sent by hand, inserted already `sending` (so the dispatcher never picks it up) with the endpoint's
 * next sequence. The caller holds the endpoint's lock; the row commits before the POST starts, so a crash leaves it
 * to be recorded "interrupted" rather than lost.
 */
export const insertManualDelivery = (
  trx: Executor,
  values: {
    organizationId: string;
    webhookId: string;
    url: string;
    eventId: string | null;
    eventName: string;
    idempotencyKey: string;
    body: string;
  },
) =>
  sql<DeliveryRow>`
    with endpoint as (
      update webhook_endpoints set last_sequence = last_sequence + 1
      where organization_id = ${values.organizationId} and id = ${values.webhookId}
      returning last_sequence
    )
    insert into webhook_deliveries
      (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload, status, attempted_at)
    select ${values.organizationId}, ${SQL_UUID_V7}, ${values.webhookId}, endpoint.last_sequence, ${values.eventId}, ${values.eventName},
      ${values.idempotencyKey}, ${values.url}, ${values.body}::json, 'sending', now()
    from endpoint
    returning *`.execute(trx);

export const recordOutcome = (db: Executor, organizationId: string, id: string, outcome: SendOutcome) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      error: outcome.error,
      response_status: outcome.responseStatus,
      updated_at: sql<Date>`now()`,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
