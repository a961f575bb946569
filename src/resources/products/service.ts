import { sql, type Kysely, type Transaction } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB, Metadata } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import type { Cascade } from '../../core/cascades.js';
import { notFound } from '../../core/errors.js';
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
import { resolveSites } from '../../resource-kit/references.js';
import { requestProvenance, type ImportProvenance } from '../../resource-kit/import-source.js';
import { replaceTags } from '../../resource-kit/tags.js';
import { normalizeTags } from '../../resource-kit/text.js';
import { productList } from './list.js';
import { findProduct, findVariant, productIdsBySlug, updateVariantMetadata } from './queries.js';
import type { ProductImportBody } from './schemas.js';
import { Product, productEvent, toProduct, type ProductRow } from '../../records/product.js';
import { toVariant, variantEvent, type Variant } from '../../records/variant.js';

export class ProductService {
  constructor(
    private readonly db: Kysely<DB>,
    /** What deleting a product does to the rows other resources hold under it (docs/architecture.md#declared-cascades). */
    private readonly cascade: Cascade,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, productList, organizationId, params, toProduct);
  }

  async get(organizationId: string, id: string, include?: string): Promise<Product> {
    return getRecord(this.db, productList, organizationId, include, {
      find: () => findProduct(this.db, organizationId, id),
      toRecord: toProduct,
      missing: () => notFound('The product'),
    });
  }

  async update(
    organizationId: string,
    id: string,
    patch: { metadata?: Metadata | undefined; notes?: string | undefined; tags?: string[] | undefined },
  ): Promise<Product> {
    const tags = patch.tags && normalizeTags(patch.tags, 'body.tags');
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockRecord(trx, 'products', organizationId, id))) throw notFound('The product');
      const retagged = tags ? await replaceTags(trx, organizationId, 'product', new Map([[id, tags]])) : new Set();
      const { row, changed } = await updateEditable(trx, 'products', organizationId, id, patch, retagged.size > 0);
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (changed) await recordEvents(trx, [productEvent(organizationId, 'product.updated', row)]);
      return toProduct(row);
    });
  }

  /**
   * Deletes a product with its variants, tags and site links. What other resources hold under it is theirs to delete
   * or detach, through the declared cascade (docs/architecture.md#declared-cascades), each with its events before
   * product.deleted.
   */
  async delete(organizationId: string, id: string): Promise<Product> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await findProduct(trx, organizationId, id))) throw notFound('The product');
      const cascade = await this.cascade(trx, organizationId, id);
      const row = await deleteRecord(trx, 'products', organizationId, id);
      if (!row) throw notFound('The product');
      await cascade.parentDeleted();
      await recordEvents(trx, [
        ...cascade.eventsBefore,
        productEvent(organizationId, 'product.deleted', row),
        ...cascade.eventsAfter,
      ]);
      return toProduct(row);
    });
  }

  async updateVariant(
    organizationId: string,
    productId: string,
    variantId: string,
    metadata: Metadata | undefined,
  ): Promise<Variant> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await findVariant(trx, organizationId, productId, variantId);
      if (!existing) throw notFound('The variant');
      const changed =
        metadata === undefined ? undefined : await updateVariantMetadata(trx, organizationId, variantId, metadata);
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (changed) await recordEvents(trx, [variantEvent(organizationId, 'productVariant.updated', changed)]);
      return toVariant(changed ?? existing);
    });
  }

  async bulkUpdate(organizationId: string, selection: SelectionParams, changes: BulkUpdateChanges): Promise<number> {
    return this.db.transaction().execute((trx) =>
      bulkUpdate<ProductRow>(
        trx,
        {
          definition: productList,
          table: 'products',
          tagKind: 'product',
          eventName: 'product.updated',
          schema: Product,
          toRecord: toProduct,
        },
        organizationId,
        selection,
        changes,
      ),
    );
  }

  async import(organizationId: string, body: ProductImportBody) {
    return this.db
      .transaction()
      .execute((trx) => importProducts(trx, organizationId, body, requestProvenance('products')));
  }
}

/**
 * The products import, in the caller's transaction (a request's own, or an import job's batch): creates or updates
 * by slug, with their variants, site links and tags, one product.updated event per product written.
 */
export async function importProducts(
  trx: Transaction<DB>,
  organizationId: string,
  body: ProductImportBody,
  provenance: ImportProvenance,
) {
  checkImportSize(body.data);
  const rows = body.data.map((row, index) => ({
    ...row,
    index,
    tags: row.tags && normalizeTags(row.tags, `body.data[${index}].tags`),
  }));
  refuseDuplicates(
    rows.map((row) => row.slug),
    'slug',
  );
  rows.forEach((row) =>
    refuseDuplicates(
      (row.variants ?? []).map((variant) => variant.slug),
      'slug',
      { path: `body.data[${row.index}].variants` },
    ),
  );

  {
    const sites = await resolveSites(trx, organizationId, [...new Set(rows.flatMap((row) => row.sites ?? []))]);
    const skipped: Skipped[] = [];
    const accepted = rows.filter((row) => {
      const missing = (row.sites ?? []).find((site) => !sites.has(site));
      if (missing === undefined) return true;
      const miss = { index: row.index, message: `Site "${missing}" does not exist in this organization.` };
      if (body.strict) throw strictFailure(miss);
      skipped.push(miss);
      return false;
    });

    const existing = await productIdsBySlug(
      trx,
      organizationId,
      accepted.map((row) => row.slug),
    );
    const created = await insertProducts(
      trx,
      organizationId,
      accepted.filter((row) => !existing.has(row.slug)),
    );
    const productIdOf = new Map([...existing, ...created.map((row) => [row.slug, row.id] as const)]);
    const createdIds = new Set(created.map((row) => row.id));
    // Variants, site links and tags first: a product whose row is unchanged but whose variants, links or tags
    // changed is updated too (its updatedAt moves, product.updated goes out); one where nothing changed is left
    // alone (docs/api.md#writes-that-change-nothing).
    const variantsChanged = await replaceVariants(
      trx,
      organizationId,
      accepted
        .filter((row) => row.variants)
        .map((row) => ({ productId: productIdOf.get(row.slug)!, variants: row.variants! })),
      Boolean(body.mergeMetadata),
    );
    const sitesChanged = await replaceSiteLinks(
      trx,
      organizationId,
      accepted
        .filter((row) => row.sites)
        .map((row) => ({
          productId: productIdOf.get(row.slug)!,
          siteIds: row.sites!.map((site) => sites.get(site)!),
        })),
    );
    const tagsChanged = await replaceTags(
      trx,
      organizationId,
      'product',
      new Map(accepted.filter((row) => row.tags).map((row) => [productIdOf.get(row.slug)!, row.tags!])),
      createdIds,
    );
    const updated = await updateProducts(
      trx,
      organizationId,
      accepted.filter((row) => existing.has(row.slug)).map((row) => ({ ...row, id: existing.get(row.slug)! })),
      Boolean(body.mergeMetadata),
      new Set([...variantsChanged, ...sitesChanged, ...tagsChanged]),
    );
    const written = new Map([...created, ...updated].map((row) => [row.id, row]));
    const unchanged = await productsById(
      trx,
      organizationId,
      [...existing.values()].filter((id) => !written.has(id)),
    );
    const actionOf = (id: string): ImportAction =>
      createdIds.has(id) ? 'created' : written.has(id) ? 'updated' : 'unchanged';
    const entries = accepted.map((row) => {
      const id = productIdOf.get(row.slug)!;
      return { index: row.index, row: written.get(id) ?? unchanged.get(id)!, action: actionOf(id) };
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
      changed.map((entry) => productEvent(organizationId, 'product.updated', entry.row)),
    );
    return {
      data: entries.map((entry) => toProduct(entry.row)),
      skipped,
      ...importCounts(entries),
    };
  }
}

type ImportRow = ProductImportBody['data'][number] & { index: number; tags?: string[] | undefined };

/** The new products of an import, in one statement. */
async function insertProducts(
  trx: Transaction<DB>,
  organizationId: string,
  creates: readonly ImportRow[],
): Promise<ProductRow[]> {
  if (creates.length === 0) return [];
  const column = <T>(pick: (row: ImportRow) => T | undefined) => creates.map((row) => pick(row) ?? null);
  const { rows } = await sql<ProductRow>`
    insert into products (organization_id, id, slug, title, description, image_url, url, metadata, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.slug, coalesce(u.title, ''), coalesce(u.description, ''), coalesce(u.image_url, ''),
      coalesce(u.url, ''), coalesce(u.metadata, '{}'), coalesce(u.created_at, now()), coalesce(u.created_at, now())
    from unnest(
      ${creates.map(() => uuidv7())}::uuid[], ${column((r) => r.slug)}::text[], ${column((r) => r.title)}::text[],
      ${column((r) => r.description)}::text[], ${column((r) => r.imageUrl)}::text[], ${column((r) => r.url)}::text[],
      ${column((r) => (r.metadata ? JSON.stringify(r.metadata) : undefined))}::jsonb[], ${column((r) => r.createdAt)}::timestamptz[]
    ) as u(id, slug, title, description, image_url, url, metadata, created_at)
    returning *`.execute(trx);
  return rows;
}

/**
 * Updates existing products; fields a row omits keep their stored value. Only products whose values change, or whose
 * variants, site links or tags changed (`forced`), are written and returned (docs/api.md#writes-that-change-nothing).
 */
async function updateProducts(
  trx: Transaction<DB>,
  organizationId: string,
  updates: readonly (ImportRow & { id: string })[],
  mergeMetadata: boolean,
  forced: ReadonlySet<string>,
): Promise<ProductRow[]> {
  if (updates.length === 0) return [];
  const column = <T>(pick: (row: ImportRow) => T | undefined) => updates.map((row) => pick(row) ?? null);
  const { rows } = await sql<ProductRow>`
    with n as (
      select p.id, coalesce(u.title, p.title) as title, coalesce(u.description, p.description) as description,
        coalesce(u.image_url, p.image_url) as image_url, coalesce(u.url, p.url) as url,
        case when u.metadata is null then p.metadata when ${mergeMetadata} then p.metadata || u.metadata else u.metadata end as metadata,
        coalesce(u.created_at, p.created_at) as created_at
      from unnest(
        ${updates.map((row) => row.id)}::uuid[], ${column((r) => r.title)}::text[],
        ${column((r) => r.description)}::text[], ${column((r) => r.imageUrl)}::text[], ${column((r) => r.url)}::text[],
        ${column((r) => (r.metadata ? JSON.stringify(r.metadata) : undefined))}::jsonb[], ${column((r) => r.createdAt)}::timestamptz[]
      ) as u(id, title, description, image_url, url, metadata, created_at)
      join products p on p.organization_id = ${organizationId}::uuid and p.id = u.id
    )
    update products p set
      title = n.title, description = n.description, image_url = n.image_url, url = n.url, metadata = n.metadata,
      created_at = n.created_at, updated_at = now()
    from n
    where p.organization_id = ${organizationId}::uuid and p.id = n.id
      and (p.id = any(${[...forced]}::uuid[])
        or (p.title, p.description, p.image_url, p.url, p.metadata, date_trunc('milliseconds', p.created_at))
          is distinct from (n.title, n.description, n.image_url, n.url, n.metadata, date_trunc('milliseconds', n.created_at)))
    returning p.*`.execute(trx);
  return rows;
}

/** Products by id (the rows an import left unchanged, for its answer), one query. */
async function productsById(
  trx: Transaction<DB>,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, ProductRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<ProductRow>`
    select * from products where organization_id = ${organizationId}::uuid and id = any(${[...ids]}::uuid[])`.execute(
    trx,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

type VariantImport = NonNullable<ImportRow['variants']>[number];

/** A row's variants become exactly what it sends: matched by slug within the product, others removed. */
async function replaceVariants(
  trx: Transaction<DB>,
  organizationId: string,
  products: readonly { productId: string; variants: readonly VariantImport[] }[],
  mergeMetadata: boolean,
): Promise<Set<string>> {
  const changed = new Set<string>();
  if (products.length === 0) return changed;
  const productIds = products.map((product) => product.productId);
  const { rows: stored } = await sql<{ id: string; product_id: string; slug: string }>`
    select id, product_id, slug from product_variants where organization_id = ${organizationId}::uuid and product_id = any(${productIds}::uuid[])`.execute(
    trx,
  );
  const storedId = new Map(stored.map((row) => [`${row.product_id}\u0000${row.slug}`, row.id]));
  const wanted = products.flatMap((product) =>
    product.variants.map((variant, position) => ({
      ...variant,
      productId: product.productId,
      position,
      id: storedId.get(`${product.productId}\u0000${variant.slug}`),
    })),
  );
  const keep = new Set(wanted.flatMap((variant) => (variant.id ? [variant.id] : [])));
  const removed = stored.filter((row) => !keep.has(row.id));
  removed.forEach((row) => changed.add(row.product_id));
  const remove = removed.map((row) => row.id);
  if (remove.length) {
    await sql`delete from product_variants where organization_id = ${organizationId}::uuid and id = any(${remove}::uuid[])`.execute(
      trx,
    );
  }
  const creates = wanted.filter((variant) => !variant.id);
  creates.forEach((variant) => changed.add(variant.productId));
  if (creates.length) {
    const column = <T>(pick: (variant: (typeof creates)[number]) => T | undefined) =>
      creates.map((variant) => pick(variant) ?? null);
    await sql`
      insert into product_variants (organization_id, id, product_id, slug, title, image_url, price_cents, currency_code, available, metadata, position)
      select ${organizationId}::uuid, u.id, u.product_id, u.slug, coalesce(u.title, ''), coalesce(u.image_url, ''), coalesce(u.price_cents, 0),
        coalesce(u.currency_code, 'USD'), coalesce(u.available, true), coalesce(u.metadata, '{}'), u.position
      from unnest(
        ${creates.map(() => uuidv7())}::uuid[], ${column((v) => v.productId)}::uuid[], ${column((v) => v.slug)}::text[],
        ${column((v) => v.title)}::text[], ${column((v) => v.imageUrl)}::text[], ${column((v) => v.priceCents)}::bigint[],
        ${column((v) => v.currencyCode)}::text[], ${column((v) => v.available)}::boolean[],
        ${column((v) => (v.metadata ? JSON.stringify(v.metadata) : undefined))}::jsonb[], ${column((v) => v.position)}::int[]
      ) as u(id, product_id, slug, title, image_url, price_cents, currency_code, available, metadata, position)`.execute(
      trx,
    );
  }
  const updates = wanted.filter((variant) => variant.id);
  if (updates.length) {
    const column = <T>(pick: (variant: (typeof updates)[number]) => T | undefined) =>
      updates.map((variant) => pick(variant) ?? null);
    // Only variants whose values change are written (their updatedAt moves): docs/api.md#writes-that-change-nothing.
    const { rows } = await sql<{ product_id: string }>`
      with n as (
        select v.id, coalesce(u.title, v.title) as title, coalesce(u.image_url, v.image_url) as image_url,
          coalesce(u.price_cents, v.price_cents) as price_cents, coalesce(u.currency_code, v.currency_code) as currency_code,
          coalesce(u.available, v.available) as available,
          case when u.metadata is null then v.metadata when ${mergeMetadata} then v.metadata || u.metadata else u.metadata end as metadata,
          u.position
        from unnest(
          ${column((v) => v.id)}::uuid[], ${column((v) => v.title)}::text[], ${column((v) => v.imageUrl)}::text[],
          ${column((v) => v.priceCents)}::bigint[], ${column((v) => v.currencyCode)}::text[], ${column((v) => v.available)}::boolean[],
          ${column((v) => (v.metadata ? JSON.stringify(v.metadata) : undefined))}::jsonb[], ${column((v) => v.position)}::int[]
        ) as u(id, title, image_url, price_cents, currency_code, available, metadata, position)
        join product_variants v on v.organization_id = ${organizationId}::uuid and v.id = u.id
      )
      update product_variants v set
        title = n.title, image_url = n.image_url, price_cents = n.price_cents, currency_code = n.currency_code,
        available = n.available, metadata = n.metadata, position = n.position, updated_at = now()
      from n
      where v.organization_id = ${organizationId}::uuid and v.id = n.id
        and (v.title, v.image_url, v.price_cents, v.currency_code, v.available, v.metadata, v.position)
          is distinct from (n.title, n.image_url, n.price_cents, n.currency_code, n.available, n.metadata, n.position)
      returning v.product_id`.execute(trx);
    rows.forEach((row) => changed.add(row.product_id));
  }
  return changed;
}

/** A row's site links become exactly what it sends; returns the products whose set of sites changed. */
async function replaceSiteLinks(
  trx: Transaction<DB>,
  organizationId: string,
  products: readonly { productId: string; siteIds: readonly string[] }[],
): Promise<Set<string>> {
  if (products.length === 0) return new Set();
  const { rows: stored } = await sql<{ product_id: string; site_id: string }>`
    select product_id, site_id from product_sites where organization_id = ${organizationId}::uuid
      and product_id = any(${products.map((product) => product.productId)}::uuid[])`.execute(trx);
  const before = new Map<string, Set<string>>();
  for (const row of stored) before.set(row.product_id, (before.get(row.product_id) ?? new Set()).add(row.site_id));
  const changed = products.filter((product) => {
    const was = before.get(product.productId) ?? new Set<string>();
    const now = new Set(product.siteIds);
    return was.size !== now.size || [...now].some((siteId) => !was.has(siteId));
  });
  if (changed.length === 0) return new Set();
  await sql`delete from product_sites where organization_id = ${organizationId}::uuid
    and product_id = any(${changed.map((product) => product.productId)}::uuid[])`.execute(trx);
  const links = changed.flatMap((product) =>
    [...new Set(product.siteIds)].map((siteId) => [product.productId, siteId] as const),
  );
  if (links.length) {
    await sql`insert into product_sites (organization_id, product_id, site_id)
      select ${organizationId}::uuid, u.product_id, u.site_id from unnest(${links.map((link) => link[0])}::uuid[], ${links.map((link) => link[1])}::uuid[])
        as u(product_id, site_id)`.execute(trx);
  }
  return new Set(changed.map((product) => product.productId));
}
