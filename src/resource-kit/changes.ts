import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Executor } from '../db/executor.js';

/** Tables whose records are changed by id within an organization. */
type Table = {
  [K in keyof DB]: DB[K] extends { organization_id: unknown; id: unknown; updated_at: unknown } ? K : never;
}[keyof DB];

/**
 * A write that changes nothing is no write (docs/api.md#writes-that-change-nothing): sets `columns` on the record and
 * moves `updated_at` only when a stored value differs from the new one, compared by PostgreSQL itself after every
 * cast (`jsonb` equal by content, whatever the key order). Returns the new row, or undefined when nothing differed
 * (or the record does not exist): then nothing was written and no event is due. `force` writes even so, for a change
 * elsewhere (the record's tags, variants or site links) that moves `updated_at` too. A value may be an SQL expression
 * over the row's own columns (e.g. keep a timestamp unless a flag flips).
 */
export async function updateIfChanged<T extends Table>(
  trx: Executor,
  { table, organizationId, id }: { table: T; organizationId: string; id: string },
  columns: Readonly<Record<string, unknown>>,
  options: { force?: boolean } = {},
): Promise<Selectable<DB[T]> | undefined> {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (entries.length === 0 && !options.force) return undefined;
  // Objects are JSON (jsonb columns); arrays stay arrays (text[] columns); SQL expressions are used as they are.
  const value = (raw: unknown): RawBuilder<unknown> =>
    isRawBuilder(raw)
      ? raw
      : sql`${typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !(raw instanceof Date) ? JSON.stringify(raw) : raw}`;
  const assignments = entries.map(([column, raw]) => sql`${sql.ref(column)} = ${value(raw)}`);
  // One column compares as a value, several as a row; either way each parameter takes its column's type.
  const differs = entries.length
    ? sql`(${sql.join(entries.map(([column]) => sql.ref(column)))}) is distinct from (${sql.join(entries.map(([, raw]) => value(raw)))})`
    : sql`false`;
  const { rows } = await sql<Selectable<DB[T]>>`
    update ${sql.table(table)} set ${sql.join([...assignments, sql`updated_at = now()`])}
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid
      and (${options.force ? sql`true` : sql`false`} or ${differs})
    returning *`.execute(trx);
  return rows[0];
}

function isRawBuilder(value: unknown): value is RawBuilder<unknown> {
  return typeof value === 'object' && value !== null && 'toOperationNode' in value && 'as' in value;
}
