import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

/** The envelope of an event as its deliveries send it (webhook_envelope, migration 0036), as text. */
export const ENVELOPE = sql<string>`webhook_envelope(e.name, e.created_at, e.id, e.payload)`;

export const findEventEnvelope = (db: Executor, organizationId: string, id: string) =>
  sql<{ body: string }>`select ${ENVELOPE} as body from events e
    where e.organization_id = ${organizationId}::uuid and e.id = ${id}::uuid`.execute(db);
