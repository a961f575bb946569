import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The dispatcher's work queue in SQL. An endpoint is the unit of work: whoever holds its lease (lease_owner,
 * lease_expires_at on webhook_endpoints) is the only one sending its deliveries, one at a time in sequence order.
 * This is cross-tenant by nature (a background job, not a request), so these statements span organizations.
 */

export interface ClaimedEndpoint {
  organizationId: string;
  id: string;
  isActive: boolean;
}

export interface PendingDelivery {
  id: string;
  idempotencyKey: string;
  /** The envelope as stored: the exact bytes to send. */
  body: string;
}

export const leaseInterval = (leaseMs: number) => sql`make_interval(secs => ${leaseMs / 1000})`;

/**
 * Leases up to `limit` endpoints that have pending deliveries and no live lease. SKIP LOCKED lets several
 * dispatchers claim at once without waiting on each other; an expired lease (a dead dispatcher) is taken over.
 */
export async function claimEndpoints(db: Kysely<DB>, owner: string, limit: number, leaseMs: number): Promise<ClaimedEndpoint[]> {
  const { rows } = await sql<{ organization_id: string; id: string; is_active: boolean }>`
    with candidates as (
      select e.organization_id, e.id from webhook_endpoints e
      where (e.lease_owner is null or e.lease_expires_at < now())
        and exists (
          select 1 from webhook_deliveries d
          where d.organization_id = e.organization_id and d.webhook_id = e.id and d.status = 'pending')
      limit ${limit}
      for update of e skip locked
    )
    update webhook_endpoints e set lease_owner = ${owner}, lease_expires_at = now() + ${leaseInterval(leaseMs)}
    from candidates c
    where e.organization_id = c.organization_id and e.id = c.id
    returning e.organization_id, e.id, e.is_active`.execute(db);
  return rows.map((row) => ({ organizationId: row.organization_id, id: row.id, isActive: row.is_active }));
}

/** The endpoint's next pending deliveries in sequence (commit) order. */
export async function fetchPending(db: Kysely<DB>, endpoint: ClaimedEndpoint, limit: number): Promise<PendingDelivery[]> {
  const { rows } = await sql<{ id: string; idempotency_key: string; body: string }>`
    select id, idempotency_key, payload::text as body from webhook_deliveries
    where organization_id = ${endpoint.organizationId} and webhook_id = ${endpoint.id} and status = 'pending'
    order by sequence
    limit ${limit}`.execute(db);
  return rows.map((row) => ({ id: row.id, idempotencyKey: row.idempotency_key, body: row.body }));
}

/**
 * An endpoint made inactive receives nothing more: its queued deliveries are recorded failed. The lock re-checks
 * that it is still inactive (and still ours), so a reactivation that commits first keeps them pending.
 */
export async function failInactive(db: Kysely<DB>, owner: string, endpoint: ClaimedEndpoint): Promise<number> {
  const result = await sql`
    with still_inactive as (
      select 1 from webhook_endpoints
      where organization_id = ${endpoint.organizationId} and id = ${endpoint.id} and lease_owner = ${owner} and not is_active
      for update
    )
    update webhook_deliveries set status = 'failed', error = 'endpoint inactive', updated_at = now()
    where organization_id = ${endpoint.organizationId} and webhook_id = ${endpoint.id} and status = 'pending'
      and exists (select 1 from still_inactive)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * D23: a delivery left `sending` by a process that died is recorded failed, not sent again. Every `sending` row
 * was marked while its sender extended the endpoint's lease to at least attempted_at + lease, and a send never
 * outlives the time-out (< lease), so a row older than the lease belongs to no live sender.
 */
export async function failInterrupted(db: Kysely<DB>, leaseMs: number): Promise<number> {
  const result = await sql`
    update webhook_deliveries set status = 'failed', error = 'interrupted', updated_at = now()
    where status = 'sending' and attempted_at < now() - ${leaseInterval(leaseMs)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Gives the endpoint back, so another dispatcher (or this one, later) can claim it. */
export async function releaseEndpoint(db: Kysely<DB>, owner: string, endpoint: ClaimedEndpoint): Promise<void> {
  await sql`
    update webhook_endpoints set lease_owner = null, lease_expires_at = null
    where organization_id = ${endpoint.organizationId} and id = ${endpoint.id} and lease_owner = ${owner}`.execute(db);
}

/** On shutdown: every lease this dispatcher still holds. */
export async function releaseAll(db: Kysely<DB>, owner: string): Promise<void> {
  // Locked in key order first, like every statement touching several endpoints, so it cannot deadlock a recorder.
  await sql`
    update webhook_endpoints set lease_owner = null, lease_expires_at = null
    where (organization_id, id) in (
      select organization_id, id from webhook_endpoints where lease_owner = ${owner} order by organization_id, id for update)`.execute(db);
}
