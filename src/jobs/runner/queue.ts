import { sql, type Kysely, type Selectable } from 'kysely';
import { PREPARE } from '../../db/prepared.js';
import type { DB, JobsTable } from '../../db/schema.js';
import { SQL_UUID_V7 } from '../../events/outbox.js';

export type JobRow = Selectable<JobsTable>;

/**
 * Queues today's run of a daily job for every organization whose local time has reached `dailyAt`, in one
 * statement; the run key is the local date, and the unique (organization_id, name, run_key) makes every later
 * attempt, by this process or another, a no-op. An organization created after the hour gets that day's run too.
 */
export async function scheduleDaily(db: Kysely<DB>, name: string, dailyAt: string, now: Date): Promise<number> {
  const result = await sql`
    insert into jobs (organization_id, id, name, run_key, run_after)
    select o.id, ${SQL_UUID_V7}, ${name}, to_char(${now}::timestamptz at time zone o.timezone, 'YYYY-MM-DD'), ${now}::timestamptz
    from organizations o
    where to_char(${now}::timestamptz at time zone o.timezone, 'HH24:MI') >= ${dailyAt}
    on conflict (organization_id, name, run_key) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Queues one run by hand (the CLI); an existing run with the key is returned as it is. */
export async function enqueue(
  db: Kysely<DB>,
  { organizationId, name, runKey, now }: { organizationId: string; name: string; runKey: string; now: Date },
): Promise<JobRow> {
  const { rows } = await sql<JobRow>`
    insert into jobs (organization_id, id, name, run_key, run_after)
    values (${organizationId}::uuid, ${SQL_UUID_V7}, ${name}, ${runKey}, ${now}::timestamptz)
    on conflict (organization_id, name, run_key) do update set updated_at = jobs.updated_at
    returning *`.execute(db);
  return rows[0]!;
}

/**
 * Queues one run per run key of a job for one organization in one statement, inside the caller's transaction
 * when given one (the runs then exist only if it commits). Keys already queued or run are left alone; returns
 * the number of runs queued.
 */
export async function enqueueMany(
  db: Kysely<DB>,
  {
    organizationId,
    name,
    runKeys,
    now,
  }: { organizationId: string; name: string; runKeys: readonly string[]; now: Date },
): Promise<number> {
  if (runKeys.length === 0) return 0;
  const result = await sql`
    insert into jobs (organization_id, id, name, run_key, run_after)
    select ${organizationId}::uuid, ${SQL_UUID_V7}, ${name}, run_key, ${now}::timestamptz
    from unnest(${[...runKeys]}::text[]) as keys (run_key)
    on conflict (organization_id, name, run_key) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Claims one due job of the given names, or one whose runner's lease ran out (a process that died mid-run), under
 * a lease: SKIP LOCKED makes concurrent claimers take different rows, and the status change makes the claim
 * exclusive once committed. `only` restricts the claim to one job row (running a queued job by hand).
 *
 * Fair across organizations: a due job of an organization with no live run of the same job comes first, so one
 * organization queueing many runs (export jobs, summary generations) does not hold every runner while another's
 * waits; then the oldest due, then id.
 */
export async function claimJob(
  db: Kysely<DB>,
  {
    owner,
    names,
    now,
    leaseMs,
    only,
  }: {
    owner: string;
    names: readonly string[];
    now: Date;
    leaseMs: number;
    only?: { organizationId: string; id: string };
  },
): Promise<JobRow | undefined> {
  const { rows } = await sql<JobRow>`${PREPARE}
    with next as (
      select organization_id, id from jobs j
      where name = any(${[...names]}::text[])
        and ((status = 'queued' and run_after <= ${now}::timestamptz) or (status = 'running' and lease_expires_at < ${now}::timestamptz))
        ${only ? sql`and organization_id = ${only.organizationId}::uuid and id = ${only.id}::uuid` : sql``}
      order by exists (
          select 1 from jobs busy
          where busy.organization_id = j.organization_id and busy.name = j.name and busy.id <> j.id
            and busy.status = 'running' and busy.lease_expires_at >= ${now}::timestamptz),
        run_after, id
      limit 1
      for update of j skip locked
    )
    update jobs j set status = 'running', claimed_by = ${owner}, lease_expires_at = ${new Date(now.getTime() + leaseMs)}::timestamptz,
      attempts = j.attempts + 1, started_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    from next where j.organization_id = next.organization_id and j.id = next.id
    returning j.*`.execute(db);
  return rows[0];
}

/** Keeps a long run's claim alive; false when the claim was lost (another runner took the job over). */
export async function extendLease(db: Kysely<DB>, job: JobRow, owner: string, until: Date): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ lease_expires_at: until })
    .where('organization_id', '=', job.organization_id)
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('claimed_by', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the outcome of this owner's run: succeeded with its result, or failed / queued again for a retry. */
export async function finishJob(
  db: Kysely<DB>,
  job: JobRow,
  {
    owner,
    outcome,
    now,
  }: {
    owner: string;
    outcome:
      | { status: 'succeeded'; result: Record<string, number> }
      | { status: 'failed' | 'queued'; error: string; retryAt?: Date }
      | { status: 'continued' };
    now: Date;
  },
): Promise<void> {
  if (outcome.status === 'continued') {
    // Its turn is over, not an attempt: queued again now, behind the jobs already due, its attempts as they were.
    await db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        attempts: eb('attempts', '-', 1),
        run_after: now,
        lease_expires_at: null,
        claimed_by: null,
        updated_at: now,
      }))
      .where('organization_id', '=', job.organization_id)
      .where('id', '=', job.id)
      .where('claimed_by', '=', owner)
      .execute();
    return;
  }
  await db
    .updateTable('jobs')
    .set({
      status: outcome.status,
      result: outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
      last_error: outcome.status === 'succeeded' ? null : outcome.error,
      run_after: outcome.status === 'queued' ? (outcome.retryAt ?? now) : job.run_after,
      finished_at: outcome.status === 'queued' ? null : now,
      lease_expires_at: null,
      claimed_by: outcome.status === 'queued' ? null : owner,
      updated_at: now,
    })
    .where('organization_id', '=', job.organization_id)
    .where('id', '=', job.id)
    .where('claimed_by', '=', owner)
    .execute();
}
