/**
 * What the operator's CLI does to organizations, and the names its bulk-job commands take, without loading the app:
 * the composition root (src/compose.ts) imports every resource, which `patron org list` or `patron key list` never
 * uses (docs/api.md#embedded-database-and-cli). Like compose.ts, only src/cli imports this.
 */
import type { Kysely } from 'kysely';
import type { DB } from './db/schema.js';
import { toOrganization, type Organization } from './records/organization.js';
import { listOrganizations } from './resources/organization/queries.js';

export type { Organization };

/**
 * Every organization, read without the organization service, which imports loyalty (a new organization gets its
 * default program): listing, and checking an id before a key or user is made, need none of it.
 */
export async function allOrganizations(db: Kysely<DB>): Promise<Organization[]> {
  return (await listOrganizations(db)).map(toOrganization);
}

/** Creating and changing organizations: the organization service, loaded by the commands that do it. */
export const organizationService = () => import('./resources/organization/service.js');

/** What `patron export --resource` names: every list an export job takes (docs/api.md#export-jobs). */
export { EXPORT_RESOURCES } from './records/export-job.js';
/** What `patron import --resource` names: every resource an import job writes (docs/api.md#import-jobs). */
export { IMPORT_RESOURCES } from './records/import-job.js';
