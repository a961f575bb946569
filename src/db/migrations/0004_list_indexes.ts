import { sql, type Kysely } from 'kysely';

/**
 * Keyset indexes for the remaining list sorts, so every page is an index range scan
 * (docs/api.md#pagination-and-cursors).
 */
const INDEXES = [
  ['tags_created_idx', 'tags (organization_id, kind, created_at, id)'],
  ['tags_name_idx', 'tags (organization_id, kind, name, id)'],
  ['sites_name_idx', 'sites (organization_id, name, id)'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, target] of INDEXES) await sql`create index ${sql.ref(name)} on ${sql.raw(target)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
}
