import Type, { type Static } from 'typebox';
import {
  CurrencyCodeInput,
  ImportCounts,
  importRows,
  MetadataInput,
  Money,
  NotesInput,
  SkippedRow,
  TagsInput,
  Uuid,
} from '../../records/common.js';
import { Order } from '../../records/order.js';

export const OrderParams = Type.Object({ id: Uuid }, { additionalProperties: false });

const FulfilmentDate = (what: string) =>
  Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: `When the order ${what}, or null for not yet. Gaining it schedules the surveys of the active flows it triggers (docs/api.md#when-a-survey-is-scheduled).`,
    }),
  );

/**
 * Rule 2 of service.md: metadata, notes and tags are editable, and (docs/api.md#orders-fulfilment-dates) the two
 * fulfilment dates, which a fulfilment system that is not the store may report; other store fields are refused as
 * unknown.
 */
export const OrderPatch = Type.Object(
  {
    metadata: Type.Optional(MetadataInput),
    notes: Type.Optional(NotesInput),
    tags: Type.Optional(TagsInput),
    shippedAt: FulfilmentDate('shipped'),
    deliveredAt: FulfilmentDate('was delivered'),
  },
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
      CurrencyCodeInput("An ISO 4217 currency code, upper case. Default on create: the site's currency."),
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
    data: importRows(OrderImportRow),
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

export const OrderImportResult = Type.Object({
  data: Type.Array(Order),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});
