import { sql } from 'kysely';
import type { TagKind } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';

const LINK_TABLE = { customer: 'customer_tags', order: 'order_tags', product: 'product_tags' } as const;

export const findTag = (db: Executor, organizationId: string, kind: TagKind, id: string) =>
  db
    .selectFrom('tags')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();

/** Another tag of the same kind already called `name`, if any. */
export const findTagNamed = (
  db: Executor,
  { organizationId, kind }: { organizationId: string; kind: TagKind },
  name: string,
  exceptId: string,
) =>
  db
    .selectFrom('tags')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('name', '=', name)
    .where('id', '<>', exceptId)
    .executeTakeFirst();

export const renameTag = (
  trx: Executor,
  { organizationId, kind }: { organizationId: string; kind: TagKind },
  id: string,
  name: string,
) =>
  trx
    .updateTable('tags')
    .set({ name, updated_at: sql<Date>`now()` })
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Deletes the tag; its links to records go with it (foreign keys cascade). */
export const deleteTagRow = (trx: Executor, organizationId: string, kind: TagKind, id: string) =>
  trx
    .deleteFrom('tags')
    .where('organization_id', '=', organizationId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Number of records carrying each tag (include=count), one grouped query for the page. */
export async function recordCounts(
  db: Executor,
  organizationId: string,
  kind: TagKind,
  tagIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<{ tag_id: string; n: number }>`
    select tag_id, count(*)::int as n from ${sql.table(LINK_TABLE[kind])}
    where organization_id = ${organizationId}::uuid and tag_id = any(${[...tagIds]}::uuid[])
    group by tag_id`.execute(db);
  return new Map(rows.map((row) => [row.tag_id, row.n]));
}
