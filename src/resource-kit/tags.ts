import { sql, type Kysely, type Transaction } from 'kysely';
import { uuidv7 } from '../util/ids.js';
import type { DB, TagKind } from '../db/schema.js';
import { recordEvents } from '../events/outbox.js';
import { columnList } from '../db/executor.js';
import { TAG_COLUMNS, tagEvent, type TagFields } from '../records/tag.js';

const LINK_TABLE = { customer: 'customer_tags', order: 'order_tags', product: 'product_tags' } as const;
const OWNER_COLUMN = { customer: 'customer_id', order: 'order_id', product: 'product_id' } as const;

/** Tag ids for names, creating the missing tag records (and their `<kind>Tag.created` events). */
export async function ensureTags(
  trx: Transaction<DB>,
  organizationId: string,
  kind: TagKind,
  names: readonly string[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (names.length === 0) return ids;
  const { rows: created } = await sql<TagFields>`
    insert into tags (organization_id, id, kind, name)
    select ${organizationId}::uuid, u.id, ${kind}, u.name from unnest(${names.map(() => uuidv7())}::uuid[], ${[...names]}::text[]) as u(id, name)
    on conflict (organization_id, kind, name) do nothing
    returning ${columnList(TAG_COLUMNS)}`.execute(trx);
  await recordEvents(
    trx,
    created.map((row) => tagEvent(organizationId, kind, 'created', row)),
  );
  const { rows } = await sql<{ id: string; name: string }>`
    select id, name from tags where organization_id = ${organizationId}::uuid and kind = ${kind} and name = any(${[...names]}::text[])`.execute(
    trx,
  );
  for (const row of rows) ids.set(row.name, row.id);
  return ids;
}

/**
 * Replaces the full tag set of each record. Records created in the same transaction (`created`) have no links yet,
 * so only the others' old links are deleted.
 */
export async function replaceTags(
  trx: Transaction<DB>,
  organizationId: string,
  kind: TagKind,
  tagsByRecord: ReadonlyMap<string, readonly string[]>,
  created: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (tagsByRecord.size === 0) return;
  const ids = await ensureTags(trx, organizationId, kind, [...new Set([...tagsByRecord.values()].flat())]);
  const table = sql.table(LINK_TABLE[kind]);
  const owner = sql.ref(OWNER_COLUMN[kind]);
  const existing = [...tagsByRecord.keys()].filter((id) => !created.has(id));
  if (existing.length) {
    await sql`delete from ${table} where organization_id = ${organizationId}::uuid and ${owner} = any(${existing}::uuid[])`.execute(
      trx,
    );
  }
  const pairs = [...tagsByRecord].flatMap(([recordId, names]) =>
    names.map((name) => [recordId, ids.get(name)!] as const),
  );
  if (pairs.length === 0) return;
  await sql`insert into ${table} (organization_id, ${owner}, tag_id)
    select ${organizationId}::uuid, r, t from unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) as x(r, t)
    on conflict do nothing`.execute(trx);
}

/** Adds and removes tags on many records at once (bulk update). */
export async function addAndRemoveTags(
  trx: Transaction<DB>,
  organizationId: string,
  kind: TagKind,
  recordIds: readonly string[],
  add: readonly string[],
  remove: readonly string[],
): Promise<void> {
  if (recordIds.length === 0) return;
  const table = sql.table(LINK_TABLE[kind]);
  const owner = sql.ref(OWNER_COLUMN[kind]);
  if (remove.length) {
    await sql`delete from ${table} where organization_id = ${organizationId}::uuid
      and ${owner} = any(${[...recordIds]}::uuid[])
      and tag_id in (select id from tags where organization_id = ${organizationId}::uuid and kind = ${kind} and name = any(${[...remove]}::text[]))`.execute(
      trx,
    );
  }
  if (add.length) {
    const ids = await ensureTags(trx, organizationId, kind, add);
    await sql`insert into ${table} (organization_id, ${owner}, tag_id)
      select ${organizationId}::uuid, r, t from unnest(${[...recordIds]}::uuid[]) as r, unnest(${[...ids.values()]}::uuid[]) as t
      on conflict do nothing`.execute(trx);
  }
}

/** Tag names per record, one query for the whole page (include=tags). */
export async function tagNamesOf(
  db: Kysely<DB>,
  organizationId: string,
  kind: TagKind,
  recordIds: readonly string[],
): Promise<Map<string, string[]>> {
  const table = sql.table(LINK_TABLE[kind]);
  const owner = sql.ref(`l.${OWNER_COLUMN[kind]}`);
  const { rows } = await sql<{ record_id: string; name: string }>`
    select ${owner} as record_id, t.name from ${table} l
    join tags t on t.organization_id = l.organization_id and t.id = l.tag_id
    where l.organization_id = ${organizationId}::uuid and ${owner} = any(${[...recordIds]}::uuid[])
    order by t.name`.execute(db);
  const names = new Map<string, string[]>();
  for (const row of rows) {
    const list = names.get(row.record_id);
    if (list) list.push(row.name);
    else names.set(row.record_id, [row.name]);
  }
  return names;
}
