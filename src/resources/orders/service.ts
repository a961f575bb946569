import type { Kysely, Transaction } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import type { Cascade } from '../../core/cascades.js';
import { notFound, validationError } from '../../core/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../lists/query.js';
import { bulkUpdate, type BulkUpdateChanges } from '../../resource-kit/bulk-update.js';
import {
  checkImportSize,
  importCounts,
  recordImportRows,
  type ImportAction,
  refuseDuplicates,
  strictFailure,
  type Skipped,
} from '../../resource-kit/imports.js';
import { deleteRecord, lockRecord, updateEditable } from '../../resource-kit/editable.js';
import {
  resolveCustomers,
  resolveProductsWithVariants,
  resolveSites,
  resolveVariant,
  type ProductVariants,
} from '../../resource-kit/references.js';
import { requestProvenance, type ImportProvenance } from '../../resource-kit/import-source.js';
import { replaceTags } from '../../resource-kit/tags.js';
import { MAX_METADATA_KEYS, normalizeTags } from '../../resource-kit/text.js';
import { orderList } from './list.js';
import {
  findOrder,
  insertOrders,
  ordersById,
  itemsFingerprint,
  ordersByRemoteId,
  replaceItems,
  storedItemFingerprints,
  updateOrders,
  type ItemWrite,
  type OrderWrite,
} from './queries.js';
import type { OrderImportBody, OrderImportRow, OrderPatch } from './schemas.js';
import { Order, orderEvent, toOrder, type OrderRow } from '../../records/order.js';
import { earnFromOrders, redeemOrderCodes } from '../loyalty/index.js';
import { scheduleSurveys, surveysMayBeDue, type OrderDatesBefore } from '../surveys/index.js';

export class OrderService {
  constructor(
    private readonly db: Kysely<DB>,
    /** What deleting an order does to the rows other resources hold under it (docs/architecture.md#declared-cascades). */
    private readonly cascade: Cascade,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, orderList, organizationId, params, toOrder);
  }

  async get(organizationId: string, id: string, include?: string): Promise<Order> {
    return getRecord(this.db, orderList, organizationId, include, {
      find: () => findOrder(this.db, organizationId, id),
      toRecord: toOrder,
      missing: () => notFound('The order'),
    });
  }

  /**
   * Rule 2: metadata (replaced wholesale), notes and tags (the full set) can change, and the fulfilment dates
   * (docs/api.md#orders-fulfilment-dates).
   */
  async update(organizationId: string, id: string, patch: OrderPatch): Promise<Order> {
    const tags = patch.tags && normalizeTags(patch.tags, 'body.tags');
    const setsDates = patch.shippedAt !== undefined || patch.deliveredAt !== undefined;
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockRecord(trx, 'orders', organizationId, id))) throw notFound('The order');
      const before = setsDates
        ? await findOrder(trx, organizationId, id).then(
            (row) => row && { shippedAt: row.shipped_at, deliveredAt: row.delivered_at },
          )
        : undefined;
      const retagged = tags ? await replaceTags(trx, organizationId, 'order', new Map([[id, tags]])) : new Set();
      const { row, changed } = await updateEditable(
        trx,
        'orders',
        organizationId,
        id,
        {
          metadata: patch.metadata,
          notes: patch.notes,
          columns: {
            shipped_at: patch.shippedAt === undefined ? undefined : dateOrNull(patch.shippedAt),
            delivered_at: patch.deliveredAt === undefined ? undefined : dateOrNull(patch.deliveredAt),
          },
        },
        retagged.size > 0,
      );
      // An order that gains a fulfilment date schedules its surveys with the change (docs/api.md#when-a-survey-is-scheduled).
      if (changed && before) await scheduleSurveys(trx, organizationId, [id], new Map([[id, before]]));
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (changed) await recordEvents(trx, [orderEvent(organizationId, 'order.updated', row)]);
      return toOrder(row);
    });
  }

  /** Deletes the order with its line items and tag links; answers the deleted order. */
  async delete(organizationId: string, id: string): Promise<Order> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockRecord(trx, 'orders', organizationId, id))) throw notFound('The order');
      // What other resources hold under it goes through the declared cascade (docs/architecture.md#declared-cascades),
      // with its events before the order's.
      const cascade = await this.cascade(trx, organizationId, id);
      const row = await deleteRecord(trx, 'orders', organizationId, id);
      if (!row) throw notFound('The order');
      await cascade.parentDeleted();
      await recordEvents(trx, [
        ...cascade.eventsBefore,
        orderEvent(organizationId, 'order.deleted', row),
        ...cascade.eventsAfter,
      ]);
      return toOrder(row);
    });
  }

  async bulkUpdate(organizationId: string, selection: SelectionParams, changes: BulkUpdateChanges): Promise<number> {
    return this.db.transaction().execute((trx) =>
      bulkUpdate<OrderRow>(
        trx,
        {
          definition: orderList,
          table: 'orders',
          tagKind: 'order',
          eventName: 'order.updated',
          schema: Order,
          toRecord: toOrder,
        },
        organizationId,
        selection,
        changes,
      ),
    );
  }

  async import(organizationId: string, body: OrderImportBody) {
    return this.db.transaction().execute((trx) => importOrders(trx, organizationId, body, requestProvenance('orders')));
  }
}

/**
 * The orders import, in the caller's transaction (a request's own, or an import job's batch): creates or updates
 * orders by remoteId. References are resolved with one query per kind for the whole batch; a row whose site,
 * customer or any item cannot be resolved is skipped whole (strict: the import fails with 422 and writes nothing).
 */
export async function importOrders(
  trx: Transaction<DB>,
  organizationId: string,
  body: OrderImportBody,
  provenance: ImportProvenance,
) {
  checkImportSize(body.data);
  const rows = body.data.map((row, index) => ({
    ...row,
    index,
    tags: row.tags && normalizeTags(row.tags, `body.data[${index}].tags`),
  }));
  refuseDuplicates(
    rows.map((row) => row.remoteId),
    'remoteId',
    { noun: 'order' },
  );

  {
    const resolved = await resolveReferences(trx, organizationId, rows);
    const skipped: Skipped[] = [];
    const accepted: Accepted[] = [];
    for (const row of rows) {
      const misses = missesOf(row, resolved);
      if (misses.length === 0) {
        accepted.push(acceptedRow(row, resolved));
        continue;
      }
      if (body.strict) throw strictFailure(misses[0]!);
      skipped.push(...misses);
    }
    const written = await writeOrders(trx, organizationId, accepted, {
      earnLoyalty: body.earnLoyalty ?? true,
      mergeMetadata: Boolean(body.mergeMetadata),
      provenance,
    });
    return { ...written, skipped };
  }
}

type ImportRow = Omit<OrderImportRow, 'tags'> & { index: number; tags?: string[] | undefined };

interface Resolved {
  sites: Map<string, string>;
  customers: Map<string, string>;
  products: Map<string, string>;
  variants: Map<string, ProductVariants>;
  orders: Map<string, string>;
}

/** Every reference of the request in a handful of set-based queries, never one per row. */
async function resolveReferences(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly ImportRow[],
): Promise<Resolved> {
  const unique = (values: Iterable<string>) => [...new Set(values)];
  const sites = await resolveSites(trx, organizationId, unique(rows.map((row) => row.site)));
  const customers = await resolveCustomers(trx, organizationId, unique(rows.map((row) => row.customer)));
  const { products, variants } = await resolveProductsWithVariants(
    trx,
    organizationId,
    unique(rows.flatMap((row) => (row.items ?? []).map((item) => item.product))),
  );
  const orders = await ordersByRemoteId(
    trx,
    organizationId,
    rows.map((row) => row.remoteId),
  );
  return { sites, customers, products, variants, orders };
}

/** Why a row cannot be imported: one entry for its site/customer, one per unresolved item. */
function missesOf(row: ImportRow, resolved: Resolved): Skipped[] {
  const misses: Skipped[] = [];
  const missing = [
    ...(resolved.sites.has(row.site) ? [] : [`site "${row.site}"`]),
    ...(resolved.customers.has(row.customer) ? [] : [`customer "${row.customer}"`]),
  ];
  if (missing.length) {
    const subject = missing.join(' and ');
    misses.push({
      index: row.index,
      message: `${subject.charAt(0).toUpperCase()}${subject.slice(1)} ${missing.length > 1 ? 'do' : 'does'} not exist in this organization.`,
    });
  }
  (row.items ?? []).forEach((item, itemIndex) => {
    const productId = resolved.products.get(item.product);
    if (!productId) {
      misses.push({
        index: row.index,
        itemIndex,
        message: `Product "${item.product}" does not exist in this organization.`,
      });
      return;
    }
    const variant = resolveVariant(resolved.variants.get(productId), item.variant, item.product);
    if ('error' in variant) misses.push({ index: row.index, itemIndex, message: variant.error });
  });
  return misses;
}

interface Accepted {
  row: ImportRow;
  write: OrderWrite;
  existing: boolean;
  items?: Omit<ItemWrite, 'orderId'>[] | undefined;
}

function acceptedRow(row: ImportRow, resolved: Resolved): Accepted {
  const existingId = resolved.orders.get(row.remoteId);
  const write: OrderWrite = {
    id: existingId ?? uuidv7(),
    siteId: resolved.sites.get(row.site)!,
    customerId: resolved.customers.get(row.customer)!,
    remoteId: row.remoteId,
    number: row.number,
    totalCents: row.totalCents,
    subtotalCents: row.subtotalCents,
    shippingCents: row.shippingCents,
    taxCents: row.taxCents,
    currencyCode: row.currencyCode,
    shippedAt: row.shippedAt,
    deliveredAt: row.deliveredAt,
    cancelledAt: row.cancelledAt,
    metadata: row.metadata,
    discountCodes: row.discountCodes,
    createdAt: row.createdAt,
  };
  const items = row.items?.map((item, position) => {
    const productId = resolved.products.get(item.product)!;
    const variant = resolveVariant(resolved.variants.get(productId), item.variant, item.product) as { id: string };
    return { productId, variantId: variant.id, quantity: item.quantity, unitPriceCents: item.unitPriceCents, position };
  });
  return { row, write, existing: existingId !== undefined, items };
}

/**
 * Writes the accepted rows with a fixed number of statements, then their items, tags, provenance and events; returns
 * their API records and counts. A row that changes nothing (fields, items and tags as stored) writes nothing and sends
 * nothing (docs/api.md#writes-that-change-nothing).
 */
async function writeOrders(
  trx: Transaction<DB>,
  organizationId: string,
  accepted: readonly Accepted[],
  options: { earnLoyalty: boolean; mergeMetadata: boolean; provenance: ImportProvenance },
) {
  if (accepted.length === 0) return { data: [], ...importCounts([]) };
  const creates = accepted.filter((entry) => !entry.existing);
  const updates = accepted.filter((entry) => entry.existing);
  // The fulfilment dates the updated orders had, read only where a survey flow could be due
  // (docs/api.md#when-a-survey-is-scheduled); the rows are locked by updateOrders below, in id order.
  const datesBefore = (await surveysMayBeDue(trx, organizationId))
    ? await fulfilmentDates(
        trx,
        organizationId,
        updates.map((entry) => entry.write.id),
      )
    : undefined;
  const created = await insertOrders(
    trx,
    organizationId,
    creates.map((entry) => entry.write),
    options.earnLoyalty,
  );
  // Only orders this import creates earn (never an update, so never twice), in the same transaction. Earning writes
  // only loyalty tables and reads nothing the item and tag writes change, so both are under way at once on the
  // transaction's one connection: Node prepares one's statements while the database runs the other's.
  const [earned, detailsChanged] = await Promise.all([
    options.earnLoyalty ? earnFromOrders(trx, organizationId, created) : [],
    writeDetails(trx, organizationId, accepted, creates),
  ]);
  // An order whose fields are as stored but whose items or tags changed is updated too (its updatedAt moves).
  const updated = await updateOrders(
    trx,
    organizationId,
    updates.map((entry) => entry.write),
    options.mergeMetadata,
    detailsChanged,
  );
  const overfull = updated.find((row) => Object.keys(row.metadata).length > MAX_METADATA_KEYS);
  if (overfull) {
    const entry = updates.find((candidate) => candidate.write.id === overfull.id)!;
    throw validationError(
      `Invalid request: merging body.data[${entry.row.index}].metadata would leave order "${overfull.remote_id}" with more than ${MAX_METADATA_KEYS} metadata keys; nothing was imported.`,
      [
        {
          path: `body.data[${entry.row.index}].metadata`,
          message: `would exceed ${MAX_METADATA_KEYS} keys once merged`,
        },
      ],
    );
  }
  const written = new Map([...created, ...updated].map((row) => [row.id, row]));
  const unchanged = await ordersById(
    trx,
    organizationId,
    updates.map((entry) => entry.write.id).filter((id) => !written.has(id)),
  );
  const entries = accepted.map((entry) => {
    const id = entry.write.id;
    const action: ImportAction = !entry.existing ? 'created' : written.has(id) ? 'updated' : 'unchanged';
    // One API record per order serves both its event and the response.
    return { entry, action, record: toOrder(written.get(id) ?? unchanged.get(id)!) };
  });
  const changed = entries.filter((each) => each.action !== 'unchanged');
  await recordImportRows(
    trx,
    organizationId,
    options.provenance,
    changed.map((each) => ({
      recordId: each.entry.write.id,
      action: each.action as 'created' | 'updated',
      row: each.entry.row.index,
    })),
  );
  if (datesBefore) {
    await scheduleSurveys(
      trx,
      organizationId,
      changed.map((each) => each.entry.write.id),
      datesBefore,
    );
  }
  await recordEvents(trx, [
    ...changed.map(({ record }) => ({ organizationId, name: 'order.updated', schema: Order, record })),
    ...earned,
  ]);
  // After the order events, so a receiver hears of the order before the reward redeemed on it. Redeeming is the
  // reward's state, not earning: historical imports (earnLoyalty false) redeem their codes too.
  await redeemOrderCodes(
    trx,
    organizationId,
    accepted
      .filter((entry) => entry.write.discountCodes?.length)
      .map((entry) => ({ orderId: entry.write.id, codes: entry.write.discountCodes! })),
  );
  return { data: entries.map((each) => each.record), ...importCounts(entries) };
}

/** The written orders' line items and tags; returns the orders whose items or tags changed. */
async function writeDetails(
  trx: Transaction<DB>,
  organizationId: string,
  accepted: readonly Accepted[],
  creates: readonly Accepted[],
): Promise<Set<string>> {
  // An update's items are replaced only when they differ from the stored ones: a re-sync of unchanged orders keeps
  // its line items (and their ids) and costs one read instead of a delete and an insert.
  const withItems = accepted.filter((entry) => entry.items);
  const stored = await storedItemFingerprints(
    trx,
    organizationId,
    withItems.filter((entry) => entry.existing).map((entry) => entry.write.id),
  );
  const changed = withItems.filter(
    (entry) => !entry.existing || (stored.get(entry.write.id) ?? '') !== itemsFingerprint(entry.items!),
  );
  await replaceItems(
    trx,
    organizationId,
    changed.filter((entry) => entry.existing).map((entry) => entry.write.id),
    changed.flatMap((entry) => entry.items!.map((item) => ({ ...item, orderId: entry.write.id }))),
    uuidv7,
  );
  const retagged = await replaceTags(
    trx,
    organizationId,
    'order',
    new Map(accepted.filter((entry) => entry.row.tags).map((entry) => [entry.write.id, entry.row.tags!])),
    new Set(creates.map((entry) => entry.write.id)),
  );
  return new Set([...changed.map((entry) => entry.write.id), ...retagged]);
}

const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

/** The fulfilment dates of existing orders, before a write changes them. */
async function fulfilmentDates(
  trx: Transaction<DB>,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, OrderDatesBefore>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('orders')
    .select(['id', 'shipped_at', 'delivered_at'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, { shippedAt: row.shipped_at, deliveredAt: row.delivered_at }]));
}
