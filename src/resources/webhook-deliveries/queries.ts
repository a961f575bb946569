import { sql } from 'kysely';
import { SQL_UUID_V7 } from '../../events/outbox.js';
import type { SendOutcome } from '../../jobs/dispatcher/sender.js';
import type { Executor } from '../../db/executor.js';
import type { DeliveryRow } from '../../records/delivery-record.js';

/** The event name of a test ping, which is not an event of the catalog. */
export const TEST_EVENT = 'webhook.test';

export const findEndpoint = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'is_active'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The endpoint, locked so its sequence can be drawn; the whole row, for the test ping's data, and the previous secret
 * while it still signs (docs/api.md#rotating-a-secret), by the database's clock like the dispatcher's.
 */
export const lockEndpoint = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .select(
      sql<string | null>`case when previous_secret_expires_at > now() then previous_secret_ciphertext end`.as(
        'live_previous_secret',
      ),
    )
    // The version its deliveries are rendered in: its own, else its organization's (docs/api.md#api-versions).
    .select(
      sql<string>`coalesce(webhook_endpoints.api_version,
        (select o.api_version from organizations o where o.id = webhook_endpoints.organization_id))`.as(
        'delivery_version',
      ),
    )
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
      (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload, status, attempted_at,
        requested)
    select ${values.organizationId}, ${SQL_UUID_V7}, ${values.webhookId}, endpoint.last_sequence, ${values.eventId}, ${values.eventName},
      ${values.idempotencyKey}, ${values.url}, ${values.body}::json, 'sending', now(), true
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

/**
 * Queues a new delivery for every idempotencyKey of the endpoint whose deliveries created since `since` all failed
 * (docs/api.md#recovering-a-receivers-outage): in the order of their first delivery, behind the endpoint's queue,
 * with the same event, name, idempotencyKey and payload. A key with a delivery that succeeded, or one still pending
 * or sending (a recovery queued earlier), is skipped, so recovering twice queues nothing twice. Test pings are not
 * events and are skipped. The caller holds the endpoint's lock (the sequences follow it).
 */
export const queueRecovery = (
  trx: Executor,
  values: { organizationId: string; webhookId: string; url: string; since: string; limit: number },
) =>
  sql<{ queued: string; found: string }>`
    with failed as (
      select distinct on (d.idempotency_key) d.idempotency_key, d.event_id, d.event_name, d.payload, d.sequence
      from webhook_deliveries d
      where d.organization_id = ${values.organizationId} and d.webhook_id = ${values.webhookId}
        and d.status = 'failed' and d.created_at >= ${values.since}::timestamptz and d.event_name <> ${TEST_EVENT}
        and not exists (
          select 1 from webhook_deliveries o
          where o.organization_id = d.organization_id and o.webhook_id = d.webhook_id
            and o.idempotency_key = d.idempotency_key and o.status <> 'failed')
      order by d.idempotency_key, d.sequence
    ),
    chosen as (
      select f.*, row_number() over (order by f.sequence) as n from failed f order by f.sequence limit ${values.limit}
    ),
    bumped as (
      update webhook_endpoints set last_sequence = last_sequence + (select count(*) from chosen)
      where organization_id = ${values.organizationId} and id = ${values.webhookId}
      returning last_sequence - (select count(*) from chosen) as base
    ),
    inserted as (
      insert into webhook_deliveries
        (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload)
      select ${values.organizationId}, ${SQL_UUID_V7}, ${values.webhookId}, b.base + c.n, c.event_id, c.event_name,
        c.idempotency_key, ${values.url}, c.payload
      from chosen c cross join bumped b
      order by c.n
      returning 1
    ),
    counted as (select count(*) as queued from inserted)
    select counted.queued, (select count(*) from failed) as found,
      case when counted.queued > 0 then pg_notify('patron_webhook_deliveries', '') end as woke
    from counted`.execute(trx);

/** False for an organization's test twin: its envelopes say `livemode: false` (docs/api.md#test-mode). */
export async function isLiveOrganization(db: Executor, organizationId: string): Promise<boolean> {
  const { rows } = await sql<{ live: boolean }>`select live_organization_id is null as live from organizations
    where id = ${organizationId}::uuid`.execute(db);
  return rows[0]?.live ?? true;
}
