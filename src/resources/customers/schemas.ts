import Type, { type Static } from 'typebox';
import { Metadata, NullableTimestamp, Timestamp, Uuid } from '../common/schemas.js';

export const EMAIL_OPT_OUT_SOURCES = ['customer', 'merchant', 'import', 'platform'] as const;

const customerFields = {
  id: Uuid,
  email: Type.String({ format: 'email', description: 'Unique within the organization (case-insensitive).' }),
  phone: Type.Union([Type.String({ description: 'E.164' }), Type.Null()]),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  country: Type.Union([Type.String({ description: 'ISO 3166-1 alpha-2' }), Type.Null()]),
  birthday: Type.Union([Type.String({ pattern: '^(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$', description: 'MM-DD, no year.' }), Type.Null()]),
  metadata: Metadata,
  notes: Type.Union([Type.String({ description: 'Internal, never shown to the customer.' }), Type.Null()]),
  emailOptOut: Type.Boolean({ description: 'Opted out of marketing email.' }),
  emailOptOutAt: NullableTimestamp,
  emailOptOutSource: Type.Union([
    Type.Literal('customer'),
    Type.Literal('merchant'),
    Type.Literal('import'),
    Type.Literal('platform'),
    Type.Null(),
  ]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

/** The embedded customer of service.md: every field always present. Orders and rewards embed it. */
export const EmbeddedCustomer = Type.Object(customerFields, { $id: 'EmbeddedCustomer', additionalProperties: false });
export type EmbeddedCustomer = Static<typeof EmbeddedCustomer>;

/** A customer as GET /customers returns it (D29): the embedded fields plus tags with include=tags. */
export const Customer = Type.Object(
  { ...customerFields, tags: Type.Optional(Type.Array(Type.String())) },
  { $id: 'Customer', additionalProperties: false },
);
export type Customer = Static<typeof Customer>;
