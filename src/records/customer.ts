/**
 * The customer record: its response shapes, the columns it is read from, the one row→record mapping, its events,
 * and how another list embeds it (its customer.* filter paths and search text).
 */
import { sql, type Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import { describedPattern } from '../core/pattern-message.js';
import type { CustomersTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import type { FieldDef } from '../lists/types.js';
import { Metadata, NullableTimestamp, Timestamp, Uuid } from './common.js';

export const EMAIL_OPT_OUT_SOURCES = ['customer', 'merchant', 'import', 'platform'] as const;

const customerFields = {
  id: Uuid,
  email: Type.String({ format: 'email', description: 'Unique within the organization (case-insensitive).' }),
  phone: Type.Union([Type.String({ description: 'E.164' }), Type.Null()]),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  country: Type.Union([Type.String({ description: 'ISO 3166-1 alpha-2' }), Type.Null()]),
  birthday: Type.Union([
    Type.String({
      maxLength: 5,
      ...describedPattern(
        '^(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
        'must be a month and day as MM-DD with no year, e.g. 04-21',
      ),
      description: 'MM-DD, no year.',
    }),
    Type.Null(),
  ]),
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

/** A customer as GET /customers returns it (docs/api.md#customers): the embedded fields plus tags with include=tags. */
export const Customer = Type.Object(
  { ...customerFields, tags: Type.Optional(Type.Array(Type.String())) },
  { $id: 'Customer', additionalProperties: false },
);
export type Customer = Static<typeof Customer>;

export type CustomerRow = Selectable<CustomersTable>;

/** The columns toCustomer reads. */
export const CUSTOMER_COLUMNS = [
  'id',
  'email',
  'phone',
  'first_name',
  'last_name',
  'country',
  'birthday',
  'metadata',
  'notes',
  'email_opt_out',
  'email_opt_out_at',
  'email_opt_out_source',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CustomerRow)[];
export type CustomerFields = Pick<CustomerRow, (typeof CUSTOMER_COLUMNS)[number]>;

/** The one mapping from a customer row to its API shape, shared by every resource that embeds a customer. */
export function toCustomer(row: CustomerFields): EmbeddedCustomer {
  return {
    id: row.id,
    email: row.email,
    phone: row.phone,
    firstName: row.first_name,
    lastName: row.last_name,
    country: row.country,
    birthday: row.birthday,
    metadata: row.metadata,
    notes: row.notes,
    emailOptOut: row.email_opt_out,
    emailOptOutAt: row.email_opt_out_at?.toISOString() ?? null,
    emailOptOutSource: row.email_opt_out_source,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type CustomerEventName = 'customer.updated' | 'customer.deleted';

export const customerEvent = (organizationId: string, name: CustomerEventName, row: CustomerFields): EventToRecord => ({
  organizationId,
  name,
  schema: Customer,
  record: toCustomer(row),
});

/**
 * The customer text searches match (email, first and last name, phone) under a table alias, written exactly as the
 * expression of the customers_search_trgm index (migration 0006), which leads with organization_id: every list that
 * searches customers compares this with `like lower(pattern)` so the index applies. `alias` is a constant of the caller.
 */
export const customerSearchText = (alias: string) =>
  sql.raw(
    `(lower(${alias}.email) || ' ' || coalesce(lower(${alias}.first_name), '') || ' ' || coalesce(lower(${alias}.last_name), '') || ' ' || coalesce(${alias}.phone, ''))`,
  );

/** The customer.* filter paths of a list that joins the customer as `c` through its join named `customer`. */
export const joinedCustomerFields = (idColumn: string): Record<string, FieldDef> => ({
  'customer.id': { type: 'uuid', column: idColumn },
  'customer.email': { type: 'string', column: 'c.email', join: 'customer' },
  'customer.firstName': { type: 'string', column: 'c.first_name', join: 'customer' },
  'customer.lastName': { type: 'string', column: 'c.last_name', join: 'customer' },
  'customer.metadata': { type: 'metadata', column: 'c.metadata', join: 'customer' },
});
