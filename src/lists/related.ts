import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { RelatedCondition } from './filter.js';
import type { RelationDef } from './types.js';

/** A related condition matching more rows than this many pages is tested row by row. */
export const PER_ROW_PAGES = 20;

/**
 * Which to-many conditions of a sorted page to test row by row (`exists (… offset 0)`) instead of leaving them to
 * PostgreSQL, which flattens them into a semi-join.
 *
 * The planner estimates a to-many condition badly (on the benchmark data it expected a few orders tagged `repeat-buyer`
 * where there are thousands), so it starts from the related rows: it fetches every matching record, then sorts them,
 * which costs about M rows for M matches. Walking the sort's index and probing each row stops once the page is full,
 * after about limit × N / M rows (N: the rows the rest of the query admits). One bounded count per condition, all in
 * one statement, tells the two apart: a condition matching more than PER_ROW_PAGES pages' worth of related rows is
 * walked; a rare one keeps the semi-join, far faster than the walk for it (finding 1.2 in
 * docs/journal/2026-11-21-store-data.md). Walking loses when matches are
 * rare among very many rows (N > PER_ROW_PAGES² × limit, 20,000 rows at limit 50 with the fewest matches that choose
 * it), a trade taken for the common case of a tag on a share of the records.
 */
export async function chooseRowByRow(
  db: Kysely<DB>,
  organizationId: string,
  related: readonly RelatedCondition[],
  limit: number,
): Promise<Set<number>> {
  if (related.length === 0) return new Set();
  const cap = PER_ROW_PAGES * limit + 1;
  const counts = related.map(
    ({ relation, condition }, index) =>
      sql`(select count(*) from (select 1 from ${sql.raw(relation.from)}
        where ${sql.raw(organizationColumn(relation))} = ${organizationId}::uuid and ${condition} limit ${cap}) s) as ${sql.ref(`c${index}`)}`,
  );
  const { rows } = await sql<Record<string, number | string>>`select ${sql.join(counts)}`.execute(db);
  const row = rows[0] ?? {};
  return new Set(related.map((_, index) => index).filter((index) => Number(row[`c${index}`]) >= cap));
}

/** The relation's first table leads with organization_id like every tenant table: `order_tags ot join …` → ot. */
function organizationColumn(relation: RelationDef): string {
  const alias = /^\s*\w+\s+(\w+)\b/.exec(relation.from)?.[1];
  if (!alias || alias.toLowerCase() === 'join')
    throw new Error(`Relation "${relation.from}": name its first table with an alias`);
  return `${alias}.organization_id`;
}
