import { sql, type Transaction } from 'kysely';
import { compilable, PREPARE, preparedForIds } from '../../db/prepared.js';
import { plainArrayLiteral } from '../../db/arrays.js';
import { columnList, joinedRecord, prefixedColumnList, type Executor, type LeftJoined } from '../../db/executor.js';
import type { DB, Metadata } from '../../db/schema.js';
import { toCustomer, type CustomerRow } from '../../records/customer.js';
import { pageReferences } from '../../resource-kit/page-references.js';
import { ORDER_ITEM_COLUMNS, toOrderItem, type OrderItem, type OrderItemFields } from '../../records/order-item.js';
import { ORDER_COLUMNS, type OrderFields } from '../../records/order.js';
import { PRODUCT_COLUMNS, type ProductFields } from '../../records/product.js';
import { VARIANT_COLUMNS, type VariantFields } from '../../records/variant.js';

export const findOrder = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

const customerOfOrder = pageReferences<CustomerRow>({ from: 'orders', column: 'customer_id', to: 'customers' });

/** The customer of each order (include=customer), one query for the page. */
export const customersOfOrders = (db: Executor, organizationId: string, orderIds: readonly string[]) =>
  customerOfOrder(db, organizationId, orderIds, toCustomer);

/** One row per line item: its order, the item, then the product and variant columns the API shows. */
type ItemRow = { order_id: string } & OrderItemFields & LeftJoined<'p', ProductFields> & LeftJoined<'v', VariantFields>;

const selectItemsOfOrders = preparedForIds((db, organizationId, orderIds) =>
  compilable(
    db,
    sql<ItemRow>`select i.order_id, ${columnList(ORDER_ITEM_COLUMNS, 'i')},
      ${prefixedColumnList(PRODUCT_COLUMNS, 'p')}, ${prefixedColumnList(VARIANT_COLUMNS, 'v')}
    from order_items i
    left join products p on p.organization_id = i.organization_id and p.id = i.product_id
    left join product_variants v on v.organization_id = i.organization_id and v.id = i.product_variant_id
    where i.organization_id = ${organizationId}::uuid and i.order_id = ${orderIds}
    order by i.order_id, i.position, i.id`,
  ),
);

/**
 * Line items of each order in position order (include=items), one query for the page, with the product and
 * variant they were sold as: null once that product or variant has been deleted.
 */
export async function itemsOfOrders(
  db: Executor,
  organizationId: string,
  orderIds: readonly string[],
): Promise<Map<string, unknown>> {
  const rows = await selectItemsOfOrders(db, organizationId, orderIds);
  const byOrder = new Map<string, OrderItem[]>();
  for (const row of rows) {
    const item = toOrderItem(
      row,
      joinedRecord<ProductFields>(row, 'p', PRODUCT_COLUMNS),
      joinedRecord<VariantFields>(row, 'v', VARIANT_COLUMNS),
    );
    const list = byOrder.get(row.order_id);
    if (list) list.push(item);
    else byOrder.set(row.order_id, [item]);
  }
  return byOrder as Map<string, unknown>;
}

/**
 * Order ids of the organization by remoteId, for import matching; locked so a concurrent delete waits for the import.
 * Each id probes the unique (organization_id, remote_id) index (a lateral subquery is always planned that way):
 * `remote_id = any(…)` with 1,000 values cost more to plan than to run and could be matched against the trigram
 * index, and a plain join is hashed over the whole organization when it is a large part of the table.
 */
export async function ordersByRemoteId(
  trx: Executor,
  organizationId: string,
  remoteIds: readonly string[],
): Promise<Map<string, string>> {
  if (remoteIds.length === 0) return new Map();
  // Locked in id order, as every writer of orders locks them, so concurrent imports and bulk updates never deadlock.
  const { rows } = await sql<{ id: string; remote_id: string }>`
    select id, remote_id from orders where organization_id = ${organizationId}::uuid and remote_id = any(${[...remoteIds]}::text[])
    order by id for update`.execute(trx);
  return new Map(rows.map((row) => [row.remote_id, row.id]));
}

/** What an import row writes to the orders table, references resolved; undefined means "not sent". */
export interface OrderWrite {
  id: string;
  siteId: string;
  customerId: string;
  remoteId: string;
  number: string;
  totalCents?: number | undefined;
  subtotalCents?: number | undefined;
  shippingCents?: number | undefined;
  taxCents?: number | undefined;
  currencyCode?: string | undefined;
  shippedAt?: string | null | undefined;
  deliveredAt?: string | null | undefined;
  cancelledAt?: string | null | undefined;
  metadata?: Metadata | undefined;
  discountCodes?: string[] | undefined;
  createdAt?: string | undefined;
}

/**
 * The writes as one JSON parameter, unpacked by json_to_recordset: one bind parameter for any number of rows, and
 * JSON.stringify is far cheaper than the driver's array encoding. A key a row omits reads as null, so each nullable
 * timestamp carries a `<name>_sent` flag to tell "not sent" (keep) from null (clear).
 */
const writesJson = (writes: readonly OrderWrite[]) =>
  JSON.stringify(
    writes.map((w) => ({
      id: w.id,
      site_id: w.siteId,
      customer_id: w.customerId,
      remote_id: w.remoteId,
      number: w.number,
      total_cents: w.totalCents,
      subtotal_cents: w.subtotalCents,
      shipping_cents: w.shippingCents,
      tax_cents: w.taxCents,
      currency_code: w.currencyCode,
      shipped_at: w.shippedAt,
      shipped_at_sent: w.shippedAt !== undefined,
      delivered_at: w.deliveredAt,
      delivered_at_sent: w.deliveredAt !== undefined,
      cancelled_at: w.cancelledAt,
      cancelled_at_sent: w.cancelledAt !== undefined,
      metadata: w.metadata,
      discount_codes: w.discountCodes,
      created_at: w.createdAt,
    })),
  );

const WRITE_COLUMNS =
  sql.raw(`id uuid, site_id uuid, customer_id uuid, remote_id text, number text, total_cents bigint, subtotal_cents bigint,
  shipping_cents bigint, tax_cents bigint, currency_code text, shipped_at timestamptz, shipped_at_sent boolean, delivered_at timestamptz,
  delivered_at_sent boolean, cancelled_at timestamptz, cancelled_at_sent boolean, metadata jsonb, discount_codes jsonb, created_at timestamptz`);

/**
 * New orders in one statement. Money defaults to 0, the currency to the site's, createdAt to now; earnLoyalty is
 * stored for the loyalty engine.
 */
export async function insertOrders(
  trx: Transaction<DB>,
  organizationId: string,
  writes: readonly OrderWrite[],
  earnLoyalty: boolean,
) {
  if (writes.length === 0) return [];
  const { rows } = await sql<OrderFields>`${PREPARE}
    insert into orders (organization_id, id, site_id, customer_id, remote_id, number, total_cents, subtotal_cents, shipping_cents,
      tax_cents, currency_code, shipped_at, delivered_at, cancelled_at, metadata, earn_loyalty, discount_codes, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.site_id, u.customer_id, u.remote_id, u.number,
      coalesce(u.total_cents, 0), coalesce(u.subtotal_cents, 0), coalesce(u.shipping_cents, 0), coalesce(u.tax_cents, 0),
      coalesce(u.currency_code, (select s.currency_code from sites s where s.organization_id = ${organizationId}::uuid and s.id = u.site_id)),
      u.shipped_at, u.delivered_at, u.cancelled_at, coalesce(u.metadata, '{}'::jsonb), ${earnLoyalty},
      array(select jsonb_array_elements_text(coalesce(u.discount_codes, '[]'::jsonb))),
      coalesce(u.created_at, now()), coalesce(u.created_at, now())
    from json_to_recordset(${writesJson(writes)}::json) as u(${WRITE_COLUMNS})
    returning ${columnList(ORDER_COLUMNS)}`.execute(trx);
  return rows;
}

/**
 * Existing orders in one statement: site, customer and number are always sent; every other field a row omits keeps
 * its stored value (a timestamp sent as null clears it). mergeMetadata merges keys instead of replacing. Only orders
 * whose values change, or whose items or tags changed (`forced`), are written and returned
 * (docs/api.md#writes-that-change-nothing).
 */
export async function updateOrders(
  trx: Transaction<DB>,
  organizationId: string,
  writes: readonly OrderWrite[],
  mergeMetadata: boolean,
  forced: ReadonlySet<string>,
) {
  if (writes.length === 0) return [];
  const { rows } = await sql<OrderFields>`${PREPARE}
    with n as (
      select o.id, u.site_id, u.customer_id, u.number,
        coalesce(u.total_cents, o.total_cents) as total_cents,
        coalesce(u.subtotal_cents, o.subtotal_cents) as subtotal_cents,
        coalesce(u.shipping_cents, o.shipping_cents) as shipping_cents,
        coalesce(u.tax_cents, o.tax_cents) as tax_cents,
        coalesce(u.currency_code, o.currency_code) as currency_code,
        case when u.shipped_at_sent then u.shipped_at else o.shipped_at end as shipped_at,
        case when u.delivered_at_sent then u.delivered_at else o.delivered_at end as delivered_at,
        case when u.cancelled_at_sent then u.cancelled_at else o.cancelled_at end as cancelled_at,
        case when u.metadata is null then o.metadata when ${mergeMetadata} then o.metadata || u.metadata else u.metadata end as metadata,
        case when u.discount_codes is null then o.discount_codes else array(select jsonb_array_elements_text(u.discount_codes)) end as discount_codes,
        coalesce(u.created_at, o.created_at) as created_at
      from json_to_recordset(${writesJson(writes)}::json) as u(${WRITE_COLUMNS})
      join orders o on o.organization_id = ${organizationId}::uuid and o.id = u.id
    )
    update orders o set
      site_id = n.site_id, customer_id = n.customer_id, number = n.number, total_cents = n.total_cents,
      subtotal_cents = n.subtotal_cents, shipping_cents = n.shipping_cents, tax_cents = n.tax_cents,
      currency_code = n.currency_code, shipped_at = n.shipped_at, delivered_at = n.delivered_at,
      cancelled_at = n.cancelled_at, metadata = n.metadata, discount_codes = n.discount_codes,
      created_at = n.created_at, updated_at = now()
    from n
    where o.organization_id = ${organizationId}::uuid and o.id = n.id
      and (o.id = any(${plainArrayLiteral([...forced])}::uuid[])
        or (o.site_id, o.customer_id, o.number, o.total_cents, o.subtotal_cents, o.shipping_cents, o.tax_cents,
          o.currency_code, o.shipped_at, o.delivered_at, o.cancelled_at, o.metadata, o.discount_codes,
          date_trunc('milliseconds', o.created_at))
        is distinct from (n.site_id, n.customer_id, n.number, n.total_cents, n.subtotal_cents, n.shipping_cents,
          n.tax_cents, n.currency_code, n.shipped_at, n.delivered_at, n.cancelled_at, n.metadata, n.discount_codes,
          date_trunc('milliseconds', n.created_at)))
    returning ${columnList(ORDER_COLUMNS, 'o')}`.execute(trx);
  return rows;
}

/** Orders by id (the rows an import left unchanged, for its answer), one query. */
export async function ordersById(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, OrderFields>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<OrderFields>`
    select ${columnList(ORDER_COLUMNS)} from orders
    where organization_id = ${organizationId}::uuid and id = any(${plainArrayLiteral([...ids])}::uuid[])`.execute(trx);
  return new Map(rows.map((row) => [row.id, row]));
}

export interface ItemWrite {
  orderId: string;
  productId: string;
  variantId: string;
  quantity: number;
  unitPriceCents: number;
  position: number;
}

/** A comparable fingerprint of an order's line items: product, variant, quantity and price, in position order. */
export const itemsFingerprint = (
  items: readonly Pick<ItemWrite, 'productId' | 'variantId' | 'quantity' | 'unitPriceCents'>[],
) => items.map((item) => `${item.productId}/${item.variantId}/${item.quantity}/${item.unitPriceCents}`).join(';');

/** The stored line items' fingerprint of each order, one query (orders without items are absent). */
export async function storedItemFingerprints(
  trx: Executor,
  organizationId: string,
  orderIds: readonly string[],
): Promise<Map<string, string>> {
  if (orderIds.length === 0) return new Map();
  const { rows } = await sql<{
    order_id: string;
    product_id: string;
    product_variant_id: string;
    quantity: number;
    unit_price_cents: number;
  }>`
    select order_id, product_id, product_variant_id, quantity, unit_price_cents from order_items
    where organization_id = ${organizationId}::uuid and order_id = any(${[...orderIds]}::uuid[])
    order by order_id, position, id`.execute(trx);
  const byOrder = new Map<string, ItemWrite[]>();
  for (const row of rows) {
    const item = {
      orderId: row.order_id,
      productId: row.product_id,
      variantId: row.product_variant_id,
      quantity: row.quantity,
      unitPriceCents: row.unit_price_cents,
      position: 0,
    };
    const list = byOrder.get(row.order_id);
    if (list) list.push(item);
    else byOrder.set(row.order_id, [item]);
  }
  return new Map([...byOrder].map(([orderId, items]) => [orderId, itemsFingerprint(items)]));
}

/** Rows per item insert (one array parameter per column): chunks keep one statement's size bounded. */
const ITEM_CHUNK = 10_000;

/**
 * The orders' line items become exactly these: the old ones are deleted, the new ones inserted from one array per
 * column (PostgreSQL unnests arrays faster than json_to_recordset unpacks the same rows;
 * docs/journal/2026-11-21-store-data.md).
 */
export async function replaceItems(
  trx: Transaction<DB>,
  organizationId: string,
  orderIds: readonly string[],
  items: readonly ItemWrite[],
  newIds: () => string,
): Promise<void> {
  if (orderIds.length) {
    await sql`delete from order_items where organization_id = ${organizationId}::uuid and order_id = any(${[...orderIds]}::uuid[])`.execute(
      trx,
    );
  }
  for (let start = 0; start < items.length; start += ITEM_CHUNK) {
    const chunk = items.slice(start, start + ITEM_CHUNK);
    const column = (pick: (item: ItemWrite) => string | number) => plainArrayLiteral(chunk.map(pick));
    await sql`${PREPARE}
      insert into order_items (organization_id, id, order_id, product_id, product_variant_id, quantity, unit_price_cents, position)
      select ${organizationId}::uuid, u.* from unnest(
        ${plainArrayLiteral(chunk.map(() => newIds()))}::uuid[], ${column((item) => item.orderId)}::uuid[], ${column((item) => item.productId)}::uuid[],
        ${column((item) => item.variantId)}::uuid[], ${column((item) => item.quantity)}::int[], ${column((item) => item.unitPriceCents)}::bigint[],
        ${column((item) => item.position)}::int[]
      ) as u(id, order_id, product_id, product_variant_id, quantity, unit_price_cents, position)`.execute(trx);
  }
}
