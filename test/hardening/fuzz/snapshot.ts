import { sql, type Kysely } from 'kysely';

/**
 * Tables a request may write without changing the organization's data, so they are left out of the comparison:
 * D16 stores the answer to a POST with an Idempotency-Key, a 4xx included (docs/api.md, Idempotency-Key).
 */
// server_processes is written by the server's own timer (each process renews its presence), not by requests.
// sign_in_failures: a refused sign-in is recorded, by design, to throttle the email (docs/api.md#dashboard-sessions).
export const TABLES_WRITTEN_BY_ANY_REQUEST = ['idempotency_keys', 'server_processes', 'sign_in_failures'];
// The audit log records every write request, a refused one included, by design (docs/api.md#audit-log): the table
// and its monthly partitions (audit_log_default, audit_log_p202612…).
const writtenByAnyRequest = (name: string) =>
  TABLES_WRITTEN_BY_ANY_REQUEST.includes(name) || /^audit_log(_|$)/.test(name);
/** Columns any request may move: a session's last use, written (at most once a minute) by every request it makes. */
const COLUMNS_WRITTEN_BY_ANY_REQUEST: Record<string, string[]> = { sessions: ['last_used_at'] };

export interface TableState {
  rows: number;
  hash: string;
}

/** Row count and a hash of every row's text, per table of the public schema (the migrator's own tables aside). */
export async function snapshotTables(db: Kysely<any>): Promise<Record<string, TableState>> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
    order by table_name`.execute(db);
  const state: Record<string, TableState> = {};
  for (const { name } of tables.rows) {
    if (writtenByAnyRequest(name)) continue;
    const moving = COLUMNS_WRITTEN_BY_ANY_REQUEST[name] ?? [];
    const row = moving.length
      ? sql`(to_jsonb(t) - ${sql.join(
          moving.map((column) => sql.lit(column)),
          sql` - `,
        )})::text`
      : sql`t::text`;
    const { rows } = await sql<{ rows: string; hash: string | null }>`
      select count(*)::text as rows, md5(string_agg(${row}, E'\n' order by ${row})) as hash from ${sql.table(name)} t`.execute(
      db,
    );
    state[name] = { rows: Number(rows[0]!.rows), hash: rows[0]!.hash ?? '' };
  }
  return state;
}

/** Tables whose state differs, with before and after. */
export function changedTables(before: Record<string, TableState>, after: Record<string, TableState>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((name) => before[name]?.rows !== after[name]?.rows || before[name]?.hash !== after[name]?.hash)
    .map(
      (name) =>
        `${name}: ${before[name]?.rows ?? '-'} rows → ${after[name]?.rows ?? '-'} rows${before[name]?.hash !== after[name]?.hash ? ' (contents differ)' : ''}`,
    );
}
