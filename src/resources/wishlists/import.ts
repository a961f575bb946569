import { sql, type Transaction } from 'kysely';
import { columnList } from '../../db/executor.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { validationError } from '../../core/errors.js';
import {
  checkImportSize,
  firstSameRecord,
  importCounts,
  importOutcomes,
  refuseDuplicates,
  strictFailure,
  type Skipped,
} from '../../resource-kit/imports.js';
import { resolveCustomers, resolveProducts, resolveProductsWithVariants } from '../../resource-kit/references.js';
import { uuidv7 } from '../../util/ids.js';
import { isUuid } from '../../util/uuid.js';
import {
  toWishlistWithItems,
  wishlistEventOf,
  WISHLIST_COLUMNS,
  type WishlistFields,
  type WishlistItemFields,
} from '../../records/wishlist.js';
import { adjustWishlistsCounts, deleteItems, insertItems, itemRowsOf, updateItems } from './queries.js';
import type { WishlistImportBody, WishlistImportRow } from './schemas.js';
import { countDeltas } from './counts.js';

type Row = WishlistImportRow & { index: number };
interface ResolvedItem {
  productId: string;
  variantId: string | null;
  note: string | null;
  addedAt?: string | undefined;
}
interface Accepted {
  row: Row;
  customerId: string;
  items: ResolvedItem[];
  existing?: WishlistFields | undefined;
}

/**
 * POST /wishlists/import (docs/api.md#wishlists): creates or updates wishlists. A row matches the wishlist with its
 * remoteId; else the oldest wishlist of the same customer with the same name (one without a remoteId when the row
 * brings one, which it then takes). The row's items replace the stored ones exactly: an item the list already holds
 * (same product and variant) keeps its id, and its addedAt unless the row sends one. A missing customer, product or
 * variant skips the row (with itemIndex for an item), or with strict fails the import with 422 and writes nothing.
 * Events: wishlist.created per new list, wishlist.updated per list whose fields or items changed; an unchanged row
 * writes nothing and sends nothing.
 */
export async function importWishlists(trx: Transaction<DB>, organizationId: string, body: WishlistImportBody) {
  checkImportSize(body.data);
  const rows: Row[] = body.data.map((row, index) => ({ ...row, index }));
  refuseDuplicates(
    rows.map((row) => row.remoteId),
    'remoteId',
    { noun: 'wishlist' },
  );
  const customers = await resolveCustomers(trx, organizationId, [...new Set(rows.map((row) => row.customer))]);
  const productReferences = [...new Set(rows.flatMap((row) => row.items.map((item) => item.product)))];
  // Variants are read only when an item names one: an item without a variant names the product alone.
  const { products, variants } = rows.some((row) => row.items.some((item) => item.variant !== undefined))
    ? await resolveProductsWithVariants(trx, organizationId, productReferences)
    : { products: await resolveProducts(trx, organizationId, productReferences), variants: new Map() };

  const skipped: Skipped[] = [];
  const resolved: Accepted[] = [];
  for (const row of rows) {
    const miss = resolveRow(row, customers, products, variants);
    if ('index' in miss) {
      if (body.strict) throw strictFailure(miss);
      skipped.push(miss);
    } else {
      resolved.push({ row, ...miss });
    }
  }
  refuseSameList(resolved);
  const accepted = await matchExisting(trx, organizationId, resolved);

  const stored = await itemRowsOf(
    trx,
    organizationId,
    accepted.flatMap((entry) => (entry.existing ? [entry.existing.id] : [])),
  );
  const inserts: Parameters<typeof insertItems>[2][number][] = [];
  const updates: { id: string; note: string | null; addedAt: string }[] = [];
  const removals: string[] = [];
  const itemsChanged = new Set<string>();
  // Ids are made row by row, each wishlist's before its items': the order the demo world plans them in.
  const plans: (Accepted & { id: string })[] = [];
  for (const entry of accepted) {
    const plan = { ...entry, id: entry.existing?.id ?? uuidv7() };
    plans.push(plan);
    const before = stored.get(plan.id) ?? [];
    const byKey = new Map(before.map((item) => [itemKey(item.product_id, item.product_variant_id), item]));
    for (const item of plan.items) {
      const kept = byKey.get(itemKey(item.productId, item.variantId));
      if (!kept) {
        inserts.push({ id: uuidv7(), wishlistId: plan.id, ...item });
        itemsChanged.add(plan.id);
        continue;
      }
      byKey.delete(itemKey(item.productId, item.variantId));
      const addedAt = item.addedAt ? new Date(item.addedAt).toISOString() : kept.added_at.toISOString();
      if (kept.note !== item.note || addedAt !== kept.added_at.toISOString()) {
        updates.push({ id: kept.id, note: item.note, addedAt });
        itemsChanged.add(plan.id);
      }
    }
    for (const gone of byKey.values()) {
      removals.push(gone.id);
      itemsChanged.add(plan.id);
    }
  }

  const created = await insertWishlists(
    trx,
    organizationId,
    plans.filter((plan) => !plan.existing),
  );
  const updated = await updateWishlists(
    trx,
    organizationId,
    plans.filter((plan) => plan.existing),
    itemsChanged,
  );
  await deleteItems(trx, organizationId, removals);
  await updateItems(trx, organizationId, updates);
  await insertItems(trx, organizationId, inserts);
  // What each list holds now, read again only where it cannot be known: a list whose items this import did not
  // change holds what `stored` read after it was locked (a new list without items holds none), and a list this
  // import created, none of whose items sent addedAt, holds exactly the items inserted, all added at the
  // transaction's time (its createdAt), so in id order (items are oldest first, docs/api.md#wishlists, ties in id
  // order as itemRowsOf reads them).
  const createdAt = new Map(created.map((row) => [row.id, row.created_at]));
  const written = new Map<string, WishlistItemFields[]>();
  for (const item of inserts) {
    const at = createdAt.get(item.wishlistId);
    if (at === undefined) continue;
    let items = written.get(item.wishlistId);
    if (!items) written.set(item.wishlistId, (items = []));
    items.push({
      id: item.id.toLowerCase(),
      wishlist_id: item.wishlistId,
      product_id: item.productId,
      product_variant_id: item.variantId,
      note: item.note,
      added_at: at,
    });
  }
  for (const plan of plans) if (plan.items.some((item) => item.addedAt !== undefined)) written.delete(plan.id);
  for (const items of written.values()) items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const reread = await itemRowsOf(
    trx,
    organizationId,
    plans.filter((plan) => itemsChanged.has(plan.id) && !written.has(plan.id)).map((plan) => plan.id),
  );
  const after = new Map(
    plans.map((plan) => [plan.id, written.get(plan.id) ?? reread.get(plan.id) ?? stored.get(plan.id) ?? []]),
  );
  await adjustWishlistsCounts(
    trx,
    organizationId,
    countDeltas(plans.map((plan) => ({ before: stored.get(plan.id) ?? [], after: after.get(plan.id)! }))),
  );

  const outcomes = importOutcomes(plans, created, updated);
  // Each record is built once, for the answer and for its event.
  const data = plans.map((plan, at) => toWishlistWithItems(outcomes[at]!.record, after.get(plan.id)!));
  const events = [];
  for (const [at, record] of data.entries()) {
    const { action } = outcomes[at]!;
    if (action !== 'unchanged')
      events.push(
        wishlistEventOf(organizationId, action === 'created' ? 'wishlist.created' : 'wishlist.updated', record),
      );
  }
  await recordEvents(trx, events);
  return { data, skipped, ...importCounts(outcomes) };
}

const itemKey = (productId: string, variantId: string | null) => `${productId}/${variantId ?? ''}`;

/** The row's customer and items resolved, or why the row is skipped (the first miss, with itemIndex for an item). */
function resolveRow(
  row: Row,
  customers: ReadonlyMap<string, string>,
  products: ReadonlyMap<string, string>,
  variants: Awaited<ReturnType<typeof resolveProductsWithVariants>>['variants'],
): Skipped | { customerId: string; items: ResolvedItem[] } {
  const customerId = customers.get(row.customer);
  if (!customerId)
    return { index: row.index, message: `Customer "${row.customer}" does not exist in this organization.` };
  const items: ResolvedItem[] = [];
  const seen = new Map<string, number>();
  for (const [itemIndex, item] of row.items.entries()) {
    const productId = products.get(item.product);
    if (!productId) {
      return { index: row.index, itemIndex, message: `Product "${item.product}" does not exist in this organization.` };
    }
    let variantId: string | null = null;
    if (item.variant !== undefined) {
      const known = variants.get(productId)?.byReference;
      variantId =
        known?.get(item.variant) ?? (isUuid(item.variant) ? known?.get(item.variant.toLowerCase()) : undefined) ?? null;
      if (!variantId) {
        return {
          index: row.index,
          itemIndex,
          message: `Variant "${item.variant}" does not exist on product "${item.product}".`,
        };
      }
    }
    const key = itemKey(productId, variantId);
    const first = seen.get(key);
    if (first !== undefined) {
      throw validationError(
        `Invalid request: body.data[${row.index}].items[${itemIndex}] names the same product and variant as items[${first}]; a wishlist holds each once.`,
        [{ path: `body.data[${row.index}].items[${itemIndex}]`, message: `repeats items[${first}]` }],
      );
    }
    seen.set(key, itemIndex);
    items.push({ productId, variantId, note: item.note ?? null, addedAt: item.addedAt });
  }
  return { customerId, items };
}

/** Two rows without remoteId for the same customer and name would be one list: 400 naming them. */
function refuseSameList(rows: readonly Accepted[]): void {
  const repeat = firstSameRecord(rows, ({ row, customerId }) => `${customerId}/${row.name}`);
  if (!repeat) return;
  const [index, first] = repeat;
  const name = rows.find((entry) => entry.row.index === index)!.row.name;
  throw validationError(
    `Invalid request: body.data[${index}] and body.data[${first}] name the same customer's wishlist "${name}" without a remoteId; send it once, or give each a remoteId.`,
    [{ path: `body.data[${index}]`, message: `names the same wishlist as body.data[${first}]` }],
  );
}

/**
 * The stored wishlist each row updates, locked until commit: by remoteId first, else the oldest of the same customer
 * with the same name (without a remoteId when the row brings one), each claimed by one row at most.
 */
async function matchExisting(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly Accepted[],
): Promise<Accepted[]> {
  const remoteIds = rows.flatMap((entry) => (entry.row.remoteId !== undefined ? [entry.row.remoteId] : []));
  const byRemoteId = new Map<string, WishlistFields>();
  if (remoteIds.length) {
    const { rows: found } = await sql<WishlistFields>`
      select ${columnList(WISHLIST_COLUMNS)} from wishlists
      where organization_id = ${organizationId}::uuid and remote_id = any(${remoteIds}::text[])
      order by id for update`.execute(trx);
    for (const row of found) byRemoteId.set(row.remote_id!, row);
  }
  const unmatched = rows.filter((entry) => entry.row.remoteId === undefined || !byRemoteId.has(entry.row.remoteId));
  const candidates = new Map<string, WishlistFields[]>();
  if (unmatched.length) {
    const { rows: found } = await sql<WishlistFields>`
      select ${columnList(WISHLIST_COLUMNS)} from wishlists
      where organization_id = ${organizationId}::uuid
        and (customer_id, name) in (select * from unnest(${unmatched.map((entry) => entry.customerId)}::uuid[],
          ${unmatched.map((entry) => entry.row.name)}::text[]))
      order by id for update`.execute(trx);
    found.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
    for (const row of found) {
      const key = `${row.customer_id}/${row.name}`;
      candidates.set(key, [...(candidates.get(key) ?? []), row]);
    }
  }
  // A wishlist a row names by its remoteId is that row's, whichever comes first: no other row may match it by name.
  const claimed = new Set(
    rows.flatMap((entry) => {
      const byRemote = entry.row.remoteId !== undefined ? byRemoteId.get(entry.row.remoteId) : undefined;
      return byRemote ? [byRemote.id] : [];
    }),
  );
  return rows.map((entry) => {
    const byRemote = entry.row.remoteId !== undefined ? byRemoteId.get(entry.row.remoteId) : undefined;
    if (byRemote) return { ...entry, existing: byRemote };
    const match = (candidates.get(`${entry.customerId}/${entry.row.name}`) ?? []).find(
      (row) => !claimed.has(row.id) && (entry.row.remoteId === undefined || row.remote_id === null),
    );
    if (match) {
      claimed.add(match.id);
      return { ...entry, existing: match };
    }
    return entry;
  });
}

async function insertWishlists(
  trx: Transaction<DB>,
  organizationId: string,
  plans: readonly (Accepted & { id: string })[],
): Promise<WishlistFields[]> {
  if (plans.length === 0) return [];
  const json = JSON.stringify(
    plans.map((plan) => ({
      id: plan.id,
      customer_id: plan.customerId,
      name: plan.row.name,
      remote_id: plan.row.remoteId ?? null,
      metadata: plan.row.metadata ?? {},
    })),
  );
  const { rows } = await sql<WishlistFields>`
    insert into wishlists (organization_id, id, customer_id, name, remote_id, metadata)
    select ${organizationId}::uuid, u.id, u.customer_id, u.name, u.remote_id, u.metadata
    from json_to_recordset(${json}::json) as u(id uuid, customer_id uuid, name text, remote_id text, metadata jsonb)
    returning ${columnList(WISHLIST_COLUMNS)}`.execute(trx);
  return rows;
}

/**
 * Updates the matched wishlists: customer and name always sent, remoteId and metadata kept when omitted. Only lists
 * whose values change, or whose items change (`itemsChanged`), are written and returned (updatedAt moves).
 */
async function updateWishlists(
  trx: Transaction<DB>,
  organizationId: string,
  plans: readonly (Accepted & { id: string })[],
  itemsChanged: ReadonlySet<string>,
): Promise<WishlistFields[]> {
  if (plans.length === 0) return [];
  const json = JSON.stringify(
    plans.map((plan) => ({
      id: plan.id,
      customer_id: plan.customerId,
      name: plan.row.name,
      remote_id: plan.row.remoteId ?? null,
      metadata: plan.row.metadata ?? null,
      items_changed: itemsChanged.has(plan.id),
    })),
  );
  const { rows } = await sql<WishlistFields>`
    with n as (
      select o.id, u.customer_id, u.name, coalesce(u.remote_id, o.remote_id) as remote_id,
        coalesce(u.metadata, o.metadata) as metadata, u.items_changed
      from json_to_recordset(${json}::json)
        as u(id uuid, customer_id uuid, name text, remote_id text, metadata jsonb, items_changed boolean)
      join wishlists o on o.organization_id = ${organizationId}::uuid and o.id = u.id
    )
    update wishlists t set customer_id = n.customer_id, name = n.name, remote_id = n.remote_id, metadata = n.metadata,
      updated_at = now()
    from n
    where t.organization_id = ${organizationId}::uuid and t.id = n.id
      and (n.items_changed or (t.customer_id, t.name, t.remote_id, t.metadata)
        is distinct from (n.customer_id, n.name, n.remote_id, n.metadata))
    returning ${columnList(WISHLIST_COLUMNS, 't')}`.execute(trx);
  return rows;
}
