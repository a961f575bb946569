import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { cachedRead } from '../../db/embedded-cache.js';
import { prepared } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import type { OrganizationRow } from '../../records/organization.js';

// Runs on every GET /v1/organization, so it is compiled once.
const selectOrganization = prepared(
  (db, organizationId: string) => db.selectFrom('organizations').selectAll().where('id', '=', organizationId),
  ['organization-id'],
);

/**
 * The caller's organization. The embedded engine caches it, emptied by any change to the organizations table
 * (src/db/embedded-cache.ts), so a PATCH or the operator's `org update` is seen by the next request
 * (docs/api.md#organization-settings).
 */
export const findOrganization = (db: Kysely<DB>, organizationId: string): Promise<OrganizationRow | undefined> =>
  cachedRead(db, `organization:${organizationId}`, async () => (await selectOrganization(db, organizationId))[0]);

export const listOrganizations = (db: Kysely<DB>) =>
  db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();

export const insertOrganization = (
  db: Executor,
  values: { id: string; name: string; timezone: string; api_version: string; api_requests_per_minute?: number },
) => db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow();

/** The organization columns a PATCH or the operator's `org update` may set. */
export interface OrganizationChanges {
  name?: string | undefined;
  timezone?: string | undefined;
  cascade_delete_reviews?: boolean | undefined;
  review_summary_min_reviews?: number | undefined;
  expiring_soon_days?: number | undefined;
  api_version?: string | undefined;
  api_requests_per_minute?: number | undefined;
  loyalty_events_per_minute?: number | undefined;
  loyalty_stamps_per_minute?: number | undefined;
}

/**
 * A write that changes nothing is no write (docs/api.md#writes-that-change-nothing): the row is updated, and
 * `updated_at` moved, only when a stored value differs, compared by PostgreSQL in the UPDATE itself (the same rule as
 * src/resource-kit/changes.ts, which serves tenant tables keyed by organization and id; this table is keyed by id).
 * Returns the new row, or undefined when nothing differed or the organization does not exist.
 */
export async function updateOrganizationIfChanged(
  db: Executor,
  organizationId: string,
  changes: OrganizationChanges,
): Promise<OrganizationRow | undefined> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return undefined;
  const { rows } = await sql<OrganizationRow>`
    update organizations
    set ${sql.join([...entries.map(([column, value]) => sql`${sql.ref(column)} = ${value}`), sql`updated_at = now()`])}
    where id = ${organizationId}::uuid
      and (${sql.join(entries.map(([column]) => sql.ref(column)))}) is distinct from (${sql.join(entries.map(([, value]) => sql`${value}`))})
    returning *`.execute(db);
  return rows[0];
}

/**
 * Whether the database's zone files know a time zone: the daily job scheduler converts every organization's clock in
 * one statement (src/jobs/runner/queue.ts), so a zone only the JavaScript runtime knows would stop it for all of them.
 */
export async function databaseKnowsTimeZone(db: Executor, timezone: string): Promise<boolean> {
  try {
    await sql`select now() at time zone ${timezone}`.execute(db);
    return true;
  } catch (error) {
    const { code } = (error ?? {}) as { code?: unknown };
    if (code === '22023') return false;
    throw error;
  }
}
