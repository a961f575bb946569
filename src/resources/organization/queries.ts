import type { Kysely, Selectable } from 'kysely';
import type { DB, OrganizationsTable } from '../../db/schema.js';

export type OrganizationRow = Selectable<OrganizationsTable>;

export const findOrganization = (db: Kysely<DB>, organizationId: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();

export const listOrganizations = (db: Kysely<DB>) =>
  db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();

export const insertOrganization = (
  db: Kysely<DB>,
  values: { id: string; name: string; timezone: string; api_requests_per_minute?: number },
) => db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow();
