import Type from 'typebox';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { PRODUCT } from '../../resource-kit/cascade-parents.js';
import { includeSchema, listQuerySchema, selectionQuerySchema } from '../../lists/query.js';
import { BulkUpdateBody, Count } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { productList } from './list.js';
import { Product } from '../../records/product.js';
import { Variant } from '../../records/variant.js';
import {
  ProductImportBody,
  ProductImportResult,
  ProductParams,
  ProductPatch,
  VariantParams,
  VariantPatch,
} from './schemas.js';
import { ProductService } from './service.js';

const tags = ['products'];

export function productRoutes(app: PatronApp, { db, cascades }: PlatformServices): void {
  const products = new ProductService(db, cascades.of(PRODUCT));
  const read = { permission: 'products:read', cost: 1 };
  const write = { permission: 'products:write', cost: 1 };
  const getQuery = Type.Object({ include: Type.Optional(includeSchema(productList)) }, { additionalProperties: false });

  app.get(
    '/products',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listProducts',
        summary: 'List products, newest first by default',
        tags,
        querystring: listQuerySchema(productList, { quickFilter: true }),
        response: { 200: listEnvelope(Product) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return products.list(
        organizationId,
        await withQuickFilter(db, organizationId, 'products', productList, request.query),
      );
    },
  );

  app.patch(
    '/products/bulk-update',
    {
      config: { permission: 'products:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'bulkUpdateProducts',
        summary: 'Add or remove tags and metadata on every product the filter and search select (all when omitted)',
        tags,
        querystring: selectionQuerySchema(productList, { quickFilter: true }),
        body: BulkUpdateBody,
        response: { 200: Count },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, 'products', productList, request.query);
      return { count: await products.bulkUpdate(organizationId, selection, request.body) };
    },
  );

  app.post(
    '/products/import',
    {
      config: {
        permission: 'products:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a site that does not exist' },
      },
      schema: {
        operationId: 'importProducts',
        summary: 'Create or update products by slug, with their variants, site links and tags',
        tags,
        body: ProductImportBody,
        response: { 200: ProductImportResult },
      },
    },
    async (request) => products.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/products/:productId',
    {
      config: read,
      schema: {
        operationId: 'getProduct',
        summary: 'One product',
        tags,
        params: ProductParams,
        querystring: getQuery,
        response: { 200: Product },
      },
    },
    async (request) => products.get(authOf(request).organizationId, request.params.productId, request.query.include),
  );

  app.patch(
    '/products/:productId',
    {
      config: write,
      schema: {
        operationId: 'updateProduct',
        summary: 'Edit metadata (replaced wholesale), notes and tags (the full set); store fields are read-only',
        tags,
        params: ProductParams,
        body: ProductPatch,
        response: { 200: Product },
      },
    },
    async (request) => products.update(authOf(request).organizationId, request.params.productId, request.body),
  );

  app.delete(
    '/products/:productId',
    {
      config: write,
      schema: {
        operationId: 'deleteProduct',
        summary:
          'Delete a product with its variants, tags and site links; its reviews are unlinked and unpublished (or deleted with cascadeDeleteReviews)',
        tags,
        params: ProductParams,
        response: { 200: Product },
      },
    },
    async (request) => products.delete(authOf(request).organizationId, request.params.productId),
  );

  app.patch(
    '/products/:productId/variants/:variantId',
    {
      config: write,
      schema: {
        operationId: 'updateProductVariant',
        summary: "Replace a variant's metadata",
        tags,
        params: VariantParams,
        body: VariantPatch,
        response: { 200: Variant },
      },
    },
    async (request) =>
      products.updateVariant(
        authOf(request).organizationId,
        request.params.productId,
        request.params.variantId,
        request.body.metadata,
      ),
  );
}
