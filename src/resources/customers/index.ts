import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { customerRoutes } from './routes.js';
import { Customer } from '../../records/customer.js';
import { csvColumn, type ExportSource } from '../../resource-kit/export-csv.js';
import { toCustomer } from '../../records/customer.js';
import { customerList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importCustomers } from './service.js';
import { CustomerImportBody } from './schemas.js';

/** Analytics: the list whose filter analytics queries take. */
export { customerList } from './list.js';

/** Export jobs: the customers list (docs/api.md#export-jobs). */
export const customerExport: ExportSource = {
  list: customerList,
  record: Customer,
  toRecord: toCustomer,
  permission: 'customers:read',
  csvSql: {
    id: csvColumn.uuid('c.id'),
    email: csvColumn.text('c.email'),
    phone: csvColumn.text('c.phone'),
    firstName: csvColumn.text('c.first_name'),
    lastName: csvColumn.text('c.last_name'),
    country: csvColumn.text('c.country'),
    birthday: csvColumn.text('c.birthday'),
    metadata: csvColumn.metadata('c.metadata'),
    notes: csvColumn.text('c.notes'),
    emailOptOut: csvColumn.boolean('c.email_opt_out'),
    emailOptOutAt: csvColumn.timestamp('c.email_opt_out_at'),
    emailOptOutSource: csvColumn.text('c.email_opt_out_source'),
    createdAt: csvColumn.timestamp('c.created_at'),
    updatedAt: csvColumn.timestamp('c.updated_at'),
  },
};

/** Import jobs: the customers import, rows matched on email (docs/api.md#import-jobs). */
export const customerImport: ImportSource = {
  permission: 'customers:write',
  body: CustomerImportBody,
  record: Customer,
  duplicateKey: (row) => (typeof row.email === 'string' ? row.email.toLowerCase() : undefined),
  run: (trx, organizationId, body, provenance) =>
    importCustomers(trx, organizationId, body as CustomerImportBody, provenance),
};

export const customersResource: ResourceModuleWithLists = {
  name: 'customers',
  permissions: ['customers:read', 'customers:write'],
  description:
    'Customers mirrored from the store. Identity fields come through import; metadata, notes, tags and the email opt-out are editable.',
  routes: customerRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['customer.updated', 'customer.deleted'],
      schema: Customer,
      firesWhen: {
        'customer.updated':
          'PATCH /customers/{id}, and each customer that POST /customers/import creates or changes or PATCH /customers/bulk-update changes.',
        'customer.deleted': 'DELETE /customers/{id}.',
      },
    },
  ],
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { customers: customerExport },
  imports: { customers: customerImport },
};
