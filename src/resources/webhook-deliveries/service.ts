import type { Kysely } from 'kysely';
import { renderEnvelope } from '../../versions/index.js';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { composeEnvelope } from '../../events/envelope.js';
import type { SecretBox } from '../../core/secret-box.js';
import { serializeRecord } from '../../events/serialize.js';
import { deliveryHeaders, signingKeys } from '../../events/signing.js';
import { conflict, notFound, unprocessable } from '../../core/errors.js';
import type { WebhookSender } from '../../jobs/dispatcher/sender.js';
import { listRecords } from '../../lists/engine.js';
import { compileFilterParam } from '../../lists/filter.js';
import type { ListParams } from '../../lists/query.js';
import { toDelivery, type DeliveryRow, type WebhookDelivery } from '../../records/delivery-record.js';
import { toWebhookEndpoint, WebhookEndpoint } from '../../records/webhook-endpoint.js';
import { findEventEnvelope } from '../events/index.js';
import { deliveryList, scopedDeliveryList } from './list.js';
import {
  findDelivery,
  findEndpoint,
  insertManualDelivery,
  isLiveOrganization,
  lockEndpoint,
  queueRecovery,
  recordOutcome,
  TEST_EVENT,
} from './queries.js';
import { RECOVER_LIMIT } from './schemas.js';

const ENDPOINT = 'The webhook endpoint';
export { TEST_EVENT };

const inactive = () =>
  conflict('The webhook endpoint is inactive, and an inactive endpoint receives nothing; set isActive to true first.');

/**
 * The delivery log of an endpoint (docs/api.md#delivery-log), and deliveries sent by hand: a resend and a test ping
 * (docs/api.md#resend-and-test-ping).
 */
export class WebhookDeliveryService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly sender: WebhookSender,
    private readonly box: SecretBox | null,
  ) {}

  async list(organizationId: string, webhookId: string, params: ListParams) {
    compileFilterParam(deliveryList, params.filter);
    if (!(await findEndpoint(this.db, organizationId, webhookId))) throw notFound(ENDPOINT);
    const scope = { webhookId };
    const filter = params.filter ? `{"$and":[${JSON.stringify(scope)},${params.filter}]}` : JSON.stringify(scope);
    return listRecords(this.db, {
      list: scopedDeliveryList,
      organizationId,
      params: { ...params, filter },
      toRecord: (row: DeliveryRow) => toDelivery(row),
    });
  }

  private openSecret(ciphertext: string): string {
    if (!this.box) throw new Error('PATRON_SECRET_KEY is needed to sign webhook deliveries');
    return this.box.open(ciphertext);
  }

  /** A new record with the same idempotencyKey and payload, sent now to the endpoint's current URL. */
  async resend(organizationId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.sendByHand(organizationId, webhookId, async (trx) => {
      const original = await findDelivery(trx, organizationId, webhookId, deliveryId);
      if (!original) throw notFound('The delivery');
      return {
        eventId: original.event_id,
        eventName: original.event_name,
        idempotencyKey: original.idempotency_key,
        body: original.body,
      };
    });
  }

  /** A webhook.test ping whose data is the endpoint itself, sent whatever the endpoint subscribes to. */
  async test(organizationId: string, webhookId: string): Promise<WebhookDelivery> {
    return this.sendByHand(organizationId, webhookId, async (trx, endpoint) => {
      const idempotencyKey = uuidv7();
      const data = serializeRecord(WebhookEndpoint, toWebhookEndpoint(endpoint));
      return {
        eventId: null,
        eventName: TEST_EVENT,
        idempotencyKey,
        body: composeEnvelope(
          {
            event: TEST_EVENT,
            timestamp: new Date(),
            id: idempotencyKey,
            livemode: await isLiveOrganization(trx, organizationId),
          },
          data,
        ),
      };
    });
  }

  /**
   * A past event sent now to one endpoint as a new delivery, whatever the endpoint subscribes to
   * (docs/api.md#events-api): the event's envelope as its deliveries send it, with its idempotencyKey, so a receiver
   * that already handled it can tell. The event is the path's record (404); the endpoint is the body's reference (422).
   */
  async deliverEvent(organizationId: string, eventId: string, webhookId: string): Promise<WebhookDelivery> {
    const { rows } = await findEventEnvelope(this.db, organizationId, eventId);
    const event = rows[0];
    if (!event) throw notFound('The event');
    const name = (JSON.parse(event.body) as { event: string }).event;
    const missing = () =>
      unprocessable(`Webhook endpoint "${webhookId}" does not exist in this organization.`, [
        { path: 'body.webhookEndpointId', message: 'does not exist' },
      ]);
    return this.sendByHand(
      organizationId,
      webhookId,
      async () => ({ eventId, eventName: name, idempotencyKey: eventId, body: event.body }),
      missing,
    );
  }

  /**
   * Queues again, by hand, the failed deliveries of a receiver's outage (docs/api.md#recovering-a-receivers-outage).
   * Under the endpoint's lock, like the fan-out, so the new sequences follow commit order.
   */
  async recover(organizationId: string, webhookId: string, since: string): Promise<{ queued: number; more: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      const endpoint = await lockEndpoint(trx, organizationId, webhookId);
      if (!endpoint) throw notFound(ENDPOINT);
      if (!endpoint.is_active) throw inactive();
      const { rows } = await queueRecovery(trx, {
        organizationId,
        webhookId,
        url: endpoint.url,
        since,
        limit: RECOVER_LIMIT,
      });
      const queued = Number(rows[0]?.queued ?? 0);
      return { queued, more: Number(rows[0]?.found ?? 0) > queued };
    });
  }

  /**
   * Records the delivery as `sending` (committed before the POST, like the dispatcher), sends it at once and
   * returns the record with its outcome. It goes beside the endpoint's queue, not through it: a by-hand send is
   * not part of the commit-order stream and should not wait behind a backlog.
   */
  private async sendByHand(
    organizationId: string,
    webhookId: string,
    prepare: (
      trx: Kysely<DB>,
      endpoint: NonNullable<Awaited<ReturnType<typeof lockEndpoint>>>,
    ) => Promise<{ eventId: string | null; eventName: string; idempotencyKey: string; body: string }>,
    missingEndpoint: () => Error = () => notFound(ENDPOINT),
  ): Promise<WebhookDelivery> {
    const { row, text, secrets, version } = await this.db.transaction().execute(async (trx) => {
      const endpoint = await lockEndpoint(trx, organizationId, webhookId);
      if (!endpoint) throw missingEndpoint();
      const prepared = await prepare(trx, endpoint);
      // Rendered for the endpoint's version, like the dispatcher's deliveries (docs/api.md#api-versions).
      const delivery = { ...prepared, body: renderEnvelope(prepared.body, endpoint.delivery_version) };
      if (!endpoint.is_active) throw inactive();
      const { rows } = await insertManualDelivery(trx, { organizationId, webhookId, url: endpoint.url, ...delivery });
      const secrets = [endpoint.secret_ciphertext, endpoint.live_previous_secret] as const;
      return { row: rows[0]!, text: delivery.body, secrets, version: endpoint.delivery_version };
    });
    const body = Buffer.from(text, 'utf8');
    // Signed like the dispatcher's deliveries: the current secret, and the previous one during a rotation.
    const [secret, previous] = secrets.map((ciphertext) => (ciphertext === null ? null : this.openSecret(ciphertext)));
    const headers = deliveryHeaders(signingKeys(secret ?? null, previous ?? null), {
      idempotencyKey: row.idempotency_key,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    const outcome = await this.sender.send(row.url, body, { ...headers, 'patron-version': version });
    const recorded = await recordOutcome(this.db, organizationId, row.id, outcome);
    return toDelivery(recorded ?? row);
  }
}
