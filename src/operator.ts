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

/** An organization as the operator sees it: with its test twin's id (null for a twin itself). */
export type OperatorOrganization = Organization & { testOrganizationId: string | null };

/**
 * Every organization, test twins included, read without the organization service, which imports loyalty (a new
 * organization gets its default program): listing, and checking an id before a key or user is made, need none of it.
 */
export async function allOrganizations(db: Kysely<DB>): Promise<OperatorOrganization[]> {
  return (await listOrganizations(db)).map((row) => ({
    ...toOrganization(row),
    testOrganizationId: row.test_organization_id,
  }));
}

/** The live organizations: what `patron org list` shows (a twin is reached through its live organization). */
export async function liveOrganizations(db: Kysely<DB>): Promise<OperatorOrganization[]> {
  return (await allOrganizations(db)).filter((organization) => organization.livemode);
}

/**
 * The live organization a command names; an unknown id, or a test twin's (docs/api.md#test-mode), is refused with
 * a message saying what to give instead.
 */
export async function liveOrganization(db: Kysely<DB>, id: string): Promise<OperatorOrganization> {
  const organizations = await allOrganizations(db);
  const found = organizations.find((organization) => organization.id === id);
  if (!found) throw new Error(`No organization has the id ${id}.`);
  if (!found.livemode) {
    const live = organizations.find((organization) => organization.testOrganizationId === id);
    throw new Error(
      `${id} is the test twin of the organization "${found.name}" (${live?.id ?? 'unknown'}): give the live organization's id` +
        ` (a test key: key create --org ${live?.id ?? 'ID'} --test).`,
    );
  }
  return found;
}

/** Creating and changing organizations: the organization service, loaded by the commands that do it. */
export const organizationService = () => import('./resources/organization/service.js');

/** What `patron export --resource` names: every list an export job takes (docs/api.md#export-jobs). */
export { EXPORT_RESOURCES } from './records/export-job.js';
/** What `patron import --resource` names: every resource an import job writes (docs/api.md#import-jobs). */
export { IMPORT_RESOURCES } from './records/import-job.js';
