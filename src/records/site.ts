/** The site record (docs/api.md#sites): its response shape, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { SitesTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Timestamp, Uuid } from './common.js';

/** A site (docs/api.md#sites): a store the organization's data comes from. */
export const Site = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    domain: Type.String({
      description: 'Host name of the store, as given; unique per organization (case-insensitive).',
    }),
    platform: Type.String({ description: 'Store platform, e.g. custom.' }),
    currencyCode: Type.String({ description: 'ISO 4217 code.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Site', additionalProperties: false },
);
export type Site = Static<typeof Site>;

export type SiteRow = Selectable<SitesTable>;

/** The columns toSite reads. */
export const SITE_COLUMNS = [
  'id',
  'name',
  'domain',
  'platform',
  'currency_code',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof SiteRow)[];
export type SiteFields = Pick<SiteRow, (typeof SITE_COLUMNS)[number]>;

/** The one mapping from a site row to its API shape. */
export const toSite = (row: SiteFields): Site => ({
  id: row.id,
  name: row.name,
  domain: row.domain,
  platform: row.platform,
  currencyCode: row.currency_code,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type SiteEventName = 'site.created' | 'site.updated' | 'site.deleted';

export const siteEvent = (organizationId: string, name: SiteEventName, row: SiteFields): EventToRecord => ({
  organizationId,
  name,
  schema: Site,
  record: toSite(row),
});
