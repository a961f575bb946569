import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

/**
 * The envelope of an event `e` of the organization as its deliveries send it (webhook_envelope, migrations 0036 and
 * 0038), as text. Its `livemode` is the organization's (docs/api.md#test-mode), read once per statement.
 */
export const envelopeOf = (organizationId: string) =>
  sql<string>`webhook_envelope(e.name, e.created_at, e.id, e.payload,
    (select o.live_organization_id is null from organizations o where o.id = ${organizationId}::uuid))`;

export const findEventEnvelope = (db: Executor, organizationId: string, id: string) =>
  sql<{ body: string }>`select ${envelopeOf(organizationId)} as body from events e
    where e.organization_id = ${organizationId}::uuid and e.id = ${id}::uuid`.execute(db);
