import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import type { OrganizationRow } from '../../records/organization.js';

// Runs on every GET /v1/organization, so it is compiled once.
const selectOrganization = prepared(
  (db, organizationId: string) => db.selectFrom('organizations').selectAll().where('id', '=', organizationId),
  ['organization-id'],
);

export const findOrganization = async (db: Kysely<DB>, organizationId: string): Promise<OrganizationRow | undefined> =>
  (await selectOrganization(db, organizationId))[0];

export const listOrganizations = (db: Kysely<DB>) =>
  db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();

export const insertOrganization = (
  db: Executor,
  values: { id: string; name: string; timezone: string; api_requests_per_minute?: number },
) => db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow();
