import { sql } from 'kysely';
import { columnList, type Executor } from '../db/executor.js';
import { compilable, preparedForIds } from '../db/prepared.js';
import type { DB } from '../db/schema.js';

/**
 * The record each row of a page points at (include=customer, include=membership…): a reader for one page table, its
 * reference column and the referenced table. One statement for the whole page, prepared on the server and built once
 * (docs/architecture.md, statements run per request): the page rows joined to the referenced records on the
 * organization and the reference, within the caller's organization. A page row whose reference is null or points at
 * nothing is absent from the answer (the include's empty value stands in).
 */
export function pageReferences<Row extends object>(reference: {
  /** The page's table and the column naming the referenced record. */
  from: keyof DB & string;
  column: string;
  /** The referenced table, and the columns read from it (all of them when left out). */
  to: keyof DB & string;
  columns?: readonly string[];
}): <Value>(
  db: Executor,
  organizationId: string,
  pageIds: readonly string[],
  toValue: (row: Row) => Value,
) => Promise<Map<string, Value>> {
  const selected = reference.columns ? columnList(reference.columns, 'x') : sql`x.*`;
  const statement = preparedForIds((db, organizationId, ids) =>
    compilable(
      db,
      sql<Row & { page_row_id: string }>`select ${selected}, p.id as page_row_id
        from ${sql.table(reference.from)} p
        join ${sql.table(reference.to)} x on x.organization_id = p.organization_id and x.id = ${sql.ref(`p.${reference.column}`)}
        where p.organization_id = ${organizationId}::uuid and p.id = ${ids}`,
    ),
  );
  return async (db, organizationId, pageIds, toValue) => {
    const rows = await statement(db, organizationId, pageIds);
    return new Map(rows.map(({ page_row_id, ...row }) => [page_row_id, toValue(row as unknown as Row)]));
  };
}
