import { sql, type Kysely } from 'kysely';
import { compilable, preparedForIds } from '../db/prepared.js';
import type { DB } from '../db/schema.js';

type CountedTable = 'reviews' | 'product_variants' | 'order_items';
type OwnerColumn = 'product_id' | 'order_id';
type CountStatement = ReturnType<typeof preparedForIds<{ owner: string; n: number }>>;

/** One statement per shape (table, owner column, published filter), built and compiled on first use. */
const countStatements = new Map<string, CountStatement>();

function countStatement(table: CountedTable, ownerColumn: OwnerColumn, published: boolean | undefined) {
  const shape = `${table}.${ownerColumn}.${String(published)}`;
  let statement = countStatements.get(shape);
  if (!statement) {
    const owner = sql.ref(ownerColumn);
    statement = preparedForIds((db, organizationId, ids) =>
      compilable(
        db,
        sql<{ owner: string; n: number }>`select ${owner} as owner, count(*)::int as n from ${sql.table(table)}
          where organization_id = ${organizationId}::uuid and ${owner} = ${ids}
          ${published !== undefined ? sql`and published = ${sql.lit(published)}` : sql``}
          group by ${owner}`,
      ),
    );
    countStatements.set(shape, statement);
  }
  return statement;
}

/** Number of rows of `table` per owner id (for *Count includes), one grouped query for the page. */
export async function countBy(
  db: Kysely<DB>,
  organizationId: string,
  ids: readonly string[],
  {
    table,
    ownerColumn,
    published,
  }: {
    table: CountedTable;
    ownerColumn: OwnerColumn;
    /** Only rows with this published flag (a product's published reviews). */
    published?: boolean;
  },
): Promise<Map<string, unknown>> {
  const rows = await countStatement(table, ownerColumn, published)(db, organizationId, ids);
  return new Map(rows.map((row) => [row.owner, row.n]));
}
