import Type from 'typebox';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { ORDER } from '../../resource-kit/cascade-parents.js';
import { includeSchema, listQuerySchema, selectionQuerySchema } from '../../lists/query.js';
import { BulkUpdateBody, Count } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { orderList } from './list.js';
import { OrderImportBody, OrderImportResult, OrderParams, OrderPatch } from './schemas.js';
import { OrderService } from './service.js';
import { Order } from '../../records/order.js';

const tags = ['orders'];

export function orderRoutes(app: PatronApp, { db, cascades }: PlatformServices): void {
  const orders = new OrderService(db, cascades.of(ORDER));
  const read = { permission: 'orders:read', cost: 1 };
  const write = { permission: 'orders:write', cost: 1 };
  const getQuery = Type.Object({ include: Type.Optional(includeSchema(orderList)) }, { additionalProperties: false });

  app.get(
    '/orders',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listOrders',
        summary: 'List orders, newest first by default',
        tags,
        querystring: listQuerySchema(orderList, { quickFilter: true }),
        response: { 200: listEnvelope(Order) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return orders.list(organizationId, await withQuickFilter(db, organizationId, 'orders', orderList, request.query));
    },
  );

  app.patch(
    '/orders/bulk-update',
    {
      config: { permission: 'orders:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'bulkUpdateOrders',
        summary: 'Add or remove tags and metadata on every order the filter and search select (all when omitted)',
        tags,
        querystring: selectionQuerySchema(orderList, { quickFilter: true }),
        body: BulkUpdateBody,
        response: { 200: Count },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, 'orders', orderList, request.query);
      return { count: await orders.bulkUpdate(organizationId, selection, request.body) };
    },
  );

  app.post(
    '/orders/import',
    {
      config: {
        permission: 'orders:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a site, customer, product or variant that does not exist' },
      },
      schema: {
        operationId: 'importOrders',
        summary:
          'Create or update orders by remoteId, with their line items and tags; site, customer and products must exist',
        tags,
        body: OrderImportBody,
        response: { 200: OrderImportResult },
      },
    },
    async (request) => orders.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/orders/:id',
    {
      config: read,
      schema: {
        operationId: 'getOrder',
        summary: 'One order',
        tags,
        params: OrderParams,
        querystring: getQuery,
        response: { 200: Order },
      },
    },
    async (request) => orders.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    '/orders/:id',
    {
      config: write,
      schema: {
        operationId: 'updateOrder',
        summary: 'Edit metadata (replaced wholesale), notes and tags (the full set); store fields are read-only',
        tags,
        params: OrderParams,
        body: OrderPatch,
        response: { 200: Order },
      },
    },
    async (request) => orders.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/orders/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteOrder',
        summary: 'Delete an order with its line items and tags',
        tags,
        params: OrderParams,
        response: { 200: Order },
      },
    },
    async (request) => orders.delete(authOf(request).organizationId, request.params.id),
  );
}
