import type { Selectable } from 'kysely';
import type { CustomersTable } from '../../db/schema.js';
import type { EmbeddedCustomer } from './schemas.js';

export type CustomerRow = Selectable<CustomersTable>;

/** The one mapping from a customer row to its API shape, shared by every resource that embeds a customer. */
export function toCustomer(row: CustomerRow): EmbeddedCustomer {
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
