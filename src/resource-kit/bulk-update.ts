import { sql, type Transaction } from 'kysely';
import type { TSchema } from 'typebox';
import type { DB, TagKind } from '../db/schema.js';
import { recordEvents } from '../events/outbox.js';
import { validationError } from '../core/errors.js';
import { compileSelection } from '../lists/engine.js';
import type { SelectionParams } from '../lists/query.js';
import type { ListDefinition } from '../lists/types.js';
import { addAndRemoveTags } from './tags.js';
import { MAX_METADATA_KEYS, normalizeTags } from './text.js';

export interface BulkUpdateChanges {
  addTags?: string[] | undefined;
  removeTags?: string[] | undefined;
  addMetadata?: Record<string, string> | undefined;
  removeMetadataKeys?: string[] | undefined;
}

export interface BulkUpdateTarget<Row extends { id: string }> {
  definition: ListDefinition;
  table: 'products' | 'orders' | 'customers';
  tagKind: TagKind;
  eventName: string;
  schema: TSchema;
  toRecord(row: Row): unknown;
}

/**
 * A bulk update's addMetadata may not leave any changed record with more than 50 keys
 * (docs/api.md#metadata-notes-and-tags): 400 counting them and naming one; the caller's transaction rolls back.
 */
export function refuseOverfullMetadata(
  changed: readonly { id: string; metadata: Record<string, string> }[],
  noun: { plural: string; singular: string },
): void {
  const overfull = changed.filter((row) => Object.keys(row.metadata).length > MAX_METADATA_KEYS);
  if (overfull.length === 0) return;
  throw validationError(
    `addMetadata would leave ${overfull.length} of the selected ${noun.plural} with more than ${MAX_METADATA_KEYS} metadata keys; nothing was changed.`,
    [
      {
        path: 'body.addMetadata',
        message: `would exceed ${MAX_METADATA_KEYS} keys on ${overfull.length} ${noun.singular}(s), e.g. ${overfull[0]!.id}`,
      },
    ],
  );
}

/**
 * PATCH /<resource>/bulk-update: the records the list engine selects (filter + search; no filter means all of the
 * organization's) get tags added and removed and metadata merged and pruned, in one transaction with one
 * `<resource>.updated` event per record changed. Returns how many records were selected.
 */
export async function bulkUpdate<Row extends { id: string }>(
  trx: Transaction<DB>,
  target: BulkUpdateTarget<Row>,
  organizationId: string,
  selection: SelectionParams,
  changes: BulkUpdateChanges,
): Promise<number> {
  const addTags = normalizeTags(changes.addTags ?? [], 'body.addTags');
  const removeTags = normalizeTags(changes.removeTags ?? [], 'body.removeTags');
  const { definition } = target;
  const compiled = compileSelection(definition, organizationId, selection);
  // Locked in id order before anything else is touched: every writer (PATCH, imports) locks records before their
  // tag links and in id order, so concurrent writers queue instead of deadlocking.
  const alias = sql.raw(definition.alias);
  const { rows: selected } = await sql<{ id: string }>`
    select ${alias}.id from ${sql.raw(definition.from)} ${compiled.joins} where ${compiled.where}
    order by ${alias}.id for update of ${alias}`.execute(trx);
  const ids = selected.map((row) => row.id);
  if (ids.length === 0) return 0;

  const retagged = await addAndRemoveTags(trx, organizationId, target.tagKind, ids, addTags, removeTags);
  const table = sql.table(target.table);
  const metadata = sql`(metadata || ${JSON.stringify(changes.addMetadata ?? {})}::jsonb) - ${changes.removeMetadataKeys ?? []}::text[]`;
  // Only the records this changes are written and get an event: one whose tags and metadata already are what the
  // update asks for keeps its updatedAt (docs/api.md#writes-that-change-nothing).
  const { rows } = await sql<Row & { metadata: Record<string, string> }>`
    update ${table} set metadata = ${metadata}, updated_at = now()
    where organization_id = ${organizationId}::uuid and id = any(${ids}::uuid[])
      and (id = any(${[...retagged]}::uuid[]) or metadata is distinct from ${metadata})
    returning *`.execute(trx);

  refuseOverfullMetadata(rows, { plural: target.table, singular: 'record' });
  await recordEvents(
    trx,
    rows.map((row) => ({
      organizationId,
      name: target.eventName,
      schema: target.schema,
      record: target.toRecord(row),
    })),
  );
  return ids.length;
}
