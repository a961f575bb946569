import Type, { type Static } from 'typebox';
import { NOT_BLANK_PATTERN } from '../../core/pattern-message.js';
import { ImportCounts, importRows, MetadataInput, SkippedRow, Uuid } from '../../records/common.js';
import { Wishlist } from '../../records/wishlist.js';

/** Limits of docs/api.md#wishlists. */
export const MAX_NAME_LENGTH = 200;
export const MAX_NOTE_LENGTH = 1000;
export const MAX_ROW_ITEMS = 500;

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  ...NOT_BLANK_PATTERN,
  description: 'The list name, 1..200 characters, not only spaces.',
});
const Note = Type.String({ maxLength: MAX_NOTE_LENGTH, description: 'A note on the item, at most 1,000 characters.' });
const ProductReference = Type.String({ minLength: 1, maxLength: 255, description: 'Product id or slug.' });
const VariantReference = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Variant id or slug, of that product. Omitted: the item names the product only.',
});

export const WishlistParams = Type.Object({ id: Uuid }, { additionalProperties: false });
export const WishlistItemParams = Type.Object({ id: Uuid, itemId: Uuid }, { additionalProperties: false });

/** PATCH /wishlists/{id}: the name and the metadata (replaced wholesale); at least one. */
export const WishlistPatch = Type.Object(
  { name: Type.Optional(Name), metadata: Type.Optional(MetadataInput) },
  { additionalProperties: false, minProperties: 1 },
);
export type WishlistPatch = Static<typeof WishlistPatch>;

/** POST /wishlists/{id}/items. */
export const WishlistItemBody = Type.Object(
  { product: ProductReference, variant: Type.Optional(VariantReference), note: Type.Optional(Note) },
  { additionalProperties: false },
);
export type WishlistItemBody = Static<typeof WishlistItemBody>;

export const WishlistImportItem = Type.Object(
  {
    product: ProductReference,
    variant: Type.Optional(VariantReference),
    note: Type.Optional(Note),
    addedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the item was added; default: kept for an item the list already holds, else now.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WishlistImportRow = Type.Object(
  {
    customer: Type.String({ minLength: 1, maxLength: 320, description: 'Customer id or email (case-insensitive).' }),
    name: Name,
    remoteId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Identifier in the originating system: import creates or updates the wishlist with this remoteId. Without it (or when it is new), a row updates the same customer’s wishlist of the same name.',
      }),
    ),
    metadata: Type.Optional(MetadataInput),
    items: Type.Array(WishlistImportItem, {
      maxItems: MAX_ROW_ITEMS,
      description: "The wishlist's items: they replace the stored ones exactly.",
    }),
  },
  { additionalProperties: false },
);
export type WishlistImportRow = Static<typeof WishlistImportRow>;

export const WishlistImportBody = Type.Object(
  {
    data: importRows(WishlistImportRow),
    strict: Type.Optional(
      Type.Boolean({ description: 'Fail the whole import on the first missing customer, product or variant.' }),
    ),
  },
  { additionalProperties: false },
);
export type WishlistImportBody = Static<typeof WishlistImportBody>;

export const WishlistImportResult = Type.Object({
  data: Type.Array(Wishlist),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});
