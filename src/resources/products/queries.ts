import type { Kysely } from 'kysely';
import { prepared, preparedForIds } from '../../db/prepared.js';
import type { DB, Metadata } from '../../db/schema.js';
import { productsBySlug } from '../../resource-kit/references.js';
import { toVariant, type Variant } from '../../records/variant.js';
import { updateIfChanged } from '../../resource-kit/changes.js';
import type { Executor } from '../../db/executor.js';

const selectProduct = prepared(
  (db, organizationId: string, id: string) =>
    db.selectFrom('products').selectAll().where('organization_id', '=', organizationId).where('id', '=', id),
  ['organization-id', 'product-id'],
);

export const findProduct = async (db: Executor, organizationId: string, id: string) =>
  (await selectProduct(db, organizationId, id))[0];

const selectVariantsOf = preparedForIds((db, organizationId, productIds) =>
  db
    .selectFrom('product_variants')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productIds)
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('id'),
);

/** Variants per product, in import order, one query for the page (include=variants). */
export async function variantsOf(db: Kysely<DB>, organizationId: string, productIds: readonly string[]) {
  const rows = await selectVariantsOf(db, organizationId, productIds);
  const byProduct = new Map<string, unknown>();
  for (const row of rows) {
    const list = (byProduct.get(row.product_id) as Variant[] | undefined) ?? [];
    list.push(toVariant(row));
    byProduct.set(row.product_id, list);
  }
  return byProduct;
}

/** Import matching: slug → product id, one unique-index probe per slug (see productsBySlug). */
export async function productIdsBySlug(
  trx: Executor,
  organizationId: string,
  slugs: readonly string[],
): Promise<Map<string, string>> {
  if (slugs.length === 0) return new Map();
  const { rows } = await productsBySlug(organizationId, slugs).execute(trx);
  return new Map(rows.map((row) => [row.slug, row.id]));
}

export const findVariant = (db: Executor, organizationId: string, productId: string, variantId: string) =>
  db
    .selectFrom('product_variants')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productId)
    .where('id', '=', variantId)
    .executeTakeFirst();

/** The variant's new metadata; undefined when it already is that (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateVariantMetadata = (trx: Executor, organizationId: string, variantId: string, metadata: Metadata) =>
  updateIfChanged(trx, 'product_variants', organizationId, variantId, { metadata });
