import { sql, type Kysely } from 'kysely';
import { PREPARE } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { SendOutcome } from './sender.js';

/**
 * The dispatcher's work queue in SQL. An endpoint is the unit of work: whoever holds its lease (lease_owner,
 * lease_expires_at on webhook_endpoints) is the only one sending its deliveries, in sequence order. The queue is a
 * cursor on the endpoint row (migration 0011): deliveries up to settled_through have their outcome, those up to
 * dispatched_through form the window being sent, the rest wait. Inside a window each delivery is marked `sending`
 * just before its POST (migration 0020), so a crash leaves at most one delivery per endpoint without an outcome.
 * This is cross-tenant by nature (a background job, not a request), so the claim spans organizations.
 */

export interface ClaimedEndpoint {
  organizationId: string;
  id: string;
  isActive: boolean;
  /** Every delivery up to this sequence has its outcome; the next window starts after it. */
  position: number;
  /** Deliveries a dead dispatcher was sending, recorded failed "interrupted" by this claim. */
  interrupted: number;
  /** The API version its deliveries are rendered in: its own, else its organization's (docs/api.md#api-versions). */
  apiVersion: string;
}

export interface WindowDelivery {
  id: string;
  sequence: number;
  idempotencyKey: string;
  /** The envelope: the exact bytes to send. */
  body: string;
}

export interface Target {
  url: string;
  secretCiphertext: string | null;
  /** The secret a rotation replaced, while it still signs (docs/api.md#rotating-a-secret); null otherwise. */
  previousSecretCiphertext: string | null;
}

export interface Window extends Target {
  /** The pending deliveries of the window, in sequence order (rows sent by hand are skipped). */
  deliveries: WindowDelivery[];
  /** The window's last sequence, skipped rows included: the position once all of it is settled. */
  through: number;
}

export interface Outcome {
  deliveryId: string;
  url: string;
  attemptedAt: Date;
  outcome: SendOutcome;
}

export const leaseInterval = (leaseMs: number) => sql`make_interval(secs => ${leaseMs / 1000})`;

/**
 * Leases up to `limit` endpoints with deliveries not yet settled and no live lease. SKIP LOCKED lets several
 * dispatchers claim at once without waiting on each other (or on a recording transaction). An expired lease (a
 * dead dispatcher) is taken over in the same statement: the deliveries of its window marked `sending` (their POST
 * may have left) are recorded failed "interrupted" and never sent again
 * (docs/api.md#crashes-and-interrupted-deliveries); the cursor goes back to the start of the window, so its
 * deliveries still `pending` are sent by the new owner, in order.
 */
export async function claimEndpoints(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedEndpoint[]> {
  // Prepared: every dispatcher runs it on every poll, idle or not, and planning it cost more than running it
  // (docs/journal/2026-11-28-noise-stale-statement-idle-server.md).
  const { rows } = await sql<{
    organization_id: string;
    id: string;
    is_active: boolean;
    position: string;
    interrupted: string;
    api_version: string;
  }>`${PREPARE}
    with candidates as (
      select e.organization_id, e.id, e.settled_through, e.dispatched_through from webhook_endpoints e
      where e.last_sequence > e.settled_through and (e.lease_owner is null or e.lease_expires_at < now())
      limit ${limit}
      for update of e skip locked
    ),
    interrupted as (
      update webhook_deliveries d set status = 'failed', error = 'interrupted', updated_at = now()
      from candidates c
      where d.organization_id = c.organization_id and d.webhook_id = c.id
        and d.sequence > c.settled_through and d.sequence <= c.dispatched_through and d.status = 'sending'
      returning d.organization_id, d.webhook_id
    ),
    leased as (
      update webhook_endpoints e set lease_owner = ${owner}, lease_expires_at = now() + ${leaseInterval(leaseMs)},
        dispatched_through = c.settled_through
      from candidates c
      where e.organization_id = c.organization_id and e.id = c.id
      returning e.organization_id, e.id, e.is_active, e.settled_through, e.api_version
    )
    select l.organization_id, l.id, l.is_active, l.settled_through as position,
      (select count(*) from interrupted i where i.organization_id = l.organization_id and i.webhook_id = l.id) as interrupted,
      coalesce(l.api_version, (select o.api_version from organizations o where o.id = l.organization_id)) as api_version
    from leased l`.execute(db);
  return rows.map((row) => ({
    organizationId: row.organization_id,
    id: row.id,
    isActive: row.is_active,
    position: Number(row.position),
    interrupted: Number(row.interrupted),
    apiVersion: row.api_version,
  }));
}

/**
 * Claims the next window: up to `size` deliveries after `position`, by moving the endpoint's cursor in one small
 * update that also records everything up to `position` as settled and renews the lease. When nothing is left it
 * gives the endpoint back instead (so an idle endpoint costs no separate release). Resolves null when the lease is
 * no longer ours or the endpoint became inactive or was deleted; `deliveries` is empty when the endpoint was
 * released. The envelope is composed from the event here (webhook_envelope), at read time.
 */
export async function claimWindow(
  db: Kysely<DB>,
  owner: string,
  endpoint: ClaimedEndpoint,
  { position, size, leaseMs }: { position: number; size: number; leaseMs: number },
): Promise<Window | null> {
  const { organizationId, id } = endpoint;
  // webhook_claim_window (migration 0011): the statement below, as a function so its plan is cached.
  //   with win as (the next `size` deliveries after `position`, by the (organization_id, webhook_id, sequence) index),
  //   moved as (update the endpoint, if still ours and active: settled_through = position, dispatched_through =
  //     the window's last sequence, lease renewed; or, when the window is empty, lease released)
  //   select the endpoint's url, secret and previous secret (migration 0023: while it has not expired), and each
  //     delivery with its envelope (pending ones only)
  const { rows } = await sql<{
    url: string;
    secret_ciphertext: string | null;
    previous_secret_ciphertext: string | null;
    id: string | null;
    sequence: string | null;
    idempotency_key: string | null;
    body: string | null;
  }>`select * from webhook_claim_window(${owner}, ${organizationId}, ${id}, ${position}, ${size}, ${leaseInterval(leaseMs)})`.execute(
    db,
  );
  if (rows.length === 0) return null;
  const first = rows[0]!;
  const window: Window = {
    url: first.url,
    secretCiphertext: first.secret_ciphertext,
    previousSecretCiphertext: first.previous_secret_ciphertext,
    deliveries: [],
    through: position,
  };
  for (const row of rows) {
    if (row.sequence === null) continue;
    window.through = Number(row.sequence);
    if (row.body !== null)
      window.deliveries.push({
        id: row.id!,
        sequence: window.through,
        idempotencyKey: row.idempotency_key!,
        body: row.body,
      });
  }
  return window;
}

/**
 * The one statement before each POST (webhook_start_delivery, migration 0020): writes the outcomes not yet written
 * (the endpoint's previous POST), then, if the endpoint is still active and ours, marks the delivery `sending` and
 * answers the URL and secrets to use (the previous one while a rotation's 24 hours last, migration 0023). Null when the endpoint is no longer ours or active, or the delivery is no
 * longer pending: the window stops there. Committed durably before the POST, which is what makes a crash cost at
 * most this one delivery.
 */
export async function startDelivery(
  db: Kysely<DB>,
  owner: string,
  endpoint: ClaimedEndpoint,
  {
    deliveryId,
    attemptedAt,
    previous,
  }: {
    deliveryId: string;
    attemptedAt: Date;
    /** The endpoint's previous POST's outcome, not yet written. */
    previous: Outcome | undefined;
  },
): Promise<Target | null> {
  // Prepared once per connection: it runs once per delivery.
  const { rows } = await sql<{
    url: string;
    secret_ciphertext: string | null;
    previous_secret_ciphertext: string | null;
  }>`${PREPARE}select * from
    webhook_start_delivery(${owner}, ${endpoint.organizationId}, ${endpoint.id}, ${deliveryId}, ${attemptedAt},
      ${previous?.deliveryId ?? null}, ${previous?.outcome.status ?? null}, ${previous?.outcome.error ?? null},
      ${previous?.outcome.responseStatus ?? null}, ${previous?.url ?? null}, ${previous?.attemptedAt ?? null})`.execute(
    db,
  );
  const row = rows[0];
  return row
    ? {
        url: row.url,
        secretCiphertext: row.secret_ciphertext,
        previousSecretCiphertext: row.previous_secret_ciphertext,
      }
    : null;
}

/**
 * Outcomes not carried by a next startDelivery (the window's last POST), in one statement. Written unconditionally: they are what happened, even if the rows
 * were meanwhile declared interrupted by a dispatcher that took over an expired lease. It touches delivery rows
 * only, never the endpoint, so it cannot deadlock with an endpoint's deletion (which locks the endpoint first).
 */
export async function writeOutcomes(
  db: Kysely<DB>,
  organizationId: string,
  outcomes: readonly Outcome[],
): Promise<void> {
  if (outcomes.length === 0) return;
  // webhook_record_outcomes (migration 0011): one UPDATE … FROM unnest(arrays), a function so its plan is cached.
  await sql`select webhook_record_outcomes(${organizationId},
    ${outcomes.map((o) => o.deliveryId)}::uuid[], ${outcomes.map((o) => o.outcome.status)}::text[],
    ${outcomes.map((o) => o.outcome.error)}::text[], ${outcomes.map((o) => o.outcome.responseStatus)}::int[],
    ${outcomes.map((o) => o.url)}::text[], ${outcomes.map((o) => o.attemptedAt.toISOString())}::timestamptz[])`.execute(
    db,
  );
}

/**
 * An endpoint made inactive receives nothing more: its waiting deliveries are recorded failed and its cursor moves
 * past them. The lock re-checks that it is still inactive (and still ours), so a reactivation that commits first
 * keeps them waiting. Gives the endpoint back.
 */
export async function failInactive(db: Kysely<DB>, owner: string, endpoint: ClaimedEndpoint): Promise<number> {
  const { rows } = await sql<{ failed: string }>`
    with still_inactive as (
      select organization_id, id, last_sequence from webhook_endpoints
      where organization_id = ${endpoint.organizationId} and id = ${endpoint.id} and lease_owner = ${owner} and not is_active
      for update
    ),
    failed as (
      update webhook_deliveries d set status = 'failed', error = 'endpoint inactive', updated_at = now()
      from still_inactive e
      where d.organization_id = e.organization_id and d.webhook_id = e.id and d.sequence > ${endpoint.position} and d.status = 'pending'
      returning 1
    ),
    released as (
      update webhook_endpoints w set settled_through = e.last_sequence, dispatched_through = e.last_sequence,
        lease_owner = null, lease_expires_at = null
      from still_inactive e
      where w.organization_id = e.organization_id and w.id = e.id
    )
    select count(*) as failed from failed`.execute(db);
  return Number(rows[0]?.failed ?? 0);
}

/**
 * The same crash rule (docs/api.md#crashes-and-interrupted-deliveries) for any delivery left `sending`: those sent
 * by hand (resend, test ping), inserted `sending` before their POST outside any window, and a window's delivery whose
 * endpoint no dispatcher has claimed since. One older than the lease belongs to no live sender (a send never
 * outlives the time-out, which is shorter, and its outcome is written right after it).
 */
export async function failInterrupted(db: Kysely<DB>, leaseMs: number): Promise<number> {
  const result = await sql`
    update webhook_deliveries set status = 'failed', error = 'interrupted', updated_at = now()
    where status = 'sending' and attempted_at < now() - ${leaseInterval(leaseMs)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Gives the endpoint back with everything up to `position` settled and nothing in flight, so another dispatcher
 * (or this one, later) continues after it. A no-op when the lease is no longer ours.
 */
export async function releaseEndpoint(
  db: Kysely<DB>,
  owner: string,
  endpoint: ClaimedEndpoint,
  position: number,
): Promise<void> {
  await sql`
    update webhook_endpoints set settled_through = ${position}, dispatched_through = ${position}, lease_owner = null, lease_expires_at = null
    where organization_id = ${endpoint.organizationId} and id = ${endpoint.id} and lease_owner = ${owner}`.execute(db);
}

/**
 * On shutdown: every lease this dispatcher still holds (normally none: each endpoint task releases its own). The
 * cursors are left as they are, so a delivery left `sending` is recorded interrupted by the next claimer.
 */
export async function releaseAll(db: Kysely<DB>, owner: string): Promise<void> {
  // Locked in key order first, like every statement touching several endpoints, so it cannot deadlock a recorder.
  await sql`
    update webhook_endpoints set lease_owner = null, lease_expires_at = null
    where (organization_id, id) in (
      select organization_id, id from webhook_endpoints where lease_owner = ${owner} order by organization_id, id for update)`.execute(
    db,
  );
}
