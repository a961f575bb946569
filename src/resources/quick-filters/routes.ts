import { authOf } from '../../http/auth.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { QuickFilter } from '../../records/quick-filter.js';
import { quickFilterList } from './list.js';
import { QUICK_FILTER_REQUIRED, QuickFilterCreateBody, QuickFilterPatchBody } from './schemas.js';
import { QuickFilterService, type QuickFilterLists } from './service.js';

const tags = ['quick-filters'];

export function quickFilterRoutes(lists: QuickFilterLists) {
  return (app: PatronApp, { db }: PlatformServices): void => {
    const quickFilters = new QuickFilterService(db, lists);
    const read = { permission: 'quickFilters:read', cost: 1 };
    const write = { permission: 'quickFilters:write', cost: 1 };

    app.get(
      '/quick-filters',
      {
        config: read,
        schema: {
          operationId: 'listQuickFilters',
          summary: 'List quick filters (saved views), newest first by default',
          tags,
          querystring: listQuerySchema(quickFilterList),
          response: { 200: listEnvelope(QuickFilter) },
        },
      },
      async (request) => quickFilters.list(authOf(request).organizationId, request.query),
    );

    app.post(
      '/quick-filters',
      {
        config: { ...write, checkBody: checkCreateBody(QUICK_FILTER_REQUIRED, 'quick filter') },
        schema: {
          operationId: 'createQuickFilter',
          summary:
            'Save a view of one list (resource and name required; filter, search and sort checked against that list); triggers quickFilter.created',
          tags,
          body: QuickFilterCreateBody,
          response: { 201: QuickFilter },
        },
      },
      async (request, reply) => {
        const quickFilter = await quickFilters.create(authOf(request).organizationId, request.body);
        return reply.code(201).send(quickFilter);
      },
    );

    app.get(
      '/quick-filters/:id',
      {
        config: read,
        schema: {
          operationId: 'getQuickFilter',
          summary: 'One quick filter',
          tags,
          params: IdParams,
          response: { 200: QuickFilter },
        },
      },
      async (request) => quickFilters.get(authOf(request).organizationId, request.params.id),
    );

    app.patch(
      '/quick-filters/:id',
      {
        config: write,
        schema: {
          operationId: 'updateQuickFilter',
          summary:
            "Change a quick filter's name, filter, search or sort (checked against its list); triggers quickFilter.updated",
          tags,
          params: IdParams,
          body: QuickFilterPatchBody,
          response: { 200: QuickFilter },
        },
      },
      async (request) => quickFilters.update(authOf(request).organizationId, request.params.id, request.body),
    );

    app.delete(
      '/quick-filters/:id',
      {
        config: write,
        schema: {
          operationId: 'deleteQuickFilter',
          summary:
            'Delete a quick filter, even one in use (requests naming it then answer 404); triggers quickFilter.deleted',
          tags,
          params: IdParams,
          response: { 200: QuickFilter },
        },
      },
      async (request) => quickFilters.delete(authOf(request).organizationId, request.params.id),
    );
  };
}
