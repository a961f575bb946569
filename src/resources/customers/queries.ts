import { sql } from 'kysely';
import type { EmailOptOutSource, Metadata } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { updateIfChanged } from '../../resource-kit/changes.js';
import { type CustomerRow } from '../../records/customer.js';

export const findCustomer = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The customer, locked until the transaction ends: no order can be written against it meanwhile. */
export const lockCustomer = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('customers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

export interface CustomerChanges {
  metadata?: Metadata | undefined;
  notes?: string | null | undefined;
  emailOptOut?: boolean | undefined;
}

/**
 * PATCH /customers/{id}. Opting out keeps an earlier opt-out's time and source; opting back in clears them. Undefined
 * when the values sent are the stored ones and `force` is not set: nothing written
 * (docs/api.md#writes-that-change-nothing).
 */
export const updateCustomer = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: CustomerChanges,
  force: boolean,
): Promise<CustomerRow | undefined> =>
  updateIfChanged(
    trx,
    'customers',
    organizationId,
    id,
    {
      metadata: changes.metadata,
      notes: changes.notes,
      ...(changes.emailOptOut === true
        ? {
            email_opt_out: true,
            email_opt_out_at: sql`case when email_opt_out then email_opt_out_at else now() end`,
            email_opt_out_source: sql`case when email_opt_out then email_opt_out_source else 'merchant' end`,
          }
        : {}),
      ...(changes.emailOptOut === false
        ? { email_opt_out: false, email_opt_out_at: null, email_opt_out_source: null }
        : {}),
    },
    { force },
  );

/** Deletes the customer; its tag links go with it (customer_tags cascades). */
export const deleteCustomerRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('customers')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Import matching: each given email → the id of the customer stored with it (case-insensitive), in one query. */
export async function customerIdsByEmail(
  trx: Executor,
  organizationId: string,
  emails: readonly string[],
): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const { rows } = await sql<{ input: string; id: string }>`
    select e.input, c.id from unnest(${[...emails]}::text[]) as e(input)
    join customers c on c.organization_id = ${organizationId}::uuid and lower(c.email) = lower(e.input)`.execute(trx);
  return new Map(rows.map((row) => [row.input, row.id]));
}

export interface NewCustomer {
  id: string;
  email: string;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  country: string | null;
  birthday: string | null;
  metadata: Metadata;
  notes: string | null;
  emailOptOut: boolean;
  emailOptOutSource: EmailOptOutSource | null;
  createdAt: string | undefined;
}

/** Import: the new customers in one multi-row insert. */
export async function insertCustomers(
  trx: Executor,
  organizationId: string,
  customers: readonly NewCustomer[],
): Promise<CustomerRow[]> {
  if (customers.length === 0) return [];
  return trx
    .insertInto('customers')
    .values(
      customers.map((customer) => ({
        organization_id: organizationId,
        id: customer.id,
        email: customer.email,
        phone: customer.phone,
        first_name: customer.firstName,
        last_name: customer.lastName,
        country: customer.country,
        birthday: customer.birthday,
        metadata: JSON.stringify(customer.metadata),
        notes: customer.notes,
        email_opt_out: customer.emailOptOut,
        email_opt_out_at: customer.emailOptOut ? sql<Date>`now()` : null,
        email_opt_out_source: customer.emailOptOut ? customer.emailOptOutSource : null,
        ...(customer.createdAt ? { created_at: customer.createdAt, updated_at: customer.createdAt } : {}),
      })),
    )
    .returningAll()
    .execute();
}

/**
 * Import: updates existing customers in one statement. Each patch is the row as sent plus the customer's id: a
 * field the row omits keeps its stored value, a field sent (null included) replaces it. Opting out keeps an
 * earlier opt-out's time (and its source unless the row names one); opting in clears both. Only customers whose
 * values change, or whose tags changed (`forced`), are written and returned (docs/api.md#writes-that-change-nothing).
 */
export async function updateImportedCustomers(
  trx: Executor,
  organizationId: string,
  patches: readonly (Record<string, unknown> & { id: string })[],
  mergeMetadata: boolean,
  forced: ReadonlySet<string>,
): Promise<CustomerRow[]> {
  if (patches.length === 0) return [];
  const replaced = (key: string, column: string) =>
    sql`case when u.r ? ${key} then u.r ->> ${key} else ${sql.ref(`c.${column}`)} end`;
  const { rows } = await sql<CustomerRow>`
    with n as (
      select c.id,
        u.r ->> 'email' as email,
        ${replaced('phone', 'phone')} as phone,
        ${replaced('firstName', 'first_name')} as first_name,
        ${replaced('lastName', 'last_name')} as last_name,
        ${replaced('country', 'country')} as country,
        ${replaced('birthday', 'birthday')} as birthday,
        ${replaced('notes', 'notes')} as notes,
        case
          when not (u.r ? 'metadata') then c.metadata
          when ${mergeMetadata} then c.metadata || (u.r -> 'metadata')
          else u.r -> 'metadata' end as metadata,
        coalesce((u.r ->> 'emailOptOut')::boolean, c.email_opt_out) as email_opt_out,
        case
          when (u.r ->> 'emailOptOut') is null then c.email_opt_out_at
          when (u.r ->> 'emailOptOut')::boolean then case when c.email_opt_out then c.email_opt_out_at else now() end
          else null end as email_opt_out_at,
        case
          when (u.r ->> 'emailOptOut') is null then c.email_opt_out_source
          when (u.r ->> 'emailOptOut')::boolean
            then coalesce(u.r ->> 'emailOptOutSource', case when c.email_opt_out then c.email_opt_out_source end, 'import')
          else null end as email_opt_out_source,
        coalesce((u.r ->> 'createdAt')::timestamptz, c.created_at) as created_at
      from jsonb_array_elements(${JSON.stringify(patches)}::jsonb) as u(r)
      join customers c on c.organization_id = ${organizationId}::uuid and c.id = (u.r ->> 'id')::uuid
    )
    update customers c set
      email = n.email, phone = n.phone, first_name = n.first_name, last_name = n.last_name, country = n.country,
      birthday = n.birthday, notes = n.notes, metadata = n.metadata, email_opt_out = n.email_opt_out,
      email_opt_out_at = n.email_opt_out_at, email_opt_out_source = n.email_opt_out_source,
      created_at = n.created_at, updated_at = now()
    from n
    where c.organization_id = ${organizationId}::uuid and c.id = n.id
      and (c.id = any(${[...forced]}::uuid[])
        or (c.email, c.phone, c.first_name, c.last_name, c.country, c.birthday, c.notes, c.metadata, c.email_opt_out,
          c.email_opt_out_at, c.email_opt_out_source, date_trunc('milliseconds', c.created_at))
        is distinct from (n.email, n.phone, n.first_name, n.last_name, n.country, n.birthday, n.notes, n.metadata,
          n.email_opt_out, n.email_opt_out_at, n.email_opt_out_source, date_trunc('milliseconds', n.created_at)))
    returning c.*`.execute(trx);
  return rows;
}

/** Customers by id (the rows an import left unchanged, for its answer), one query. */
export async function customersById(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, CustomerRow>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('customers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}
