import Type, { type Static } from 'typebox';
import {
  ImportJob,
  Metadata,
  MetadataInput,
  Money,
  NotesInput,
  NullableTimestamp,
  SkippedRow,
  TagsInput,
  Timestamp,
  Uuid,
} from '../../records/common.js';
import { EmbeddedCustomer } from '../../records/customer.js';
import { Product } from '../../records/product.js';
import { Variant } from '../../records/variant.js';

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

const orderFields = {
  id: Uuid,
  siteId: Uuid,
  customerId: Uuid,
  remoteId: Type.String({ description: 'Identifier in the originating store; import matches on it.' }),
  number: Type.String(),
  totalCents: Type.Integer(),
  subtotalCents: Type.Integer(),
  shippingCents: Type.Integer(),
  taxCents: Type.Integer(),
  currencyCode: Type.String(),
  shippedAt: NullableTimestamp,
  deliveredAt: NullableTimestamp,
  cancelledAt: NullableTimestamp,
  metadata: Metadata,
  notes: Type.String({ description: 'Internal notes.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** An order as the API and its webhooks show it: only the extras that were requested are present. */
export const Order = Type.Object(
  {
    ...orderFields,
    importJob: Type.Optional(Type.Union([ImportJob, Type.Null()])),
    itemsCount: Type.Optional(Type.Integer()),
    customer: Type.Optional(EmbeddedCustomer),
    items: Type.Optional(Type.Array(OrderItem, { description: 'Line items in order.' })),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Order', additionalProperties: false },
);
export type Order = Static<typeof Order>;

export const OrderParams = Type.Object({ id: Uuid }, { additionalProperties: false });

/** Rule 2 of service.md: only metadata, notes and tags are editable; store fields are refused as unknown. */
export const OrderPatch = Type.Object(
  { metadata: Type.Optional(MetadataInput), notes: Type.Optional(NotesInput), tags: Type.Optional(TagsInput) },
  { additionalProperties: false },
);
export type OrderPatch = Static<typeof OrderPatch>;

export const MAX_ORDER_ITEMS = 500;
const Reference = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const ImportTimestamp = Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()]));

export const OrderItemImportRow = Type.Object(
  {
    product: Reference('Product id or slug.'),
    variant: Type.Optional(
      Reference('Variant id or slug within the product; may be omitted when the product has exactly one variant.'),
    ),
    quantity: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    unitPriceCents: Money,
  },
  { additionalProperties: false },
);

export const OrderImportRow = Type.Object(
  {
    site: Reference('Site id or domain.'),
    customer: Type.String({ minLength: 1, maxLength: 320, description: 'Customer id or email (case-insensitive).' }),
    remoteId: Reference('Identifier in the store; import creates or updates the order with this remoteId.'),
    number: Type.String({ minLength: 1, maxLength: 255 }),
    totalCents: Type.Optional(Money),
    subtotalCents: Type.Optional(Money),
    shippingCents: Type.Optional(Money),
    taxCents: Type.Optional(Money),
    currencyCode: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: "Default on create: the site's currency." }),
    ),
    shippedAt: ImportTimestamp,
    deliveredAt: ImportTimestamp,
    cancelledAt: ImportTimestamp,
    metadata: Type.Optional(MetadataInput),
    tags: Type.Optional(TagsInput),
    discountCodes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 50,
        description: 'Codes used at checkout; stored, not returned.',
      }),
    ),
    createdAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the store created it; default now.' }),
    ),
    items: Type.Optional(
      Type.Array(OrderItemImportRow, {
        maxItems: MAX_ORDER_ITEMS,
        description: 'Replaces the line items when present.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type OrderImportRow = Static<typeof OrderImportRow>;

export const OrderImportBody = Type.Object(
  {
    data: Type.Array(OrderImportRow, { description: 'At most 1,000 rows.' }),
    strict: Type.Optional(Type.Boolean({ description: 'Fail the whole import on the first missing reference.' })),
    earnLoyalty: Type.Optional(
      Type.Boolean({
        description: 'Default true: newly created orders earn points and stamps; turn off for historical orders.',
      }),
    ),
    mergeMetadata: Type.Optional(
      Type.Boolean({ description: 'Merge metadata keys onto the stored ones instead of replacing.' }),
    ),
  },
  { additionalProperties: false },
);
export type OrderImportBody = Static<typeof OrderImportBody>;

export const OrderImportResult = Type.Object({ data: Type.Array(Order), skipped: Type.Array(SkippedRow) });
