import type { Kysely, Transaction } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import type { Cascade } from '../../core/cascades.js';
import { notFound, validationError, type ErrorDetail } from '../../core/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../lists/query.js';
import { bulkUpdate, type BulkUpdateChanges } from '../../resource-kit/bulk-update.js';
import {
  checkImportSize,
  importCounts,
  recordImportRows,
  type ImportAction,
  type Skipped,
} from '../../resource-kit/imports.js';
import { replaceTags } from '../../resource-kit/tags.js';
import { requestProvenance, type ImportProvenance } from '../../resource-kit/import-source.js';
import { normalizeTags } from '../../resource-kit/text.js';
import { customerList } from './list.js';
import {
  customerIdsByEmail,
  customersById,
  deleteCustomerRow,
  findCustomer,
  insertCustomers,
  lockCustomer,
  updateCustomer,
  updateImportedCustomers,
} from './queries.js';
import { type CustomerImportBody, type CustomerImportRow, type CustomerPatch } from './schemas.js';
import { Customer, customerEvent, toCustomer, type CustomerRow } from '../../records/customer.js';

export class CustomerService {
  constructor(
    private readonly db: Kysely<DB>,
    /** What deleting a customer does to the rows other resources hold under it (docs/architecture.md#declared-cascades). */
    private readonly cascade: Cascade,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(
      this.db,
      customerList,
      organizationId,
      params,
      (row: CustomerRow) => toCustomer(row) as Customer,
    );
  }

  async get(organizationId: string, id: string, include?: string): Promise<Customer> {
    return getRecord(this.db, customerList, organizationId, include, {
      find: () => findCustomer(this.db, organizationId, id),
      toRecord: (row) => toCustomer(row) as Customer,
      missing: () => notFound('The customer'),
    });
  }

  async update(organizationId: string, id: string, patch: CustomerPatch): Promise<Customer> {
    const tags = patch.tags && normalizeTags(patch.tags, 'body.tags');
    return this.db.transaction().execute(async (trx) => {
      const before = await lockCustomer(trx, organizationId, id);
      if (!before) throw notFound('The customer');
      const retagged = tags ? await replaceTags(trx, organizationId, 'customer', new Map([[id, tags]])) : new Set();
      const row = await updateCustomer(trx, organizationId, id, patch, retagged.size > 0);
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toCustomer(before);
      await recordEvents(trx, [customerEvent(organizationId, 'customer.updated', row)]);
      return toCustomer(row);
    });
  }

  /**
   * Deletes a customer and their tag links. What other resources hold under the customer is theirs to delete, detach
   * or refuse the deletion for (409), through the declared cascade (docs/architecture.md#declared-cascades); their
   * events come before and after customer.deleted, as each edge says.
   */
  async delete(organizationId: string, id: string): Promise<Customer> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockCustomer(trx, organizationId, id))) throw notFound('The customer');
      const cascade = await this.cascade(trx, organizationId, id);
      const row = await deleteCustomerRow(trx, organizationId, id);
      if (!row) throw notFound('The customer');
      await cascade.parentDeleted();
      await recordEvents(trx, [
        ...cascade.eventsBefore,
        customerEvent(organizationId, 'customer.deleted', row),
        ...cascade.eventsAfter,
      ]);
      return toCustomer(row);
    });
  }

  async bulkUpdate(organizationId: string, selection: SelectionParams, changes: BulkUpdateChanges): Promise<number> {
    return this.db.transaction().execute((trx) =>
      bulkUpdate<CustomerRow>(
        trx,
        {
          definition: customerList,
          table: 'customers',
          tagKind: 'customer',
          eventName: 'customer.updated',
          schema: Customer,
          toRecord: toCustomer,
        },
        organizationId,
        selection,
        changes,
      ),
    );
  }

  /**
   * POST /customers/import: creates or updates by email (case-insensitive) with a few set-based statements, in
   * one transaction, with one customer.updated event per customer written.
   */
  async import(organizationId: string, body: CustomerImportBody) {
    return this.db
      .transaction()
      .execute((trx) => importCustomers(trx, organizationId, body, requestProvenance('customers')));
  }
}

/**
 * The customers import, in the caller's transaction (a request's own, or an import job's batch): creates or updates
 * by email (case-insensitive) with a few set-based statements, one customer.updated event per customer written.
 */
export async function importCustomers(
  trx: Transaction<DB>,
  organizationId: string,
  body: CustomerImportBody,
  provenance: ImportProvenance,
): Promise<{ data: Customer[]; skipped: Skipped[]; created: number; updated: number; unchanged: number }> {
  checkImportSize(body.data);
  const rows = body.data.map((row, index) => ({
    row: normalizeRow(row, index),
    index,
    tags: row.tags && normalizeTags(row.tags, `body.data[${index}].tags`),
  }));
  refuseDuplicateEmails(rows.map((entry) => entry.row.email));

  {
    const existing = await customerIdsByEmail(
      trx,
      organizationId,
      rows.map((entry) => entry.row.email),
    );
    const creates = rows.filter((entry) => !existing.has(entry.row.email)).map((entry) => ({ ...entry, id: uuidv7() }));
    const updates = rows
      .filter((entry) => existing.has(entry.row.email))
      .map((entry) => ({ ...entry, id: existing.get(entry.row.email)! }));
    const newIds = new Map(creates.map((entry) => [entry.index, entry.id]));
    const idOf = (entry: (typeof rows)[number]) => existing.get(entry.row.email) ?? newIds.get(entry.index)!;

    const created = await insertCustomers(
      trx,
      organizationId,
      creates.map(({ row, id }) => ({
        id,
        email: row.email,
        phone: row.phone ?? null,
        firstName: row.firstName ?? null,
        lastName: row.lastName ?? null,
        country: row.country ?? null,
        birthday: row.birthday ?? null,
        metadata: row.metadata ?? {},
        notes: row.notes ?? null,
        emailOptOut: row.emailOptOut ?? false,
        emailOptOutSource: row.emailOptOutSource ?? 'import',
        createdAt: row.createdAt,
      })),
    );
    // Tags first: a customer whose fields are unchanged but whose tags changed is updated too; one where nothing
    // changed is left alone, counted unchanged (docs/api.md#writes-that-change-nothing).
    const retagged = await replaceTags(
      trx,
      organizationId,
      'customer',
      new Map(rows.filter((entry) => entry.tags).map((entry) => [idOf(entry), entry.tags!])),
      new Set(creates.map((entry) => entry.id)),
    );
    const updated = await updateImportedCustomers(
      trx,
      organizationId,
      updates.map(({ row, id }) => {
        const { tags: _tags, ...fields } = row;
        return { ...fields, id };
      }),
      Boolean(body.mergeMetadata),
      retagged,
    );
    const written = new Map([...created, ...updated].map((row) => [row.id, row]));
    const unchanged = await customersById(
      trx,
      organizationId,
      updates.map((entry) => entry.id).filter((id) => !written.has(id)),
    );
    const createdIds = new Set(created.map((row) => row.id));
    const entries = rows.map((entry) => {
      const id = idOf(entry);
      const action: ImportAction = createdIds.has(id) ? 'created' : written.has(id) ? 'updated' : 'unchanged';
      return { index: entry.index, row: written.get(id) ?? unchanged.get(id)!, action };
    });
    const changed = entries.filter((entry) => entry.action !== 'unchanged');
    await recordImportRows(
      trx,
      organizationId,
      provenance,
      changed.map((entry) => ({
        recordId: entry.row.id,
        action: entry.action as 'created' | 'updated',
        row: entry.index,
      })),
    );
    await recordEvents(
      trx,
      changed.map((entry) => customerEvent(organizationId, 'customer.updated', entry.row)),
    );
    return { data: entries.map((entry) => toCustomer(entry.row)), skipped: [], ...importCounts(entries) };
  }
}

/** Checks what the schema cannot and normalises timestamps (docs/api.md#timestamps). */
function normalizeRow(row: CustomerImportRow, index: number): CustomerImportRow {
  if (row.emailOptOutSource !== undefined && row.emailOptOutSource !== null && row.emailOptOut !== true) {
    const path = `body.data[${index}].emailOptOutSource`;
    throw validationError(`Invalid request: ${path} applies only to a row with emailOptOut true.`, [
      { path, message: 'applies only with emailOptOut true' },
    ]);
  }
  return row.createdAt === undefined ? row : { ...row, createdAt: new Date(row.createdAt).toISOString() };
}

/** Two rows for the same email (case-insensitive) in one request are ambiguous: 400 naming both. */
function refuseDuplicateEmails(emails: readonly string[]): void {
  const seen = new Map<string, number>();
  const details: ErrorDetail[] = [];
  emails.forEach((email, index) => {
    const key = email.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      details.push({
        path: `body.data[${index}].email`,
        message: `repeats body.data[${first}].email (emails match case-insensitively)`,
      });
  });
  const first = details[0];
  if (first) {
    throw validationError(
      `Invalid request: ${first.path} ${first.message}; send each customer once.`,
      details.slice(0, 20),
    );
  }
}
