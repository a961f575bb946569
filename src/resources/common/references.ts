import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Sites named by id or domain (D28), resolved in one query: returns reference → site id. */
export async function resolveSites(db: Db, organizationId: string, references: readonly string[]): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  if (references.length === 0) return resolved;
  const uuids = references.filter((ref) => UUID_PATTERN.test(ref));
  const rows = await db
    .selectFrom('sites')
    .select(['id', 'domain'])
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        ...(uuids.length ? [eb('id', 'in', uuids.map((id) => id.toLowerCase()))] : []),
        eb(sql`lower(domain)`, 'in', references.map((ref) => ref.toLowerCase())),
      ]),
    )
    .execute();
  for (const reference of references) {
    const lower = reference.toLowerCase();
    const site = rows.find((row) => row.id === lower || row.domain.toLowerCase() === lower);
    if (site) resolved.set(reference, site.id);
  }
  return resolved;
}
