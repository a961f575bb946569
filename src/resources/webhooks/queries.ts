import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

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
      secret_ciphertext: values.secretCiphertext,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export interface WebhookEndpointChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  isActive?: boolean | undefined;
  /** Undefined keeps the stored secret; null removes it. */
  secretCiphertext?: string | null | undefined;
}

export const updateWebhookEndpoint = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: WebhookEndpointChanges,
) =>
  trx
    .updateTable('webhook_endpoints')
    .set({
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.events !== undefined ? { events: changes.events } : {}),
      ...(changes.isActive !== undefined ? { is_active: changes.isActive } : {}),
      ...(changes.secretCiphertext !== undefined ? { secret_ciphertext: changes.secretCiphertext } : {}),
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
