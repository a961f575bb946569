import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { recordEvents } from '../../events/outbox.js';
import { notFound, validationError } from '../../core/errors.js';
import { checkRequestSelection, listRecords } from '../../lists/engine.js';
import { compileFilter, FILTER_LIMITS, NUL_MESSAGE } from '../../lists/filter.js';
import type { ListParams } from '../../lists/query.js';
import { parseSort } from '../../lists/sort.js';
import type { ListDefinition, SavedSelection } from '../../lists/types.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { uuidv7 } from '../../util/ids.js';
import {
  quickFilterEvent,
  toQuickFilter,
  type QuickFilter,
  type QuickFilterResource,
} from '../../records/quick-filter.js';
import { quickFilterList } from './list.js';
import {
  deleteQuickFilterRow,
  findQuickFilter,
  findQuickFilterVersion,
  insertQuickFilter,
  lockQuickFilter,
  updateQuickFilter,
} from './queries.js';
import {
  QUICK_FILTER_REQUIRED,
  type QuickFilterCreateBody,
  type QuickFilterCreateInput,
  type QuickFilterPatchBody,
  type QuickFilterPatchInput,
} from './schemas.js';

/**
 * The list of each resource a quick filter can belong to, handed in by the composition root. A resource of the
 * contract whose list does not exist yet (product questions) has none, and a quick filter of it is refused
 * (docs/api.md#quick-filters).
 */
export type QuickFilterLists = Readonly<Partial<Record<QuickFilterResource, ListDefinition>>>;

/**
 * The quick filter a request names (`quickFilter=<id>`, or the analytics body's `quickFilter`), as the selection the
 * list engine ANDs with the request's: another organization's is 404 like a missing one, another resource's is 400
 * (docs/api.md#quick-filters).
 */
export async function resolveQuickFilter(
  db: Executor,
  organizationId: string,
  resource: QuickFilterResource,
  id: string | undefined,
  path = 'query.quickFilter',
): Promise<SavedSelection | undefined> {
  if (id === undefined) return undefined;
  const row = await findQuickFilterVersion(db, organizationId, id);
  if (!row) throw notFound('The quick filter');
  if (row.resource !== resource) {
    throw validationError(
      `The quick filter ${id} belongs to ${row.resource}, not ${resource}: name a quick filter of ${resource}.`,
      [{ path, message: `is a quick filter of ${row.resource}, not ${resource}` }],
    );
  }
  return { filter: row.filter, search: row.search, sort: row.sort, version: `${row.id}@${row.version}`, path };
}

/**
 * A list's or bulk update's query with the quick filter it names resolved, as the list engine takes it. The query's
 * own parameters are checked first, so bad input is 400 before a missing quick filter is 404.
 */
export async function withQuickFilter<Query extends ListParams & { quickFilter?: string | undefined }>(
  db: Executor,
  organizationId: string,
  resource: QuickFilterResource,
  list: ListDefinition,
  query: Query,
): Promise<Query & { saved?: SavedSelection | undefined }> {
  if (query.quickFilter === undefined) return query;
  checkRequestSelection(list, query);
  return { ...query, saved: await resolveQuickFilter(db, organizationId, resource, query.quickFilter) };
}

/** How a route that takes quickFilter documents its 404 (src/http/openapi.ts). */
export const QUICK_FILTER_MISSING = 'quickFilter names no quick filter of this organization (or one deleted since)';

export class QuickFilterService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly lists: QuickFilterLists,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, quickFilterList, organizationId, params, toQuickFilter);
  }

  async get(organizationId: string, id: string): Promise<QuickFilter> {
    const row = await findQuickFilter(this.db, organizationId, id);
    if (!row) throw notFound('The quick filter');
    return toQuickFilter(row);
  }

  async create(organizationId: string, body: QuickFilterCreateBody | undefined): Promise<QuickFilter> {
    const { fields, path } = unwrapData<QuickFilterCreateInput>(body, 'quick filter');
    requireFields(fields, QUICK_FILTER_REQUIRED, path);
    const resource = fields.resource!;
    this.check(this.listOf(resource, `${path}.resource`), fields, path);
    return this.db.transaction().execute(async (trx) => {
      const row = await insertQuickFilter(trx, {
        organizationId,
        id: uuidv7(),
        resource,
        name: fields.name!,
        filter: fields.filter ?? {},
        search: fields.search ?? null,
        sort: fields.sort ?? null,
      });
      await recordEvents(trx, [quickFilterEvent(organizationId, 'quickFilter.created', row)]);
      return toQuickFilter(row);
    });
  }

  async update(organizationId: string, id: string, body: QuickFilterPatchBody | undefined): Promise<QuickFilter> {
    const { fields, path } = unwrapData<QuickFilterPatchInput>(body, 'quick filter');
    return this.db.transaction().execute(async (trx) => {
      const before = await lockQuickFilter(trx, organizationId, id);
      if (!before) throw notFound('The quick filter');
      // Checked against the list of the resource it was saved for, which a PATCH cannot change.
      this.check(this.listOf(before.resource as QuickFilterResource, 'body.resource'), fields, path);
      const row = await updateQuickFilter(trx, organizationId, id, fields);
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toQuickFilter(before);
      await recordEvents(trx, [quickFilterEvent(organizationId, 'quickFilter.updated', row)]);
      return toQuickFilter(row);
    });
  }

  /** Deleting a quick filter in use is allowed: a request naming it afterwards is 404 (docs/api.md#quick-filters). */
  async delete(organizationId: string, id: string): Promise<QuickFilter> {
    return this.db.transaction().execute(async (trx) => {
      const row = await deleteQuickFilterRow(trx, organizationId, id);
      if (!row) throw notFound('The quick filter');
      await recordEvents(trx, [quickFilterEvent(organizationId, 'quickFilter.deleted', row)]);
      return toQuickFilter(row);
    });
  }

  private listOf(resource: QuickFilterResource, path: string): ListDefinition {
    const list = this.lists[resource];
    if (!list) {
      throw validationError(
        `Patron has no ${resource} list yet, so ${resource} cannot have quick filters; they are accepted once that list exists.`,
        [{ path, message: `names a list that does not exist yet (${resource})` }],
      );
    }
    return list;
  }

  /** The saved filter, search and sort as the list would take them from a request, so applying them cannot fail. */
  private check(list: ListDefinition, fields: QuickFilterPatchInput, path: string): void {
    if (fields.filter !== undefined) {
      if (Buffer.byteLength(JSON.stringify(fields.filter)) > FILTER_LIMITS.maxBytes) {
        throw validationError(`The filter is larger than ${FILTER_LIMITS.maxBytes / 1024} KiB.`, [
          { path: `${path}.filter`, message: `must be at most ${FILTER_LIMITS.maxBytes} bytes` },
        ]);
      }
      compileFilter(list, fields.filter, `${path}.filter`);
    }
    if (typeof fields.search === 'string') {
      const searchPath = `${path}.search`;
      if (!list.search)
        throw validationError(`The ${list.name} list has no search.`, [
          { path: searchPath, message: 'is not supported by this resource' },
        ]);
      if (fields.search.includes('\u0000'))
        throw validationError(`Invalid request: ${searchPath} ${NUL_MESSAGE}.`, [
          { path: searchPath, message: NUL_MESSAGE },
        ]);
      if (!fields.search.trim())
        throw validationError(`Invalid request: ${searchPath} must not be blank; send null for no search.`, [
          { path: searchPath, message: 'must not be blank' },
        ]);
    }
    if (typeof fields.sort === 'string') parseSort(list, fields.sort, `${path}.sort`);
  }
}
