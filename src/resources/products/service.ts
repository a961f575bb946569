import { sql, type Kysely, type Transaction } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB, Metadata } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { notFound } from '../../http/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../lists/query.js';
import { bulkUpdate, type BulkUpdateChanges } from '../../resource-kit/bulk-update.js';
import {
  checkImportSize,
  recordImportRows,
  refuseDuplicates,
  strictFailure,
  type Skipped,
} from '../../resource-kit/imports.js';
import { deleteRecord, lockRecord, updateEditable } from '../../resource-kit/editable.js';
import { resolveSites } from '../../resource-kit/references.js';
import { replaceTags } from '../../resource-kit/tags.js';
import { normalizeTags } from '../../resource-kit/text.js';
import { productList } from './list.js';
import {
  cascadeDeleteReviews,
  detachReviews,
  findProduct,
  findVariant,
  productIdsBySlug,
  updateVariantMetadata,
} from './queries.js';
import type { ProductImportBody } from './schemas.js';
import { Product, productEvent, toProduct, type ProductRow } from '../../records/product.js';
import { toVariant, variantEvent, type Variant } from '../../records/variant.js';
import { publishedReviewsChanged } from '../review-summaries/index.js';
import { reviewEvent } from '../../records/review.js';

export class ProductService {
  constructor(private readonly db: Kysely<DB>) {}

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
      if (tags) await replaceTags(trx, organizationId, 'product', new Map([[id, tags]]));
      const row = await updateEditable(trx, 'products', organizationId, id, patch);
      await recordEvents(trx, [productEvent(organizationId, 'product.updated', row)]);
      return toProduct(row);
    });
  }

  async delete(organizationId: string, id: string): Promise<Product> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await findProduct(trx, organizationId, id))) throw notFound('The product');
      const cascade = await cascadeDeleteReviews(trx, organizationId);
      const reviews = await detachReviews(trx, organizationId, id, cascade);
      const row = await deleteRecord(trx, 'products', organizationId, id);
      if (!row) throw notFound('The product');
      if (reviews.length) await publishedReviewsChanged(trx, organizationId, [id]);
      const reviewEvents = reviews.map((review) =>
        reviewEvent(organizationId, cascade ? 'review.deleted' : 'review.updated', review),
      );
      await recordEvents(trx, [...reviewEvents, productEvent(organizationId, 'product.deleted', row)]);
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
      const row =
        metadata === undefined ? existing : await updateVariantMetadata(trx, organizationId, variantId, metadata);
      await recordEvents(trx, [variantEvent(organizationId, 'productVariant.updated', row)]);
      return toVariant(row);
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

    return this.db.transaction().execute(async (trx) => {
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

      const written = await upsertProducts(trx, organizationId, accepted, Boolean(body.mergeMetadata));
      const productIdOf = new Map(written.map((entry) => [entry.row.slug, entry.row.id]));
      await replaceVariants(
        trx,
        organizationId,
        accepted
          .filter((row) => row.variants)
          .map((row) => ({ productId: productIdOf.get(row.slug)!, variants: row.variants! })),
        Boolean(body.mergeMetadata),
      );
      await replaceSiteLinks(
        trx,
        organizationId,
        accepted
          .filter((row) => row.sites)
          .map((row) => ({
            productId: productIdOf.get(row.slug)!,
            siteIds: row.sites!.map((site) => sites.get(site)!),
          })),
      );
      await replaceTags(
        trx,
        organizationId,
        'product',
        new Map(accepted.filter((row) => row.tags).map((row) => [productIdOf.get(row.slug)!, row.tags!])),
        new Set(written.filter((entry) => entry.action === 'created').map((entry) => entry.row.id)),
      );
      await recordImportRows(
        trx,
        organizationId,
        uuidv7(),
        'products',
        written.map((entry) => ({ recordId: entry.row.id, action: entry.action, row: entry.index })),
      );
      await recordEvents(
        trx,
        written.map((entry) => productEvent(organizationId, 'product.updated', entry.row)),
      );
      return { data: written.map((entry) => toProduct(entry.row)), skipped };
    });
  }
}

type ImportRow = ProductImportBody['data'][number] & { index: number; tags?: string[] | undefined };

/** Creates new slugs and updates existing ones; fields a row omits keep their stored value. */
async function upsertProducts(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly ImportRow[],
  mergeMetadata: boolean,
) {
  if (rows.length === 0) return [];
  const existing = await productIdsBySlug(
    trx,
    organizationId,
    rows.map((row) => row.slug),
  );
  const indexOf = new Map(rows.map((row) => [row.slug, row.index]));
  const creates = rows.filter((row) => !existing.has(row.slug));
  const updates = rows.filter((row) => existing.has(row.slug));
  const written = new Map<string, { row: ProductRow; action: 'created' | 'updated'; index: number }>();

  if (creates.length) {
    const column = <T>(pick: (row: ImportRow) => T | undefined) => creates.map((row) => pick(row) ?? null);
    const { rows: created } = await sql<ProductRow>`
      insert into products (organization_id, id, slug, title, description, image_url, url, metadata, created_at, updated_at)
      select ${organizationId}::uuid, u.id, u.slug, coalesce(u.title, ''), coalesce(u.description, ''), coalesce(u.image_url, ''),
        coalesce(u.url, ''), coalesce(u.metadata, '{}'), coalesce(u.created_at, now()), coalesce(u.created_at, now())
      from unnest(
        ${creates.map(() => uuidv7())}::uuid[], ${column((r) => r.slug)}::text[], ${column((r) => r.title)}::text[],
        ${column((r) => r.description)}::text[], ${column((r) => r.imageUrl)}::text[], ${column((r) => r.url)}::text[],
        ${column((r) => (r.metadata ? JSON.stringify(r.metadata) : undefined))}::jsonb[], ${column((r) => r.createdAt)}::timestamptz[]
      ) as u(id, slug, title, description, image_url, url, metadata, created_at)
      returning *`.execute(trx);
    for (const row of created) written.set(row.slug, { row, action: 'created', index: indexOf.get(row.slug)! });
  }
  if (updates.length) {
    const column = <T>(pick: (row: ImportRow) => T | undefined) => updates.map((row) => pick(row) ?? null);
    const { rows: updated } = await sql<ProductRow>`
      update products p set
        title = coalesce(u.title, p.title),
        description = coalesce(u.description, p.description),
        image_url = coalesce(u.image_url, p.image_url),
        url = coalesce(u.url, p.url),
        metadata = case when u.metadata is null then p.metadata when ${mergeMetadata} then p.metadata || u.metadata else u.metadata end,
        created_at = coalesce(u.created_at, p.created_at),
        updated_at = now()
      from unnest(
        ${updates.map((row) => existing.get(row.slug)!)}::uuid[], ${column((r) => r.title)}::text[],
        ${column((r) => r.description)}::text[], ${column((r) => r.imageUrl)}::text[], ${column((r) => r.url)}::text[],
        ${column((r) => (r.metadata ? JSON.stringify(r.metadata) : undefined))}::jsonb[], ${column((r) => r.createdAt)}::timestamptz[]
      ) as u(id, title, description, image_url, url, metadata, created_at)
      where p.organization_id = ${organizationId}::uuid and p.id = u.id
      returning p.*`.execute(trx);
    for (const row of updated) written.set(row.slug, { row, action: 'updated', index: indexOf.get(row.slug)! });
  }
  return rows.map((row) => written.get(row.slug)!);
}

type VariantImport = NonNullable<ImportRow['variants']>[number];

/** A row's variants become exactly what it sends: matched by slug within the product, others removed. */
async function replaceVariants(
  trx: Transaction<DB>,
  organizationId: string,
  products: readonly { productId: string; variants: readonly VariantImport[] }[],
  mergeMetadata: boolean,
): Promise<void> {
  if (products.length === 0) return;
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
  const remove = stored.filter((row) => !keep.has(row.id)).map((row) => row.id);
  if (remove.length) {
    await sql`delete from product_variants where organization_id = ${organizationId}::uuid and id = any(${remove}::uuid[])`.execute(
      trx,
    );
  }
  const creates = wanted.filter((variant) => !variant.id);
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
    await sql`
      update product_variants v set
        title = coalesce(u.title, v.title),
        image_url = coalesce(u.image_url, v.image_url),
        price_cents = coalesce(u.price_cents, v.price_cents),
        currency_code = coalesce(u.currency_code, v.currency_code),
        available = coalesce(u.available, v.available),
        metadata = case when u.metadata is null then v.metadata when ${mergeMetadata} then v.metadata || u.metadata else u.metadata end,
        position = u.position,
        updated_at = now()
      from unnest(
        ${column((v) => v.id)}::uuid[], ${column((v) => v.title)}::text[], ${column((v) => v.imageUrl)}::text[],
        ${column((v) => v.priceCents)}::bigint[], ${column((v) => v.currencyCode)}::text[], ${column((v) => v.available)}::boolean[],
        ${column((v) => (v.metadata ? JSON.stringify(v.metadata) : undefined))}::jsonb[], ${column((v) => v.position)}::int[]
      ) as u(id, title, image_url, price_cents, currency_code, available, metadata, position)
      where v.organization_id = ${organizationId}::uuid and v.id = u.id`.execute(trx);
  }
}

async function replaceSiteLinks(
  trx: Transaction<DB>,
  organizationId: string,
  products: readonly { productId: string; siteIds: readonly string[] }[],
): Promise<void> {
  if (products.length === 0) return;
  await sql`delete from product_sites where organization_id = ${organizationId}::uuid
    and product_id = any(${products.map((product) => product.productId)}::uuid[])`.execute(trx);
  const links = products.flatMap((product) =>
    [...new Set(product.siteIds)].map((siteId) => [product.productId, siteId] as const),
  );
  if (links.length === 0) return;
  await sql`insert into product_sites (organization_id, product_id, site_id)
    select ${organizationId}::uuid, u.product_id, u.site_id from unnest(${links.map((link) => link[0])}::uuid[], ${links.map((link) => link[1])}::uuid[])
      as u(product_id, site_id)`.execute(trx);
}
