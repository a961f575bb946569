import { sql, type Selectable } from 'kysely';
import type { DB, Metadata } from '../db/schema.js';
import type { Executor } from '../db/executor.js';
import { updateIfChanged } from './changes.js';

/** Store records whose only editable fields are metadata (replaced wholesale) and notes (service.md rule 2). */
export type EditableTable = 'orders' | 'products';

/**
 * PATCH of a store record: the fields sent replace the stored ones; the caller has locked the record. Returns the
 * record and whether it changed: values equal to the stored ones write nothing, so `updatedAt` stays and no event is
 * due, unless `tagsChanged` (docs/api.md#writes-that-change-nothing).
 */
export async function updateEditable<T extends EditableTable>(
  trx: Executor,
  { table, organizationId, id }: { table: T; organizationId: string; id: string },
  changes: {
    metadata?: Metadata | undefined;
    notes?: string | undefined;
    /** Other columns the record's PATCH may set (an order's fulfilment dates), by column name. */
    columns?: Readonly<Record<string, unknown>>;
  },
  tagsChanged = false,
): Promise<{ row: Selectable<DB[T]>; changed: boolean }> {
  const updated = await updateIfChanged(
    trx,
    { table, organizationId, id },
    { ...changes.columns, metadata: changes.metadata, notes: changes.notes },
    { force: tagsChanged },
  );
  if (updated) return { row: updated as Selectable<DB[T]>, changed: true };
  const { rows } = await sql<Selectable<DB[T]>>`
    select * from ${sql.table(table)} where organization_id = ${organizationId}::uuid and id = ${id}::uuid`.execute(
    trx,
  );
  if (!rows[0]) throw new Error(`updateEditable: ${table} ${id} vanished inside its transaction`);
  return { row: rows[0], changed: false };
}

/** Deletes the record (what references it cascades or is handled by the caller); undefined when there was none. */
export async function deleteRecord<T extends EditableTable>(
  trx: Executor,
  table: T,
  organizationId: string,
  id: string,
): Promise<Selectable<DB[T]> | undefined> {
  const { rows } = await sql<Selectable<DB[T]>>`
    delete from ${sql.table(table)} where organization_id = ${organizationId}::uuid and id = ${id}::uuid returning *`.execute(
    trx,
  );
  return rows[0];
}

/**
 * PATCH's first step: locks the record (false when the organization has none). Locking the record before its tag
 * links keeps the order every writer uses, record then links (imports and bulk updates lock records by id first),
 * so concurrent writers wait for each other instead of deadlocking.
 */
export async function lockRecord(
  trx: Executor,
  table: EditableTable | 'customers',
  organizationId: string,
  id: string,
): Promise<boolean> {
  const { rows } = await sql`
    select 1 from ${sql.table(table)} where organization_id = ${organizationId}::uuid and id = ${id}::uuid for update`.execute(
    trx,
  );
  return rows.length > 0;
}
