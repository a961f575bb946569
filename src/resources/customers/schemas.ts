import Type, { type Static, type TSchema } from 'typebox';
import { describedPattern, E164_PATTERN } from '../../core/pattern-message.js';
import { Customer, EMAIL_OPT_OUT_SOURCES } from '../../records/customer.js';
import {
  CountryCodeInput,
  ImportCounts,
  importRows,
  MetadataInput,
  NotesInput,
  SkippedRow,
  TagsInput,
} from '../../records/common.js';

/** PATCH /customers/{id}: only the merchant's own fields; identity fields come from the store through import. */
export const CustomerPatch = Type.Object(
  {
    metadata: Type.Optional(MetadataInput),
    notes: Type.Optional(
      Type.Union([NotesInput, Type.Null()], { description: 'Internal notes (≤ 10,000 chars); null clears them.' }),
    ),
    tags: Type.Optional(TagsInput),
    emailOptOut: Type.Optional(
      Type.Boolean({
        description:
          'true opts the customer out of marketing email (emailOptOutAt = now, emailOptOutSource = merchant, unless already opted out); false subscribes again and clears both.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerPatch = Static<typeof CustomerPatch>;

/** MM-DD with a day that exists in that month; 02-29 is allowed (service.md). */
export const BIRTHDAY_PATTERN =
  '^(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-9])|(?:0[13-9]|1[0-2])-30|(?:0[13578]|1[02])-31)$';
const Birthday = describedPattern(
  BIRTHDAY_PATTERN,
  'must be a month and day that exist, as MM-DD with no year, e.g. 04-21 (02-29 is allowed)',
);

const nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Optional(Type.Union([schema, Type.Null()], description ? { description } : {}));

export const CustomerImportRow = Type.Object(
  {
    email: Type.String({
      format: 'email',
      maxLength: 320,
      description: 'Import creates or updates the customer with this email (case-insensitive).',
    }),
    phone: nullable(Type.String({ maxLength: 16, ...E164_PATTERN }), 'E.164, e.g. +14155550123.'),
    firstName: nullable(Type.String({ maxLength: 255 })),
    lastName: nullable(Type.String({ maxLength: 255 })),
    country: nullable(CountryCodeInput, 'An assigned ISO 3166-1 alpha-2 country code, upper case, e.g. DE.'),
    birthday: nullable(Type.String({ maxLength: 5, ...Birthday }), 'MM-DD (02-29 allowed).'),
    metadata: Type.Optional(MetadataInput),
    notes: nullable(NotesInput),
    emailOptOut: Type.Optional(Type.Boolean()),
    emailOptOutSource: nullable(
      Type.Union(EMAIL_OPT_OUT_SOURCES.map((source) => Type.Literal(source))),
      'Only with emailOptOut true; default import.',
    ),
    tags: Type.Optional(TagsInput),
    createdAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the store created it; default now.' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerImportRow = Static<typeof CustomerImportRow>;

export const CustomerImportBody = Type.Object(
  {
    data: importRows(CustomerImportRow),
    strict: Type.Optional(
      Type.Boolean({ description: 'Accepted for symmetry with the other imports; customer rows reference nothing.' }),
    ),
    mergeMetadata: Type.Optional(
      Type.Boolean({ description: 'Merge metadata keys onto the stored ones instead of replacing.' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerImportBody = Static<typeof CustomerImportBody>;

export const CustomerImportResult = Type.Object({
  data: Type.Array(Customer),
  skipped: Type.Array(SkippedRow),
  ...ImportCounts,
});
