import { sql, type Kysely } from 'kysely';

/*
 * The audit log is partitioned by month of created_at (docs/api.md#audit-log): retention drops a whole month's table
 * instead of deleting rows, and a DEFAULT partition takes any row whose month has no table yet, so an entry's write
 * never fails for want of one. Months are made ahead (by the migration for the current and next month, and by the
 * retention job for the next ones); a month made after rows already went to the default moves them into it.
 */

/** Months made ahead of the current one by the retention job. */
export const AUDIT_MONTHS_AHEAD = 2;

const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));

/** The first instant of the month `offset` months after the one holding `at` (UTC). */
export function auditMonth(at: Date, offset = 0): Date {
  return monthStart(at.getUTCFullYear(), at.getUTCMonth() + offset);
}

/** audit_log_p202612: the partition of the month starting at `start`. */
export function auditPartitionName(start: Date): string {
  return `audit_log_p${start.getUTCFullYear()}${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * Makes the partition of the month starting at `start` if it has none: as a table of its own, filled with that
 * month's rows from the default partition (when an entry came before its month's table), then attached. Safe to run
 * from several processes at once: the first attaches, the others find it.
 */
export async function ensureAuditPartition<D>(db: Kysely<D>, start: Date): Promise<boolean> {
  const name = auditPartitionName(start);
  const end = auditMonth(start, 1);
  const exists = await sql<{ found: boolean }>`select to_regclass(${name}) is not null as found`.execute(db);
  if (exists.rows[0]?.found) return false;
  const make = async (trx: Kysely<D>) => {
    // Serializes the makers of partitions (the attach would otherwise race on the default partition).
    await sql`lock table audit_log_default in access exclusive mode`.execute(trx);
    const again = await sql<{ found: boolean }>`select to_regclass(${name}) is not null as found`.execute(trx);
    if (again.rows[0]?.found) return;
    const from = sql.lit(start.toISOString());
    const to = sql.lit(end.toISOString());
    await sql`create table ${sql.id(name)} (like audit_log including defaults including constraints)`.execute(trx);
    await sql`with moved as (delete from audit_log_default where created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz returning *)
        insert into ${sql.id(name)} select * from moved`.execute(trx);
    await sql`alter table audit_log attach partition ${sql.id(name)} for values from (${from}) to (${to})`.execute(trx);
  };
  try {
    // A migration runs in a transaction already.
    if (db.isTransaction) await make(db);
    else await db.transaction().execute(make);
  } catch (error) {
    // Another process made it between the two checks.
    if ((error as { code?: string }).code === '42P07') return false;
    throw error;
  }
  return true;
}

/** Makes the current month's partition and those of the next `ahead` months. */
export async function ensureAuditPartitions<D>(db: Kysely<D>, now: Date, ahead = AUDIT_MONTHS_AHEAD): Promise<number> {
  let made = 0;
  for (let offset = 0; offset <= ahead; offset++) if (await ensureAuditPartition(db, auditMonth(now, offset))) made++;
  return made;
}

/**
 * Drops every month's partition that ends at or before `cutoff` (all its entries are past the window), and deletes
 * the default partition's rows older than it. Answers the partitions dropped.
 */
export async function dropAuditPartitionsBefore<D>(db: Kysely<D>, cutoff: Date): Promise<string[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'audit_log'::regclass`.execute(db);
  const dropped: string[] = [];
  for (const row of rows) {
    const match = /TO \('([^']+)'\)/.exec(row.bound);
    if (!match) continue;
    if (new Date(match[1]!).getTime() <= cutoff.getTime()) {
      await sql`drop table if exists ${sql.id(row.name)}`.execute(db);
      dropped.push(row.name);
    }
  }
  await sql`delete from audit_log_default where created_at < ${cutoff}::timestamptz`.execute(db);
  return dropped;
}
