import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { SESSION_IDLE_HOURS } from '../../auth/accounts.js';

/** Below every UUID: where a walk over a primary key starts. */
const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The smallest UUID v7 of the millisecond `at`: every v7 id made before `at` sorts below it, so `id < bound` keeps a
 * walk over a primary key of v7 ids to the rows made before `at` and stops it there, however many newer rows follow.
 * Ids are compared byte-wise, which for v7 is time order (docs/api.md#identifiers).
 */
export function uuidV7Floor(at: Date): string {
  const hex = Math.max(0, Math.floor(at.getTime())).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

export interface Batch {
  /** Rows deleted by this statement. */
  deleted: number;
  /** Where the next statement starts (the last key this one looked at); null when the walk is over. */
  next: string | null;
}

/**
 * Runs one statement after another, each its own short transaction, until one reports the walk over; returns the
 * rows deleted. No pause between them: a statement takes a few milliseconds and holds only the rows it deletes, and
 * a pause measured no better for the API's p99 (docs/journal/2026-11-24-retention-prune.md), only a slower prune.
 */
export async function inBatches(step: (after: string) => Promise<Batch>, first = FIRST_UUID): Promise<number> {
  let total = 0;
  let after: string | null = first;
  while (after !== null) {
    const batch: Batch = await step(after);
    total += batch.deleted;
    after = batch.next;
  }
  return total;
}

interface Window {
  organizationId: string;
  /** Rows made before this are past the window. */
  cutoff: Date;
  /** Rows one statement deletes at most. */
  limit: number;
}

const counted = (rows: { deleted: number | string; last: string | null }[], limit: number): Batch => {
  const deleted = Number(rows[0]?.deleted ?? 0);
  // A statement that found fewer rows than it may take has reached the end of what is prunable.
  return { deleted, next: deleted < limit ? null : (rows[0]?.last ?? null) };
};

/**
 * Delivery records older than the window whose outcome is known (`succeeded` or `failed`); a `pending` or `sending`
 * one stays whatever its age (docs/api.md#retention). Walks the primary key (organization_id, id) upwards from
 * `after`, stopping at the window's first id; rows a request holds are skipped, not waited for.
 */
export async function pruneDeliveries(db: Kysely<DB>, window: Window, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with doomed as (
      select id from webhook_deliveries
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid and id < ${uuidV7Floor(window.cutoff)}::uuid
        and created_at < ${window.cutoff}::timestamptz and status in ('succeeded', 'failed')
      order by id
      limit ${window.limit}
      for update skip locked
    ),
    gone as (
      delete from webhook_deliveries
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select count(*) as deleted, max(id::text) as last from gone`.execute(db);
  return counted(rows, window.limit);
}

/**
 * Events older than the window that no delivery record refers to: a record's payload is composed from its event,
 * so an event lives as long as the last delivery of it, and a pending one keeps it until it is sent and its record
 * pruned (docs/api.md#retention). The reference is looked up by webhook_deliveries_event_brin (migration 0024).
 */
export async function pruneEvents(db: Kysely<DB>, window: Window, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with scanned as (
      select e.id from events e
      where e.organization_id = ${window.organizationId}::uuid and e.id > ${after}::uuid and e.id < ${uuidV7Floor(window.cutoff)}::uuid
        and e.created_at < ${window.cutoff}::timestamptz
      order by e.id
      limit ${window.limit}
    ),
    doomed as (
      select e.id from events e
      where e.organization_id = ${window.organizationId}::uuid and e.id = any(array(select id from scanned))
        and not exists (
          select 1 from webhook_deliveries d where d.organization_id = ${window.organizationId}::uuid and d.event_id = e.id)
      for update skip locked
    ),
    gone as (
      delete from events
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select (select count(*) from gone) as deleted, (select count(*) from scanned) as scanned,
      (select max(id::text) from scanned) as last`.execute(db);
  // Kept events are stepped over: the walk goes on while it finds old events, whether or not it could delete them.
  const row = rows[0] as { deleted: number | string; scanned: number | string; last: string | null } | undefined;
  const scanned = Number(row?.scanned ?? 0);
  return { deleted: Number(row?.deleted ?? 0), next: scanned < window.limit ? null : (row?.last ?? null) };
}

/** Finished jobs (`succeeded` or `failed`) that finished before the window; queued and running ones stay. */
export async function pruneJobs(db: Kysely<DB>, window: Window, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with doomed as (
      select id from jobs
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid and id < ${uuidV7Floor(window.cutoff)}::uuid
        and status in ('succeeded', 'failed') and finished_at < ${window.cutoff}::timestamptz
      order by id
      limit ${window.limit}
      for update skip locked
    ),
    gone as (
      delete from jobs
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select count(*) as deleted, max(id::text) as last from gone`.execute(db);
  return counted(rows, window.limit);
}

/**
 * Import provenance entries older than the window that a later import of the same record replaced. A record's
 * latest import is what include=importJob shows, so it stays; the earlier ones are never read. The primary key is
 * (organization_id, record_id, import_job_id), so this walk covers the organization's whole table, `limit` entries
 * per statement; the cursor is `record_id/import_job_id`.
 */
export async function pruneImportJobRecords(db: Kysely<DB>, window: Window, after: string): Promise<Batch> {
  const [afterRecord, afterJob = FIRST_UUID] = after.split('/');
  const { rows } = await sql<{ deleted: number | string; scanned: number | string; last: string | null }>`
    with scanned as (
      select ctid, record_id, import_job_id, created_at from import_job_records
      where organization_id = ${window.organizationId}::uuid
        and (record_id, import_job_id) > (${afterRecord}::uuid, ${afterJob}::uuid)
      order by record_id, import_job_id
      limit ${window.limit}
    ),
    -- A lateral probe per row (the primary key's (organization_id, record_id) prefix), never a scan of the table.
    replaced as (
      select s.ctid from scanned s
      cross join lateral (
        select 1 from import_job_records later
        where later.organization_id = ${window.organizationId}::uuid and later.record_id = s.record_id
          and (later.created_at, later.import_job_id) > (s.created_at, s.import_job_id)
        limit 1) l
      where s.created_at < ${window.cutoff}::timestamptz
    ),
    -- By the row's address: a row changed since the scan is no longer at it and is left for the next run.
    doomed as (
      select ctid from import_job_records
      where organization_id = ${window.organizationId}::uuid and ctid = any(array(select ctid from replaced))
      for update skip locked
    ),
    gone as (
      delete from import_job_records
      where organization_id = ${window.organizationId}::uuid and ctid = any(array(select ctid from doomed))
      returning 1
    )
    select (select count(*) from gone) as deleted, (select count(*) from scanned) as scanned,
      (select record_id::text || '/' || import_job_id::text from scanned
        order by record_id desc, import_job_id desc limit 1) as last`.execute(db);
  const row = rows[0];
  const scanned = Number(row?.scanned ?? 0);
  return { deleted: Number(row?.deleted ?? 0), next: scanned < window.limit ? null : (row?.last ?? null) };
}

/**
 * Idempotency keys past their expiry (24 h after their request, docs/api.md#idempotency-keys), which the key check
 * already treats as absent. Expiry is read on the database's clock, never the job's, so a job run with a clock set
 * ahead cannot release a key early. The cursor is the key itself.
 */
export async function pruneIdempotencyKeys(
  db: Kysely<DB>,
  window: Omit<Window, 'cutoff'> & { now: Date },
  after: string,
): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with doomed as (
      select key from idempotency_keys
      where organization_id = ${window.organizationId}::uuid and key > ${after}
        and expires_at <= least(now(), ${window.now}::timestamptz)
      order by key
      limit ${window.limit}
      for update skip locked
    ),
    gone as (
      delete from idempotency_keys
      where organization_id = ${window.organizationId}::uuid and key = any(array(select key from doomed))
      returning key
    )
    select count(*) as deleted, max(key) as last from gone`.execute(db);
  return counted(rows, window.limit);
}

/**
 * Export jobs whose file expired (7 days after they succeeded, docs/api.md#export-jobs), with their chunks (the
 * foreign key cascades), and those that failed or were cancelled (they keep no file) once finished before the jobs
 * window; and import jobs, with their skipped rows, once finished before the jobs window (docs/api.md#import-jobs).
 * Expiry is read on the job's clock, so a rehearsal with `--now` shows what a later night will prune. The
 * cursor is the job id.
 */
export async function pruneExpiredExports(
  db: Kysely<DB>,
  window: Window & { now: Date },
  after: string,
): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with doomed as (
      select id from bulk_jobs
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid
        and ((type = 'export' and (expires_at <= ${window.now}::timestamptz
            or (status in ('failed', 'cancelled') and finished_at < ${window.cutoff}::timestamptz)))
          or (type = 'import' and status in ('succeeded', 'failed', 'cancelled')
            and finished_at < ${window.cutoff}::timestamptz))
      order by id
      limit ${window.limit}
      for update skip locked
    ),
    gone as (
      delete from bulk_jobs
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select count(*) as deleted, max(id::text) as last from gone`.execute(db);
  return counted(rows, window.limit);
}

/**
 * Mail past the window once settled (sent, logged, suppressed, failed, interrupted), its body with it: the mail log
 * reaches back the window (docs/api.md#retention-windows). Queued and `sending` mail stays whatever its age, so nothing
 * waiting to go out is lost. Walks the primary key like pruneDeliveries.
 */
export async function pruneMail(db: Kysely<DB>, window: Window, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    with doomed as (
      select id from mail
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid and id < ${uuidV7Floor(window.cutoff)}::uuid
        and created_at < ${window.cutoff}::timestamptz and status not in ('queued', 'sending')
      order by id
      limit ${window.limit}
      for update skip locked
    ),
    gone as (
      delete from mail
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select count(*) as deleted, max(id::text) as last from gone`.execute(db);
  return counted(rows, window.limit);
}

/** The clock an expiry is read on: the database's, never later than the job's (see pruneIdempotencyKeys). */
type Expiry = Omit<Window, 'cutoff'> & { now: Date };

/**
 * Dashboard sessions that have ended: past their 7-day limit, or unused for SESSION_IDLE_HOURS
 * (docs/api.md#sessions-and-the-cookie). Such a session signs nobody in; only a sign-in by the same user removed it
 * before. Walks the whole (small) table of the organization's sessions by id, a statement per `limit` rows.
 */
export async function pruneSessions(db: Kysely<DB>, window: Expiry, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number | string; scanned: number | string; last: string | null }>`
    with scanned as (
      select id, expires_at, last_used_at from sessions
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid
      order by id
      limit ${window.limit}
    ),
    doomed as (
      select s.id from sessions s
      where s.organization_id = ${window.organizationId}::uuid and s.id = any(array(
        select id from scanned
        where expires_at <= least(now(), ${window.now}::timestamptz)
          or last_used_at <= least(now(), ${window.now}::timestamptz) - make_interval(hours => ${SESSION_IDLE_HOURS})))
      for update skip locked
    ),
    gone as (
      delete from sessions
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select (select count(*) from gone) as deleted, (select count(*) from scanned) as scanned,
      (select max(id::text) from scanned) as last`.execute(db);
  const row = rows[0];
  const scanned = Number(row?.scanned ?? 0);
  return { deleted: Number(row?.deleted ?? 0), next: scanned < window.limit ? null : (row?.last ?? null) };
}

/**
 * One-time sign-in links that can no longer sign anyone in: used, or past their expiry
 * (docs/api.md#one-time-sign-in-links). Walks the organization's links by id, a statement per `limit` rows.
 */
export async function pruneSignInLinks(db: Kysely<DB>, window: Expiry, after: string): Promise<Batch> {
  const { rows } = await sql<{ deleted: number | string; scanned: number | string; last: string | null }>`
    with scanned as (
      select id, expires_at, used_at from sign_in_links
      where organization_id = ${window.organizationId}::uuid and id > ${after}::uuid
      order by id
      limit ${window.limit}
    ),
    doomed as (
      select l.id from sign_in_links l
      where l.organization_id = ${window.organizationId}::uuid and l.id = any(array(
        select id from scanned where used_at is not null or expires_at <= least(now(), ${window.now}::timestamptz)))
      for update skip locked
    ),
    gone as (
      delete from sign_in_links
      where organization_id = ${window.organizationId}::uuid and id = any(array(select id from doomed))
      returning id
    )
    select (select count(*) from gone) as deleted, (select count(*) from scanned) as scanned,
      (select max(id::text) from scanned) as last`.execute(db);
  const row = rows[0];
  const scanned = Number(row?.scanned ?? 0);
  return { deleted: Number(row?.deleted ?? 0), next: scanned < window.limit ? null : (row?.last ?? null) };
}
