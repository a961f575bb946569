import type { Kysely } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { notFound, validationError } from '../../core/errors.js';
import { unwrapData } from '../../resource-kit/body.js';
import {
  databaseKnowsTimeZone,
  findOrganization,
  findTestOrganizationId,
  copyToOtherMode,
  PLAN_COLUMNS,
  VERSION_COLUMNS,
  insertOrganization,
  listOrganizations,
  updateOrganizationIfChanged,
  type OrganizationChanges,
} from './queries.js';
import { toOrganization, type Organization } from '../../records/organization.js';
import { insertDefaultProgram } from '../loyalty/index.js';
import type { OrganizationBody, OrganizationInput } from './schemas.js';
import { invalidVersion, isKnownVersion, LATEST_VERSION } from '../../versions/index.js';

/**
 * IANA names are Area/Location paths (or UTC): this refuses POSIX strings and offsets such as "+05:00", which
 * PostgreSQL reads with the sign inverted.
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

export function isTimeZone(name: string): boolean {
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export async function getOrganization(db: Kysely<DB>, organizationId: string): Promise<Organization> {
  const row = await findOrganization(db, organizationId);
  if (!row) throw notFound('The organization');
  return toOrganization(row);
}

export interface NewOrganization {
  name: string;
  timezone?: string | undefined;
  apiRequestsPerMinute?: number | undefined;
}

/**
 * Operator action (CLI, the demo, tests): creates an organization with the default plan and settings, and its test
 * twin (docs/api.md#test-mode) in the same transaction, so no organization is ever without one: the twin takes the
 * organization's name, time zone and plan, and gets the default loyalty program too.
 */
export async function createOrganization(db: Kysely<DB>, input: NewOrganization): Promise<Organization> {
  const name = input.name.trim();
  if (!name) throw new Error('The organization name must not be empty.');
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone))
    throw new Error(`Unknown time zone "${timezone}": use an IANA name such as Europe/Berlin.`);
  if (
    input.apiRequestsPerMinute !== undefined &&
    !(Number.isInteger(input.apiRequestsPerMinute) && input.apiRequestsPerMinute >= 10)
  ) {
    throw new Error('apiRequestsPerMinute must be an integer of at least 10 (the most expensive request costs 10).');
  }
  const row = await db.transaction().execute(async (trx) => {
    const created = await insertOrganization(trx, {
      id: uuidv7(),
      name,
      timezone,
      // The newest version at its creation (docs/api.md#api-versions).
      api_version: LATEST_VERSION,
      ...(input.apiRequestsPerMinute !== undefined ? { api_requests_per_minute: input.apiRequestsPerMinute } : {}),
    });
    await insertDefaultProgram(trx, created.id);
    const twin = await insertOrganization(trx, {
      id: uuidv7(),
      name: created.name,
      timezone: created.timezone,
      api_requests_per_minute: created.api_requests_per_minute,
      loyalty_events_per_minute: created.loyalty_events_per_minute,
      loyalty_stamps_per_minute: created.loyalty_stamps_per_minute,
      // One version for both modes (docs/api.md#test-mode): an integration tried in test mode meets live's shapes.
      api_version: created.api_version,
      live_organization_id: created.id,
    });
    await insertDefaultProgram(trx, twin.id);
    return created;
  });
  return toOrganization(row);
}

export { findTestOrganizationId };

export async function allOrganizations(db: Kysely<DB>): Promise<Organization[]> {
  return (await listOrganizations(db)).map(toOrganization);
}

const unknownZone = (timezone: string) => `Unknown time zone "${timezone}": use an IANA name such as Europe/Berlin.`;

/**
 * PATCH /organization (docs/api.md#organization-settings): name, time zone and settings. Sends no event: service.md's
 * event catalog has no organization event (docs/api.md#event-catalog). A PATCH that changes nothing writes nothing
 * (docs/api.md#writes-that-change-nothing).
 */
export async function updateOrganization(
  db: Kysely<DB>,
  organizationId: string,
  body: OrganizationBody | undefined,
): Promise<Organization> {
  const { fields, path } = unwrapData<OrganizationInput>(body, 'organization');
  const changes: OrganizationChanges = {
    cascade_delete_reviews: fields.settings?.cascadeDeleteReviews,
    review_summary_min_reviews: fields.settings?.reviewSummaryMinReviews,
    expiring_soon_days: fields.settings?.expiringSoonDays,
  };
  if (fields.name !== undefined) {
    changes.name = fields.name.trim();
    if (!changes.name) {
      throw validationError('Invalid request: the organization name must not be blank.', [
        { path: `${path}.name`, message: 'must not be blank' },
      ]);
    }
  }
  if (fields.timezone !== undefined) {
    if (!isTimeZone(fields.timezone) || !(await databaseKnowsTimeZone(db, fields.timezone))) {
      throw validationError(unknownZone(fields.timezone), [
        { path: `${path}.timezone`, message: 'must be an IANA time zone name the database knows' },
      ]);
    }
    changes.timezone = fields.timezone;
  }
  if (fields.apiVersion !== undefined) {
    changes.api_version = await forwardVersion(db, organizationId, fields.apiVersion, `${path}.apiVersion`);
  }
  const row = await db.transaction().execute(async (trx) => {
    const updated = await updateOrganizationIfChanged(trx, organizationId, changes);
    if (updated && changes.api_version !== undefined) await copyToOtherMode(trx, organizationId, VERSION_COLUMNS);
    return updated;
  });
  return row ? toOrganization(row) : getOrganization(db, organizationId);
}

/**
 * The organization's default API version moves forward only (docs/api.md#api-versions): an unknown version is
 * INVALID_VERSION, an earlier one than the current a validation error naming both; the same one changes nothing.
 */
async function forwardVersion(db: Kysely<DB>, organizationId: string, wanted: string, path: string): Promise<string> {
  if (!isKnownVersion(wanted)) throw invalidVersion(wanted, path);
  const current = (await getOrganization(db, organizationId)).apiVersion;
  if (wanted < current) {
    throw validationError(
      `Invalid request: the API version moves forward only; the organization is on ${current}, so ${wanted} cannot be set. Send Patron-Version: ${wanted} on a request to use the older version for it alone.`,
      [{ path, message: `must be ${current} or later` }],
    );
  }
  return wanted;
}

/** What the operator's `patron org update` may change: the plan allowances too, which the API never changes. */
export interface OrganizationUpdate {
  name?: string | undefined;
  timezone?: string | undefined;
  apiRequestsPerMinute?: number | undefined;
  loyaltyEventsPerMinute?: number | undefined;
  loyaltyStampsPerMinute?: number | undefined;
}

const INTEGER_MAX = 2_147_483_647;

function checkAllowance(name: string, value: number | undefined, minimum: number, why: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < minimum || value > INTEGER_MAX) {
    throw new Error(`${name} must be an integer from ${minimum} to ${INTEGER_MAX}${why}.`);
  }
}

/**
 * Operator action (CLI): changes an organization's name, time zone or plan. Every process reads the plan with the key
 * on each request (on the embedded engine from a cache this UPDATE empties), so a new allowance governs the next
 * request anywhere (docs/api.md#plan-changes). Returns undefined
 * when no organization has the id; throws an Error naming a bad value before writing anything.
 */
export async function updateOrganizationPlan(
  db: Kysely<DB>,
  organizationId: string,
  input: OrganizationUpdate,
): Promise<{ organization: Organization; changed: boolean } | undefined> {
  const name = input.name?.trim();
  if (name !== undefined && !name) throw new Error('The organization name must not be empty.');
  if (input.timezone !== undefined) {
    if (!isTimeZone(input.timezone) || !(await databaseKnowsTimeZone(db, input.timezone))) {
      throw new Error(unknownZone(input.timezone));
    }
  }
  checkAllowance('apiRequestsPerMinute', input.apiRequestsPerMinute, 10, ' (the most expensive request costs 10)');
  checkAllowance('loyaltyEventsPerMinute', input.loyaltyEventsPerMinute, 1, '');
  checkAllowance('loyaltyStampsPerMinute', input.loyaltyStampsPerMinute, 1, '');
  const row = await db.transaction().execute(async (trx) => {
    const updated = await updateOrganizationIfChanged(trx, organizationId, {
      name,
      timezone: input.timezone,
      api_requests_per_minute: input.apiRequestsPerMinute,
      loyalty_events_per_minute: input.loyaltyEventsPerMinute,
      loyalty_stamps_per_minute: input.loyaltyStampsPerMinute,
    });
    if (updated) await copyToOtherMode(trx, organizationId, PLAN_COLUMNS);
    return updated;
  });
  if (row) return { organization: toOrganization(row), changed: true };
  const current = await findOrganization(db, organizationId);
  return current ? { organization: toOrganization(current), changed: false } : undefined;
}
