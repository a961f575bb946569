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

/** Every organization, test twins included, each with its twin's id (null for a twin: twins have none). */
export const listOrganizations = (db: Kysely<DB>) =>
  db
    .selectFrom('organizations as o')
    .leftJoin('organizations as t', 't.live_organization_id', 'o.id')
    .selectAll('o')
    .select('t.id as test_organization_id')
    .orderBy('o.created_at')
    .orderBy('o.id')
    .execute();

export const insertOrganization = (
  db: Executor,
  values: {
    id: string;
    name: string;
    timezone: string;
    api_version: string;
    api_requests_per_minute?: number;
    loyalty_events_per_minute?: number;
    loyalty_stamps_per_minute?: number;
    live_organization_id?: string;
  },
) => db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow();

/** The test twin of a live organization (docs/api.md#test-mode); undefined for a twin or an unknown id. */
export const findTestOrganizationId = async (db: Executor, organizationId: string): Promise<string | undefined> =>
  (
    await db
      .selectFrom('organizations')
      .select('id')
      .where('live_organization_id', '=', organizationId)
      .executeTakeFirst()
  )?.id;

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

/** The organization columns live data and test data share (docs/api.md#test-mode). */
export type SharedWithOtherMode =
  'api_requests_per_minute' | 'loyalty_events_per_minute' | 'loyalty_stamps_per_minute' | 'api_version';

/** The plan is the operator's, one for both modes: a test key spends its own bucket of the same size. */
export const PLAN_COLUMNS: readonly SharedWithOtherMode[] = [
  'api_requests_per_minute',
  'loyalty_events_per_minute',
  'loyalty_stamps_per_minute',
];
/** One API version for both modes, so an integration tried with test keys meets the shapes its live keys will get. */
export const VERSION_COLUMNS: readonly SharedWithOtherMode[] = ['api_version'];

/**
 * Copies the given columns from an organization to its other mode (a live organization's twin, or a twin's live
 * organization), in the caller's transaction, so a change made in either mode is the other's too; a row already equal
 * is not written.
 */
export async function copyToOtherMode(
  db: Executor,
  organizationId: string,
  columns: readonly SharedWithOtherMode[],
): Promise<void> {
  const theirs = sql.join(columns.map((column) => sql`other.${sql.ref(column)}`));
  const ours = sql.join(columns.map((column) => sql`o.${sql.ref(column)}`));
  await sql`update organizations other
    set ${sql.join([...columns.map((column) => sql`${sql.ref(column)} = o.${sql.ref(column)}`), sql`updated_at = now()`])}
    from organizations o
    where o.id = ${organizationId}::uuid
      and (other.live_organization_id = o.id or other.id = o.live_organization_id)
      and (${theirs}) is distinct from (${ours})`.execute(db);
}
