import Type from 'typebox';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { CUSTOMER } from '../../resource-kit/cascade-parents.js';
import { includeSchema, listQuerySchema, selectionQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { BulkUpdateBody, Count, IdParams } from '../../records/common.js';
import { customerList } from './list.js';
import { CustomerImportBody, CustomerImportResult, CustomerPatch } from './schemas.js';
import { CustomerService } from './service.js';
import { Customer } from '../../records/customer.js';

const tags = ['customers'];

export function customerRoutes(app: PatronApp, { db, cascades }: PlatformServices): void {
  const customers = new CustomerService(db, cascades.of(CUSTOMER));
  const read = { permission: 'customers:read', cost: 1 };
  const write = { permission: 'customers:write', cost: 1 };
  const getQuery = Type.Object(
    { include: Type.Optional(includeSchema(customerList)) },
    { additionalProperties: false },
  );

  app.get(
    '/customers',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listCustomers',
        summary: 'List customers, newest first by default',
        description:
          'Filterable: id, email, firstName, lastName, phone, country, birthday, metadata.<key>, emailOptOut, emailOptOutSource, ' +
          'emailOptOutAt, createdAt, updatedAt, tags.name. Search: email, first name, last name, phone.',
        tags,
        querystring: listQuerySchema(customerList, { quickFilter: true }),
        response: { 200: listEnvelope(Customer) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return customers.list(
        organizationId,
        await withQuickFilter(db, organizationId, 'customers', customerList, request.query),
      );
    },
  );

  app.patch(
    '/customers/bulk-update',
    {
      config: { permission: 'customers:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'bulkUpdateCustomers',
        summary: 'Add or remove tags and metadata on every customer the filter and search select (all when omitted)',
        tags,
        querystring: selectionQuerySchema(customerList, { quickFilter: true }),
        body: BulkUpdateBody,
        response: { 200: Count },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, 'customers', customerList, request.query);
      return { count: await customers.bulkUpdate(organizationId, selection, request.body) };
    },
  );

  app.post(
    '/customers/import',
    {
      config: { permission: 'customers:write', cost: 10 },
      schema: {
        operationId: 'importCustomers',
        summary: 'Create or update customers by email (case-insensitive), with their tags',
        tags,
        body: CustomerImportBody,
        response: { 200: CustomerImportResult },
      },
    },
    async (request) => customers.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/customers/:id',
    {
      config: read,
      schema: {
        operationId: 'getCustomer',
        summary: 'One customer',
        tags,
        params: IdParams,
        querystring: getQuery,
        response: { 200: Customer },
      },
    },
    async (request) => customers.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    '/customers/:id',
    {
      config: write,
      schema: {
        operationId: 'updateCustomer',
        summary:
          'Edit metadata (replaced wholesale), notes, tags (the full set) and the email opt-out; identity fields change through import',
        tags,
        params: IdParams,
        body: CustomerPatch,
        response: { 200: Customer },
      },
    },
    async (request) => customers.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/customers/:id',
    {
      config: { ...write, refusals: { 409: 'the customer has orders' } },
      schema: {
        operationId: 'deleteCustomer',
        summary: 'Delete a customer and their tag links (409 while orders reference them)',
        tags,
        params: IdParams,
        response: { 200: Customer },
      },
    },
    async (request) => customers.delete(authOf(request).organizationId, request.params.id),
  );
}
