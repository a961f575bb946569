import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.js';

/** A table holding rows of organizations: it has an organization_id column. */
export interface TenantTable {
  name: string;
  /** Its primary key's columns, organization_id first (test/db/tenancy-schema.test.ts holds every table to that). */
  primaryKey: string[];
}

/** Where an organization's keys live: deleted first, so that no request acts for it while the rest goes. */
const FIRST = 'api_keys';

/**
 * Every table of the schema with an organization_id column, read from the catalog (so a table added later is
 * included without being named), in an order the foreign keys allow: a table comes before every table it refers
 * to, the keys first. Foreign keys within a table (a membership referring to its referrer) set null or cascade, so
 * they impose no order; should two tables ever refer to each other, the cycle is broken by name and the foreign
 * keys' own ON DELETE actions decide.
 */
export async function tenantTables(db: Kysely<DB>): Promise<TenantTable[]> {
  const { rows: tables } = await sql<{ name: string; primary_key: string[] | string }>`
    select c.relname as name,
      array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum order by k.n) as primary_key
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute o on o.attrelid = c.oid and o.attname = 'organization_id' and not o.attisdropped
    left join pg_index i on i.indrelid = c.oid and i.indisprimary
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and c.relname <> 'organizations'
      -- A partition's rows are deleted through its partitioned table (the audit log's months).
      and not c.relispartition
    order by c.relname`.execute(db);
  const { rows: references } = await sql<{ child: string; parent: string }>`
    select distinct child.relname as child, parent.relname as parent
    from pg_constraint f
    join pg_class child on child.oid = f.conrelid
    join pg_class parent on parent.oid = f.confrelid
    join pg_namespace n on n.oid = child.relnamespace
    where f.contype = 'f' and n.nspname = current_schema() and child.oid <> parent.oid`.execute(db);

  const byName = new Map(
    tables.map((table) => [
      table.name,
      { name: table.name, primaryKey: pgArray(table.primary_key) } satisfies TenantTable,
    ]),
  );
  /** The tables that refer to each table: they go before it. */
  const referrers = new Map<string, Set<string>>([...byName.keys()].map((name) => [name, new Set()]));
  for (const { child, parent } of references) {
    if (byName.has(child) && byName.has(parent)) referrers.get(parent)!.add(child);
  }
  const ordered: TenantTable[] = [];
  const remaining = new Set([...byName.keys()].sort());
  const take = (name: string) => {
    ordered.push(byName.get(name)!);
    remaining.delete(name);
  };
  if (remaining.has(FIRST) && referrers.get(FIRST)!.size === 0) take(FIRST);
  while (remaining.size > 0) {
    const free = [...remaining].find((name) => [...referrers.get(name)!].every((child) => !remaining.has(child)));
    take(free ?? [...remaining][0]!);
  }
  return ordered;
}

/** node-postgres parses text[]; PGlite may hand back the literal. */
function pgArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  return value
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean);
}

export interface DeleteOrganizationOptions {
  /** Rows one statement deletes at most. */
  batchRows: number;
  /** Called after each table with the rows deleted from it (progress for the CLI). */
  onTable?: (table: string, deleted: number) => void;
}

/**
 * Deletes an organization and every row it owns, and its test twin's (docs/api.md#test-mode) before it, table by
 * table in tenantTables() order, each table in statements of at most `batchRows` rows, each its own short transaction,
 * walking the table's primary key. Tables without a foreign key to organizations (the outbox, the delivery records,
 * import provenance) are covered like the others. The organization row goes last, and every table is swept once more
 * after it, for rows a job still running for the organization wrote meanwhile. Returns the rows deleted per table,
 * `organizations` included, the twin's counted with the organization's (docs/api.md#deleting-an-organization).
 */
export async function deleteOrganization(
  db: Kysely<DB>,
  organizationId: string,
  options: DeleteOrganizationOptions,
): Promise<Record<string, number>> {
  const twins = await db
    .selectFrom('organizations')
    .select('id')
    .where('live_organization_id', '=', organizationId)
    .execute();
  const deleted: Record<string, number> = {};
  for (const id of [...twins.map((twin) => twin.id), organizationId]) {
    for (const [table, count] of Object.entries(await deleteOneOrganization(db, id, options))) {
      deleted[table] = (deleted[table] ?? 0) + count;
    }
  }
  return deleted;
}

/**
 * Deletes a test twin's records (POST /test-data/reset, docs/api.md#test-mode): every tenant table's rows of the
 * organization but those of the tables in `keep`, walked as deleteOrganization walks them. Refuses a live
 * organization: only a twin's data may be reset. Returns the rows deleted per table.
 */
export async function deleteTestData(
  db: Kysely<DB>,
  organizationId: string,
  options: { batchRows: number; keep: ReadonlySet<string> },
): Promise<Record<string, number>> {
  const organization = await db
    .selectFrom('organizations')
    .select('live_organization_id')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (!organization?.live_organization_id) throw new Error(`${organizationId} is no test organization`);
  const deleted: Record<string, number> = {};
  for (const table of await tenantTables(db)) {
    if (options.keep.has(table.name)) continue;
    deleted[table.name] = await deleteRows(db, table, organizationId, options.batchRows);
  }
  return deleted;
}

async function deleteOneOrganization(
  db: Kysely<DB>,
  organizationId: string,
  options: DeleteOrganizationOptions,
): Promise<Record<string, number>> {
  const tables = await tenantTables(db);
  const deleted: Record<string, number> = {};
  // Failed sign-ins are kept by email for any email, known or not, so they have no organization_id: its users' go
  // first, while the users still say which emails are theirs (docs/api.md#dashboard-sessions).
  const failures = await sql`delete from sign_in_failures
    where email in (select lower(email) from users where organization_id = ${organizationId}::uuid)`.execute(db);
  deleted.sign_in_failures = Number(failures.numAffectedRows ?? 0);
  options.onTable?.('sign_in_failures', deleted.sign_in_failures);
  for (const table of tables) {
    const count = await deleteRows(db, table, organizationId, options.batchRows);
    deleted[table.name] = count;
    options.onTable?.(table.name, count);
  }
  const organization = await db.deleteFrom('organizations').where('id', '=', organizationId).executeTakeFirst();
  deleted.organizations = Number(organization.numDeletedRows);
  for (const table of tables) {
    deleted[table.name] = (deleted[table.name] ?? 0) + (await deleteRows(db, table, organizationId, options.batchRows));
  }
  return deleted;
}

/** How many times a table is walked again when rows of the organization keep appearing in it. */
const MAX_PASSES = 10;

async function deleteRows(db: Kysely<DB>, table: TenantTable, organizationId: string, batchRows: number) {
  const name = sql.id(table.name);
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    total += await walk(db, table, organizationId, batchRows);
    const { rows } = await sql`select 1 from ${name} where organization_id = ${organizationId}::uuid limit 1`.execute(
      db,
    );
    if (rows.length === 0) return total;
  }
  throw new Error(
    `Rows of the organization keep appearing in ${table.name}: stop what writes them (revoke its keys, stop jobs) and run the delete again.`,
  );
}

/**
 * One walk over the organization's rows of a table in primary-key order, `batchRows` per statement, each statement
 * starting after the last key the previous one saw. Rows are deleted by their address as the statement found them;
 * one changed meanwhile is skipped and found by the next walk. A table without a primary key (none has one today) is
 * taken `batchRows` rows at a time from wherever they are.
 */
async function walk(db: Kysely<DB>, table: TenantTable, organizationId: string, batchRows: number): Promise<number> {
  const name = sql.id(table.name);
  const key = table.primaryKey.filter((column) => column !== 'organization_id');
  const columns = key.length > 0 ? sql.join(key.map((column) => sql.id(column))) : sql`ctid`;
  const descending = sql.join((key.length > 0 ? key : ['ctid']).map((column) => sql`${sql.id(column)} desc`));
  let total = 0;
  let after: unknown[] | null = null;
  for (;;) {
    const position: RawBuilder<unknown> =
      after && key.length > 0 ? sql`and (${columns}) > (${sql.join(after.map((value) => sql`${value}`))})` : sql``;
    const result: { rows: Batch[] } = await sql<Batch>`
      with batch as (
        select ctid as address, ${columns} from ${name}
        where organization_id = ${organizationId}::uuid ${position}
        order by ${columns}
        limit ${batchRows}
      ),
      gone as (
        delete from ${name}
        where organization_id = ${organizationId}::uuid and ctid = any(array(select address from batch))
        returning 1
      )
      select (select count(*) from gone) as deleted, (select count(*) from batch) as scanned,
        (select json_build_array(${columns})::text from batch order by ${descending} limit 1) as last`.execute(db);
    const batch = result.rows[0]!;
    total += Number(batch.deleted);
    if (Number(batch.scanned) < batchRows) return total;
    if (key.length === 0) {
      if (Number(batch.deleted) === 0) return total;
      continue;
    }
    after = JSON.parse(batch.last!) as unknown[];
  }
}

interface Batch {
  deleted: number | string;
  scanned: number | string;
  /** The last primary key the statement saw, as a JSON array. */
  last: string | null;
}
