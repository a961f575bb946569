import Type, { type Static } from 'typebox';
import { HTTP_URL_PATTERN } from '../../core/pattern-message.js';
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
import { Product } from '../../records/product.js';

export const ProductParams = Type.Object({ productId: Uuid }, { additionalProperties: false });
export const VariantParams = Type.Object({ productId: Uuid, variantId: Uuid }, { additionalProperties: false });

/** Rule 2 of service.md: only metadata, notes and tags are editable; store fields are refused as unknown. */
export const ProductPatch = Type.Object(
  { metadata: Type.Optional(MetadataInput), notes: Type.Optional(NotesInput), tags: Type.Optional(TagsInput) },
  { additionalProperties: false },
);
export const VariantPatch = Type.Object({ metadata: Type.Optional(MetadataInput) }, { additionalProperties: false });

const ImportText = (maxLength: number) => Type.String({ maxLength });
/** Shown to shoppers and put in emails, so http(s) only, never javascript: or data: (docs/api.md#products-and-orders). */
const HttpUrl = Type.String({
  maxLength: 2048,
  ...HTTP_URL_PATTERN,
  description: 'An http:// or https:// URL, at most 2,048 characters; empty for none.',
});

export const VariantImportRow = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 255, description: 'Matches a variant within the product.' }),
    title: Type.Optional(ImportText(1000)),
    imageUrl: Type.Optional(HttpUrl),
    priceCents: Type.Optional(Money),
    currencyCode: Type.Optional(CurrencyCodeInput()),
    available: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);

export const ProductImportRow = Type.Object(
  {
    slug: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Import creates or updates the product with this slug.',
    }),
    title: Type.Optional(ImportText(1000)),
    description: Type.Optional(ImportText(100_000)),
    imageUrl: Type.Optional(HttpUrl),
    url: Type.Optional(HttpUrl),
    metadata: Type.Optional(MetadataInput),
    tags: Type.Optional(TagsInput),
    variants: Type.Optional(
      Type.Array(VariantImportRow, { maxItems: 250, description: 'Replaces the variants when present.' }),
    ),
    sites: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 100,
        description: 'Site ids or domains; replaces the links when present.',
      }),
    ),
    createdAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the store created it; default now.' }),
    ),
  },
  { additionalProperties: false },
);

export const ProductImportBody = Type.Object(
  {
    data: importRows(ProductImportRow),
    strict: Type.Optional(Type.Boolean({ description: 'Fail the whole import on the first missing reference.' })),
    mergeMetadata: Type.Optional(
      Type.Boolean({ description: 'Merge metadata keys onto the stored ones instead of replacing.' }),
    ),
  },
  { additionalProperties: false },
);
export type ProductImportBody = Static<typeof ProductImportBody>;

export const ProductImportResult = Type.Object({
  data: Type.Array(Product),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});
