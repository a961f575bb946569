import { sql, type Kysely, type Transaction } from 'kysely';
import { compilable, preparedForIds } from '../db/prepared.js';
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

/** Whose tags: one organization's, of one kind of record. */
export type TagScope = { organizationId: string; kind: TagKind };

/**
 * Replaces the full tag set of each record. Records created in the same transaction (`created`) have no links yet,
 * so only the others' old links are read. A record whose stored set already is the one sent (names compared as a set:
 * order never matters) is left alone (docs/api.md#writes-that-change-nothing). Returns the records whose set changed.
 */
export async function replaceTags(
  trx: Transaction<DB>,
  { organizationId, kind }: TagScope,
  tagsByRecord: ReadonlyMap<string, readonly string[]>,
  created: ReadonlySet<string> = new Set(),
): Promise<Set<string>> {
  if (tagsByRecord.size === 0) return new Set();
  const table = sql.table(LINK_TABLE[kind]);
  const owner = sql.ref(OWNER_COLUMN[kind]);
  const existing = [...tagsByRecord.keys()].filter((id) => !created.has(id));
  const stored = existing.length ? await tagNamesOf(trx, organizationId, kind, existing) : new Map<string, string[]>();
  const changed = new Map(
    [...tagsByRecord].filter(([recordId, names]) => {
      const before = new Set(stored.get(recordId) ?? []);
      const after = new Set(names);
      return before.size !== after.size || [...after].some((name) => !before.has(name));
    }),
  );
  if (changed.size === 0) return new Set();
  const ids = await ensureTags(trx, organizationId, kind, [...new Set([...changed.values()].flat())]);
  const replaced = [...changed.keys()].filter((id) => !created.has(id));
  if (replaced.length) {
    await sql`delete from ${table} where organization_id = ${organizationId}::uuid and ${owner} = any(${replaced}::uuid[])`.execute(
      trx,
    );
  }
  const pairs = [...changed].flatMap(([recordId, names]) => names.map((name) => [recordId, ids.get(name)!] as const));
  if (pairs.length) {
    await sql`insert into ${table} (organization_id, ${owner}, tag_id)
      select ${organizationId}::uuid, r, t from unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::uuid[]) as x(r, t)
      on conflict do nothing`.execute(trx);
  }
  return new Set(changed.keys());
}

/**
 * Adds and removes tags on many records at once (bulk update). Returns the records that gained or lost a link: one
 * that already had every tag added and none removed is unchanged (docs/api.md#writes-that-change-nothing).
 */
export async function addAndRemoveTags(
  trx: Transaction<DB>,
  { organizationId, kind }: TagScope,
  recordIds: readonly string[],
  { add, remove }: { add: readonly string[]; remove: readonly string[] },
): Promise<Set<string>> {
  const changed = new Set<string>();
  if (recordIds.length === 0) return changed;
  const table = sql.table(LINK_TABLE[kind]);
  const owner = sql.ref(OWNER_COLUMN[kind]);
  if (remove.length) {
    const { rows } = await sql<{
      record_id: string;
    }>`delete from ${table} where organization_id = ${organizationId}::uuid
      and ${owner} = any(${[...recordIds]}::uuid[])
      and tag_id in (select id from tags where organization_id = ${organizationId}::uuid and kind = ${kind} and name = any(${[...remove]}::text[]))
      returning ${owner} as record_id`.execute(trx);
    rows.forEach((row) => changed.add(row.record_id));
  }
  if (add.length) {
    const ids = await ensureTags(trx, organizationId, kind, add);
    const { rows } = await sql<{ record_id: string }>`insert into ${table} (organization_id, ${owner}, tag_id)
      select ${organizationId}::uuid, r, t from unnest(${[...recordIds]}::uuid[]) as r, unnest(${[...ids.values()]}::uuid[]) as t
      on conflict do nothing
      returning ${owner} as record_id`.execute(trx);
    rows.forEach((row) => changed.add(row.record_id));
  }
  return changed;
}

/** The tag names of records of each kind, one statement per kind, built and compiled on first use. */
const tagNameStatements = Object.fromEntries(
  (Object.keys(LINK_TABLE) as TagKind[]).map((kind) => {
    const owner = sql.ref(`l.${OWNER_COLUMN[kind]}`);
    const statement = preparedForIds((db, organizationId, ids) =>
      compilable(
        db,
        sql<{
          record_id: string;
          name: string;
        }>`select ${owner} as record_id, t.name from ${sql.table(LINK_TABLE[kind])} l
          join tags t on t.organization_id = l.organization_id and t.id = l.tag_id
          where l.organization_id = ${organizationId}::uuid and ${owner} = ${ids}
          order by t.name`,
      ),
    );
    return [kind, statement];
  }),
) as Record<TagKind, ReturnType<typeof preparedForIds<{ record_id: string; name: string }>>>;

/** Tag names per record, one query for the whole page (include=tags). */
export async function tagNamesOf(
  db: Kysely<DB> | Transaction<DB>,
  organizationId: string,
  kind: TagKind,
  recordIds: readonly string[],
): Promise<Map<string, string[]>> {
  const rows = await tagNameStatements[kind](db, organizationId, recordIds);
  const names = new Map<string, string[]>();
  for (const row of rows) {
    const list = names.get(row.record_id);
    if (list) list.push(row.name);
    else names.set(row.record_id, [row.name]);
  }
  return names;
}
