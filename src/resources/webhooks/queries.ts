import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { updateIfChanged } from '../../resource-kit/changes.js';

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_HOURS = 24;

export const findWebhookEndpoint = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * Locks every endpoint of the organization, in key order, before one is changed. recordEvents locks the endpoints
 * subscribed to the event in that same order; taking ours first in that order means a change to an endpoint can
 * never hold one endpoint while waiting for a lower one (a deadlock with a concurrent recorder).
 */
export const lockOrganizationEndpoints = (trx: Executor, organizationId: string) =>
  trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .forUpdate()
    .execute();

export const insertWebhookEndpoint = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    url: string;
    events: string[];
    isActive: boolean;
    apiVersion: string | null;
    secretCiphertext: string | null;
  },
) =>
  trx
    .insertInto('webhook_endpoints')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      url: values.url,
      events: values.events,
      is_active: values.isActive,
      api_version: values.apiVersion,
      secret_ciphertext: values.secretCiphertext,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export interface WebhookEndpointChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  isActive?: boolean | undefined;
  /** Undefined keeps the pinned version; null follows the organization's. */
  apiVersion?: string | null | undefined;
  /** Undefined keeps the stored secret; null removes it. Setting or removing it ends a rotation's overlap. */
  secretCiphertext?: string | null | undefined;
}

/** The fields given; undefined when they are the stored ones (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateWebhookEndpoint = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: WebhookEndpointChanges,
) =>
  updateIfChanged(
    trx,
    { table: 'webhook_endpoints', organizationId, id },
    {
      url: changes.url,
      events: changes.events,
      is_active: changes.isActive,
      api_version: changes.apiVersion,
      ...(changes.secretCiphertext !== undefined
        ? {
            secret_ciphertext: changes.secretCiphertext,
            previous_secret_ciphertext: null,
            previous_secret_expires_at: null,
          }
        : {}),
    },
  );

/**
 * A rotation (docs/api.md#rotating-a-secret): the new secret replaces the current one, which becomes the previous
 * secret for 24 hours, replacing any previous one still valid. An endpoint without a secret gets one and no previous.
 */
export const rotateWebhookSecret = (trx: Executor, organizationId: string, id: string, secretCiphertext: string) =>
  trx
    .updateTable('webhook_endpoints')
    .set({
      secret_ciphertext: secretCiphertext,
      previous_secret_ciphertext: sql<string | null>`secret_ciphertext`,
      previous_secret_expires_at: sql<Date | null>`case when secret_ciphertext is not null
        then now() + make_interval(hours => ${ROTATION_OVERLAP_HOURS}) end`,
      updated_at: sql<Date>`now()`,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Deletes the endpoint; its delivery log goes with it (webhook_deliveries cascades). */
export const deleteWebhookEndpointRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('webhook_endpoints')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
