import type { Kysely } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { conflict, notFound, validationError } from '../../core/errors.js';
import type { Cascade } from '../../core/cascades.js';
import { listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { isUuid } from '../../util/uuid.js';
import { deleteSiteRow, findSite, insertSite, lockSite, updateSite } from './queries.js';
import { siteEvent, toSite, type Site } from '../../records/site.js';
import { SITE_REQUIRED, type SiteBody, type SiteInput } from './schemas.js';
import { siteList } from './list.js';

export const DEFAULT_PLATFORM = 'custom';
export const DEFAULT_CURRENCY = 'USD';

const unwrap = (body: SiteBody | undefined) => unwrapData<SiteInput>(body, 'site');

/**
 * A domain that reads as a UUID would be ambiguous where an import row names a site by id or domain
 * (docs/api.md#sites).
 */
function checkDomain(domain: string | undefined, path: string): void {
  if (domain !== undefined && isUuid(domain)) {
    throw validationError(`Invalid request: ${path}.domain must be a host name, not a UUID.`, [
      { path: `${path}.domain`, message: 'must be a host name, not a UUID' },
    ]);
  }
}

const domainTaken = (domain: string) =>
  conflict(
    `A site with the domain "${domain}" already exists in this organization (domains are compared case-insensitively).`,
  );

export class SiteService {
  constructor(
    private readonly db: Kysely<DB>,
    /** What deleting a site does to the rows other resources hold under it (docs/architecture.md#declared-cascades). */
    private readonly cascade: Cascade,
  ) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, siteList, organizationId, params, toSite);
  }

  async get(organizationId: string, id: string): Promise<Site> {
    const row = await findSite(this.db, organizationId, id);
    if (!row) throw notFound('The site');
    return toSite(row);
  }

  async create(organizationId: string, body: SiteBody | undefined): Promise<Site> {
    const { fields, path } = unwrap(body);
    requireFields(fields, SITE_REQUIRED, path);
    checkDomain(fields.domain, path);
    const domain = fields.domain!;
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await insertSite(trx, {
          organizationId,
          id: uuidv7(),
          name: fields.name!,
          domain,
          platform: fields.platform ?? DEFAULT_PLATFORM,
          currencyCode: fields.currencyCode ?? DEFAULT_CURRENCY,
        });
        await recordEvents(trx, [siteEvent(organizationId, 'site.created', row)]);
        return toSite(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw domainTaken(domain);
      throw error;
    }
  }

  async update(organizationId: string, id: string, body: SiteBody | undefined): Promise<Site> {
    const { fields, path } = unwrap(body);
    checkDomain(fields.domain, path);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await lockSite(trx, organizationId, id);
        if (!before) throw notFound('The site');
        const row = await updateSite(trx, organizationId, id, fields);
        // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
        if (!row) return toSite(before);
        await recordEvents(trx, [siteEvent(organizationId, 'site.updated', row)]);
        return toSite(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw domainTaken(fields.domain ?? '');
      throw error;
    }
  }

  /** Deletes a site and its product links; a site that orders use stays (409), since orders need their site. */
  async delete(organizationId: string, id: string): Promise<Site> {
    return this.db.transaction().execute(async (trx) => {
      // The lock keeps an order from being written against the site between the count and the delete.
      if (!(await lockSite(trx, organizationId, id))) throw notFound('The site');
      // What other resources hold under it refuses the deletion (409) or goes with it, through the declared cascade
      // (docs/architecture.md#declared-cascades).
      const cascade = await this.cascade(trx, organizationId, id);
      const row = await deleteSiteRow(trx, organizationId, id);
      if (!row) throw notFound('The site');
      await cascade.parentDeleted();
      await recordEvents(trx, [
        ...cascade.eventsBefore,
        siteEvent(organizationId, 'site.deleted', row),
        ...cascade.eventsAfter,
      ]);
      return toSite(row);
    });
  }
}
