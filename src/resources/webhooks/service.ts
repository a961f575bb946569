import type { Kysely } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { Config } from '../../config/index.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { createSecretBox, type SecretBox } from '../../core/secret-box.js';
import type { EventCatalog } from '../../core/types.js';
import type { WebhookUrlPolicy } from '../../events/webhook-url.js';
import { notFound, validationError, type ErrorDetail } from '../../core/errors.js';
import { listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { unwrapData } from '../../resource-kit/body.js';
import { generateStandardSecret } from '../../events/signing.js';
import { noSecretKey, toChanges } from './input.js';
import { webhookList } from './list.js';
import {
  deleteWebhookEndpointRow,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  lockOrganizationEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from './queries.js';
import type { WebhookBody, WebhookFields } from './schemas.js';
import {
  toWebhookEndpoint,
  webhookEvent,
  type WebhookEndpoint,
  type WebhookEndpointRotated,
  type WebhookEndpointRow,
  type WebhookEndpointSaved,
} from '../../records/webhook-endpoint.js';

const NOUN = 'webhook endpoint';
const FIELDS = ['url', 'events', 'isActive', 'apiVersion', 'hmacSecret', 'generateSecret'] as const;

/** The secret the server generated, answered once (docs/api.md#endpoint-records-and-secrets). */
const withGenerated = (endpoint: WebhookEndpoint, generatedSecret: string | undefined): WebhookEndpointSaved =>
  generatedSecret === undefined ? endpoint : { ...endpoint, hmacSecret: generatedSecret };

export const webhookUrlPolicy = (config: Config): WebhookUrlPolicy => ({
  allowHttp: config.allowHttpWebhooks,
  allowPrivateHosts: config.webhookAllowPrivateHosts,
});

export class WebhookService {
  private readonly policy: WebhookUrlPolicy;
  /** Seals secrets at rest; null when the server runs without PATRON_SECRET_KEY. */
  readonly box: SecretBox | null;

  constructor(
    private readonly db: Kysely<DB>,
    config: Config,
    private readonly eventCatalog: EventCatalog,
  ) {
    this.policy = webhookUrlPolicy(config);
    // Serve resolves the key before it builds the app; without one, only requests that carry a secret fail.
    this.box = config.secretKey ? createSecretBox(config.secretKey) : null;
  }

  catalog() {
    return { data: this.eventCatalog.events.map(({ name, firesWhen, firing }) => ({ name, firesWhen, firing })) };
  }

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, {
      list: webhookList,
      organizationId,
      params,
      toRecord: (row: WebhookEndpointRow) => toWebhookEndpoint(row),
    });
  }

  async get(organizationId: string, id: string): Promise<WebhookEndpoint> {
    const row = await findWebhookEndpoint(this.db, organizationId, id);
    if (!row) throw notFound('The webhook endpoint');
    return toWebhookEndpoint(row);
  }

  async create(organizationId: string, body: WebhookBody | undefined): Promise<WebhookEndpointSaved> {
    const { fields, path } = unwrapData<WebhookFields>(body, NOUN);
    const missing: ErrorDetail[] = (['url', 'events'] as const)
      .filter((field) => fields[field] === undefined)
      .map((field) => ({ path: `${path}.${field}`, message: 'is required' }));
    if (missing.length) {
      throw validationError(
        `Invalid request: ${missing.map((detail) => detail.path).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required.`,
        missing,
      );
    }
    const changes = await toChanges(fields, path, { policy: this.policy, box: this.box, catalog: this.eventCatalog });
    return this.db.transaction().execute(async (trx) => {
      await lockOrganizationEndpoints(trx, organizationId);
      const row = await insertWebhookEndpoint(trx, {
        organizationId,
        id: uuidv7(),
        url: changes.url!,
        events: changes.events!,
        isActive: changes.isActive ?? true,
        apiVersion: changes.apiVersion ?? null,
        secretCiphertext: changes.secretCiphertext ?? null,
      });
      await recordEvents(trx, [webhookEvent(organizationId, 'webhook.created', row)]);
      return withGenerated(toWebhookEndpoint(row), changes.generatedSecret);
    });
  }

  /** PUT: the fields sent replace the stored ones; fields left out keep their values (as service.md says of hmacSecret). */
  async update(organizationId: string, id: string, body: WebhookBody | undefined): Promise<WebhookEndpointSaved> {
    const { fields, path } = unwrapData<WebhookFields>(body, NOUN);
    // generateSecret: false asks for nothing.
    const sent = (field: (typeof FIELDS)[number]) =>
      field === 'generateSecret' ? fields.generateSecret === true : fields[field] !== undefined;
    if (!FIELDS.some(sent)) {
      throw validationError(`Invalid request: ${path} must hold at least one of ${FIELDS.join(', ')}.`, [
        { path, message: `must hold at least one of ${FIELDS.join(', ')}` },
      ]);
    }
    const changes = await toChanges(fields, path, { policy: this.policy, box: this.box, catalog: this.eventCatalog });
    return this.db.transaction().execute(async (trx) => {
      await lockOrganizationEndpoints(trx, organizationId);
      const before = await findWebhookEndpoint(trx, organizationId, id);
      if (!before) throw notFound('The webhook endpoint');
      // The secret sent is compared with the stored one opened (each sealing differs); it is unchanged only when no
      // rotation's previous secret is still kept, since setting it ends that overlap.
      const sent = fields.generateSecret === true ? undefined : fields.hmacSecret;
      const keepsSecret =
        sent !== undefined &&
        before.previous_secret_ciphertext === null &&
        this.storedSecret(before.secret_ciphertext) === sent;
      const row = await updateWebhookEndpoint(trx, organizationId, id, {
        ...changes,
        ...(keepsSecret ? { secretCiphertext: undefined } : {}),
      });
      // A PUT that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toWebhookEndpoint(before);
      await recordEvents(trx, [webhookEvent(organizationId, 'webhook.updated', row)]);
      return withGenerated(toWebhookEndpoint(row), changes.generatedSecret);
    });
  }

  /**
   * A new Standard Webhooks secret, answered once; the one it replaces keeps signing beside it for 24 hours
   * (docs/api.md#rotating-a-secret). Records webhook.updated, like any change to the endpoint.
   */
  async rotateSecret(organizationId: string, id: string): Promise<WebhookEndpointRotated> {
    if (!this.box) throw noSecretKey('');
    const secret = generateStandardSecret();
    const sealed = this.box.seal(secret);
    return this.db.transaction().execute(async (trx) => {
      await lockOrganizationEndpoints(trx, organizationId);
      const row = await rotateWebhookSecret(trx, organizationId, id, sealed);
      if (!row) throw notFound('The webhook endpoint');
      await recordEvents(trx, [webhookEvent(organizationId, 'webhook.updated', row)]);
      return {
        ...toWebhookEndpoint(row),
        hmacSecret: secret,
        previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
      };
    });
  }

  /** The stored secret as the caller would send it: null when none; undefined when it cannot be opened. */
  private storedSecret(ciphertext: string | null): string | null | undefined {
    if (ciphertext === null) return null;
    if (!this.box) return undefined;
    try {
      return this.box.open(ciphertext);
    } catch {
      return undefined;
    }
  }

  /** Deletes the endpoint and its delivery log; deliveries still waiting for it go with the log. */
  async delete(organizationId: string, id: string): Promise<WebhookEndpoint> {
    return this.db.transaction().execute(async (trx) => {
      await lockOrganizationEndpoints(trx, organizationId);
      const row = await deleteWebhookEndpointRow(trx, organizationId, id);
      if (!row) throw notFound('The webhook endpoint');
      await recordEvents(trx, [webhookEvent(organizationId, 'webhook.deleted', row)]);
      return toWebhookEndpoint(row);
    });
  }
}
