/** The product record: its response shape, columns, mapping and events. Reviews and order items embed it. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { ProductsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { ImportJob, Metadata, Timestamp, Uuid } from './common.js';
import { Variant } from './variant.js';

const productFields = {
  id: Uuid,
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  imageUrl: Type.String(),
  url: Type.String(),
  metadata: Metadata,
  notes: Type.String({ description: 'Internal notes.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** A product as the API and its webhooks show it: only the extras that were requested are present. */
export const Product = Type.Object(
  {
    ...productFields,
    importJob: Type.Optional(Type.Union([ImportJob, Type.Null()])),
    reviewsCount: Type.Optional(Type.Integer({ description: 'Published reviews of the product.' })),
    wishlistsCount: Type.Optional(Type.Integer()),
    variantsCount: Type.Optional(Type.Integer()),
    tags: Type.Optional(Type.Array(Type.String())),
    variants: Type.Optional(Type.Array(Variant)),
  },
  { $id: 'Product', additionalProperties: false },
);
export type Product = Static<typeof Product>;

export type ProductRow = Selectable<ProductsTable>;

/** The product columns the API shows; toProduct reads no others. */
export const PRODUCT_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'image_url',
  'url',
  'metadata',
  'notes',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ProductRow)[];
export type ProductFields = Pick<ProductRow, (typeof PRODUCT_COLUMNS)[number]>;

/** The one mapping from a product row to its API shape (base record, no extras). */
export function toProduct(row: ProductFields): Product {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    imageUrl: row.image_url,
    url: row.url,
    metadata: row.metadata,
    notes: row.notes,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type ProductEventName = 'product.updated' | 'product.deleted';

export const productEvent = (organizationId: string, name: ProductEventName, row: ProductFields): EventToRecord => ({
  organizationId,
  name,
  schema: Product,
  record: toProduct(row),
});
