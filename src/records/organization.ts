/** The organization record: its response shape, the columns it is read from and the one row→record mapping. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { OrganizationsTable } from '../db/schema.js';

export const Organization = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    livemode: Type.Boolean({
      description:
        "False for an organization's test twin, which test keys (`sk_test_…`) and test-mode sessions act on; true otherwise.",
    }),
    timezone: Type.String({ description: 'IANA time zone; analytics and overnight jobs use it by default.' }),
    plan: Type.Object({
      apiRequestsPerMinute: Type.Integer({
        description: 'Ceiling of the organization-wide token bucket; it refills at this value / 60 per second.',
      }),
      loyaltyEventsPerMinute: Type.Integer({ description: 'Ceiling of the POST /loyalty-events bucket.' }),
      loyaltyStampsPerMinute: Type.Integer({ description: 'Ceiling of the POST /loyalty-stamps bucket.' }),
    }),
    settings: Type.Object({
      cascadeDeleteReviews: Type.Boolean({
        description: 'When true, deleting a product deletes its reviews instead of unlinking and unpublishing them.',
      }),
      reviewSummaryMinReviews: Type.Integer({
        description: 'Published reviews a product needs before it gets a summary.',
      }),
      expiringSoonDays: Type.Integer({ description: 'How many days ahead the expiringSoon events warn.' }),
    }),
    apiVersion: Type.String({
      description:
        "The API version (YYYY-MM-DD) of the organization's key requests that send no Patron-Version header, and of its webhook endpoints that pin none; it moves forward only.",
    }),
  },
  { $id: 'Organization', additionalProperties: false },
);
export type Organization = Static<typeof Organization>;

export type OrganizationRow = Selectable<OrganizationsTable>;

/** The columns toOrganization reads. */
export const ORGANIZATION_COLUMNS = [
  'id',
  'name',
  'timezone',
  'api_requests_per_minute',
  'loyalty_events_per_minute',
  'loyalty_stamps_per_minute',
  'cascade_delete_reviews',
  'review_summary_min_reviews',
  'expiring_soon_days',
  'api_version',
  'live_organization_id',
] as const satisfies readonly (keyof OrganizationRow)[];
export type OrganizationFields = Pick<OrganizationRow, (typeof ORGANIZATION_COLUMNS)[number]>;

export function toOrganization(row: OrganizationFields): Organization {
  return {
    id: row.id,
    name: row.name,
    livemode: row.live_organization_id === null,
    timezone: row.timezone,
    plan: {
      apiRequestsPerMinute: row.api_requests_per_minute,
      loyaltyEventsPerMinute: row.loyalty_events_per_minute,
      loyaltyStampsPerMinute: row.loyalty_stamps_per_minute,
    },
    settings: {
      cascadeDeleteReviews: row.cascade_delete_reviews,
      reviewSummaryMinReviews: row.review_summary_min_reviews,
      expiringSoonDays: row.expiring_soon_days,
    },
    apiVersion: row.api_version,
  };
}
