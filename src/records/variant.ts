/** The product variant record: its response shape, columns, mapping and events. Products and order items embed it. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { ProductVariantsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Metadata, Uuid } from './common.js';

export const Variant = Type.Object(
  {
    id: Uuid,
    slug: Type.String(),
    title: Type.String(),
    imageUrl: Type.String(),
    priceCents: Type.Integer(),
    currencyCode: Type.String(),
    available: Type.Boolean(),
    metadata: Metadata,
  },
  { $id: 'ProductVariant', additionalProperties: false },
);
export type Variant = Static<typeof Variant>;

export type VariantRow = Selectable<ProductVariantsTable>;

/** The variant columns the API shows; toVariant reads no others. */
export const VARIANT_COLUMNS = [
  'id',
  'slug',
  'title',
  'image_url',
  'price_cents',
  'currency_code',
  'available',
  'metadata',
] as const satisfies readonly (keyof VariantRow)[];
export type VariantFields = Pick<VariantRow, (typeof VARIANT_COLUMNS)[number]>;

/** The one mapping from a variant row to its API shape. */
export const toVariant = (row: VariantFields): Variant => ({
  id: row.id,
  slug: row.slug,
  title: row.title,
  imageUrl: row.image_url,
  priceCents: row.price_cents,
  currencyCode: row.currency_code,
  available: row.available,
  metadata: row.metadata,
});

export type VariantEventName = 'productVariant.updated';

export const variantEvent = (organizationId: string, name: VariantEventName, row: VariantFields): EventToRecord => ({
  organizationId,
  name,
  schema: Variant,
  record: toVariant(row),
});
