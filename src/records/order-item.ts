/** The order line item record: its response shapes, columns and mapping. It embeds the product and variant sold. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { OrderItemsTable } from '../db/schema.js';
import { Uuid } from './common.js';
import { Product, toProduct, type ProductFields } from './product.js';
import { toVariant, Variant, type VariantFields } from './variant.js';

/** The base product record (no extras) that a line item embeds. */
export const OrderItemProduct = Type.Omit(
  Product,
  ['importJob', 'reviewsCount', 'wishlistsCount', 'variantsCount', 'tags', 'variants'],
  {
    $id: 'OrderItemProduct',
    additionalProperties: false,
  },
);

/** A line item as include=items shows it: the product and variant it was sold as, null once deleted. */
export const OrderItem = Type.Object(
  {
    id: Uuid,
    productId: Uuid,
    productVariantId: Uuid,
    quantity: Type.Integer(),
    unitPriceCents: Type.Integer(),
    product: Type.Union([OrderItemProduct, Type.Null()], {
      description: 'The product (base fields); null once it has been deleted.',
    }),
    variant: Type.Union([Variant, Type.Null()], { description: 'The variant; null once it has been deleted.' }),
  },
  { $id: 'OrderItem', additionalProperties: false },
);
export type OrderItem = Static<typeof OrderItem>;

export type OrderItemRow = Selectable<OrderItemsTable>;

/** The line item columns toOrderItem reads (not organization_id, order_id, position). */
export const ORDER_ITEM_COLUMNS = [
  'id',
  'product_id',
  'product_variant_id',
  'quantity',
  'unit_price_cents',
] as const satisfies readonly (keyof OrderItemRow)[];
export type OrderItemFields = Pick<OrderItemRow, (typeof ORDER_ITEM_COLUMNS)[number]>;

/**
 * The one mapping from a line item row to its API shape, with the product and variant it was sold as: null once
 * that product or variant has been deleted. Line items send no events of their own.
 */
export const toOrderItem = (
  row: OrderItemFields,
  product: ProductFields | null,
  variant: VariantFields | null,
): OrderItem => ({
  id: row.id,
  productId: row.product_id,
  productVariantId: row.product_variant_id,
  quantity: row.quantity,
  unitPriceCents: row.unit_price_cents,
  product: product && toProduct(product),
  variant: variant && toVariant(variant),
});
