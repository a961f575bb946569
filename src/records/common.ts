import Type, { type TSchema } from 'typebox';
import { COUNTRY_CODES } from '../util/countries.js';
import { CURRENCY_CODES } from '../util/currencies.js';

/** At most 50 keys of 1..40 characters, string values of at most 500 (docs/api.md#metadata-notes-and-tags). */
export const MetadataInput = Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  description: 'String keys (1..40 chars, at most 50) to string values (at most 500 chars).',
});
export const Metadata = Type.Record(Type.String(), Type.String());

/** Notes up to 10,000 characters (docs/api.md#metadata-notes-and-tags). */
export const NotesInput = Type.String({ maxLength: 10_000 });

/**
 * Tag names are trimmed, 1..100 characters, at most 250 per record; duplicates collapse
 * (docs/api.md#metadata-notes-and-tags).
 */
export const TagsInput = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 250,
  description: 'Tag names (trimmed, 1..100 chars, case-sensitive, at most 250). The full set replaces the old one.',
});

/**
 * A country a request sends: one of the assigned ISO 3166-1 alpha-2 codes, upper case. Documented as the enum of every
 * code so generated clients type it; a wrong value is told what the codes are, not all 249 of them
 * (docs/api.md#customers).
 */
export const CountryCodeInput = Type.Unsafe<string>({
  type: 'string',
  enum: [...COUNTRY_CODES],
  description: 'An assigned ISO 3166-1 alpha-2 country code, upper case, e.g. DE.',
});

/**
 * A currency a request sends: an ISO 4217 code, upper case. Documented as the enum of every code so generated clients
 * type it; a wrong value is told what the codes are (docs/api.md#currencies).
 */
export const CurrencyCodeInput = (description = 'An ISO 4217 currency code, upper case, e.g. USD.') =>
  Type.Unsafe<string>({ type: 'string', enum: [...CURRENCY_CODES], description });

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const Money = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer cents.' });

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const ImportJob = Type.Object({
  id: Uuid,
  type: Type.String({ description: 'What was imported: products, orders or customers.' }),
  action: Type.String({ description: 'created or updated.' }),
  row: Type.Integer({ description: 'Index of the row in the import request.' }),
  createdAt: Timestamp,
});

export const Count = Type.Object({ count: Type.Integer({ minimum: 0 }) });

/** Rows per import request; more is 413 naming the limit (docs/api.md#import-rows). */
export const MAX_IMPORT_ROWS = 1000;

/**
 * The rows of an import request. The limit is checked by the import itself, so a request over it is 413 naming the
 * limit rather than a validation error; `x-max-items` puts it in the document as maxItems
 * (docs/api.md#the-openapi-document).
 */
export const importRows = <T extends TSchema>(row: T, description = 'At most 1,000 rows; more is 413.') =>
  Type.Array(row, { description, 'x-max-items': MAX_IMPORT_ROWS });

export const SkippedRow = Type.Object({
  index: Type.Integer({ description: 'Index of the skipped row in data.' }),
  message: Type.String(),
  itemIndex: Type.Optional(
    Type.Integer({
      description: "Index of the unresolved item in the row's items, when an item is at fault (orders).",
    }),
  ),
});

/**
 * How an import's written rows went: each row of `data` counts once, as created, updated or unchanged (its values
 * were the stored ones, so nothing was written and no event sent: docs/api.md#writes-that-change-nothing). Skipped
 * rows are in `skipped`, not here.
 */
export const ImportCounts = {
  created: Type.Integer({ minimum: 0, description: 'Rows that created a record.' }),
  updated: Type.Integer({ minimum: 0, description: 'Rows that changed an existing record.' }),
  unchanged: Type.Integer({
    minimum: 0,
    description: 'Rows whose values were already stored: nothing written, updatedAt kept, no event.',
  }),
};

/** Bulk update body (products, orders, customers): at least one operation. */
export const BulkUpdateBody = Type.Object(
  {
    addTags: Type.Optional(TagsInput),
    removeTags: Type.Optional(TagsInput),
    addMetadata: Type.Optional(MetadataInput),
    removeMetadataKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 50 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
