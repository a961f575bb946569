import type { ResourceModuleWithLists } from '../../resource-kit/module.js';
import { productRoutes } from './routes.js';
import { Product } from '../../records/product.js';
import { Variant } from '../../records/variant.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { toProduct } from '../../records/product.js';
import { productList } from './list.js';
import type { ImportSource } from '../../resource-kit/import-source.js';
import { importProducts } from './service.js';
import { ProductImportBody } from './schemas.js';
import { SITE } from '../../resource-kit/cascade-parents.js';

/** Analytics: the list whose filter analytics queries take. */
export { productList } from './list.js';

/** Export jobs: the products list, one CSV line per variant when include=variants (docs/api.md#export-jobs). */
export const productExport: ExportSource = {
  list: productList,
  record: Product,
  toRecord: toProduct,
  permission: 'products:read',
  csvLines: 'variants',
};

/** Import jobs: the products import, rows matched on slug, one CSV line per variant (docs/api.md#import-jobs). */
export const productImport: ImportSource = {
  permission: 'products:write',
  body: ProductImportBody,
  record: productExport.record,
  lines: { field: 'variants', key: ['slug'] },
  duplicateKey: (row) => (typeof row.slug === 'string' ? row.slug : undefined),
  run: (trx, organizationId, body, provenance) =>
    importProducts(trx, organizationId, body as ProductImportBody, provenance),
};

export const productsResource: ResourceModuleWithLists = {
  name: 'products',
  description: 'Catalog products and variants mirrored from the store. Only metadata, notes and tags are editable.',
  routes: productRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['product.updated', 'product.deleted'],
      schema: Product,
      firesWhen: {
        'product.updated':
          'PATCH /products/{id}, and each product that POST /products/import creates or changes (its variants, site links or tags included) or PATCH /products/bulk-update changes.',
        'product.deleted': 'DELETE /products/{id}.',
      },
    },
    {
      names: ['productVariant.updated'],
      schema: Variant,
      firesWhen: 'PATCH /products/{productId}/variants/{variantId}.',
    },
  ],
  // A deleted site's product links go with it by their foreign key, sending nothing
  // (docs/architecture.md#declared-cascades).
  cascades: [
    { parent: SITE, references: [{ table: 'product_sites', column: 'site_id' }], action: 'foreign-key', order: 50 },
  ],
  // The list quick filters and export jobs take, and the import import jobs run, under the name clients use.
  lists: { products: productExport },
  imports: { products: productImport },
};
