import { sql, type Kysely } from 'kysely';
import { PREPARE } from '../db/prepared.js';
import { plainArrayLiteral } from '../db/arrays.js';
import type { DB } from '../db/schema.js';

/** Number of rows of `table` per owner id (for *Count includes), one grouped query for the page. */
export async function countBy(
  db: Kysely<DB>,
  organizationId: string,
  table: 'reviews' | 'product_variants' | 'order_items',
  ownerColumn: 'product_id' | 'order_id',
  ids: readonly string[],
  where: { published?: boolean } = {},
): Promise<Map<string, unknown>> {
  const owner = sql.ref(ownerColumn);
  const { rows } = await sql<{ owner: string; n: number }>`${PREPARE}
    select ${owner} as owner, count(*)::int as n from ${sql.table(table)}
    where organization_id = ${organizationId}::uuid and ${owner} = any(${plainArrayLiteral(ids)}::uuid[])
    ${where.published !== undefined ? sql`and published = ${where.published}` : sql``}
    group by ${owner}`.execute(db);
  return new Map(rows.map((row) => [row.owner, row.n]));
}
