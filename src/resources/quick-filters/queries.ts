import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { updateIfChanged } from '../../resource-kit/changes.js';

export const findQuickFilter = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('quick_filters')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The quick filter with its version: the id and updatedAt to the microsecond (the database's precision, finer than the
 * record's), which a cursor issued under it is bound to (docs/api.md#quick-filters).
 */
export const findQuickFilterVersion = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('quick_filters')
    .selectAll()
    .select(sql<string>`to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('version'))
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const lockQuickFilter = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('quick_filters')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

export const insertQuickFilter = (
  trx: Executor,
  values: {
    organizationId: string;
    id: string;
    resource: string;
    name: string;
    filter: object;
    search: string | null;
    sort: string | null;
  },
) =>
  trx
    .insertInto('quick_filters')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      resource: values.resource,
      name: values.name,
      filter: JSON.stringify(values.filter),
      search: values.search,
      sort: values.sort,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** The fields sent; undefined when they are the stored ones (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateQuickFilter = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: {
    name?: string | undefined;
    filter?: object | undefined;
    search?: string | null | undefined;
    sort?: string | null | undefined;
  },
) =>
  updateIfChanged(
    trx,
    { table: 'quick_filters', organizationId, id },
    {
      name: changes.name,
      filter: changes.filter,
      search: changes.search,
      sort: changes.sort,
    },
  );

export const deleteQuickFilterRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('quick_filters')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
