import type { Kysely } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';
import { findOrganization, insertOrganization, listOrganizations } from './queries.js';
import { toOrganization, type Organization } from '../../records/organization.js';
import { insertDefaultProgram } from '../loyalty/index.js';

export function isTimeZone(name: string): boolean {
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

/** Operator action (CLI): creates an organization with the default plan and settings. */
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
      ...(input.apiRequestsPerMinute !== undefined ? { api_requests_per_minute: input.apiRequestsPerMinute } : {}),
    });
    await insertDefaultProgram(trx, created.id);
    return created;
  });
  return toOrganization(row);
}

export async function allOrganizations(db: Kysely<DB>): Promise<Organization[]> {
  return (await listOrganizations(db)).map(toOrganization);
}
