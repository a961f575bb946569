import type { Executor } from '../../db/executor.js';
import { updateIfChanged } from '../../resource-kit/changes.js';

export const findSite = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('sites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The site, locked against concurrent changes and against new orders referencing it until the transaction ends. */
export const lockSite = (trx: Executor, organizationId: string, id: string) =>
  trx
    .selectFrom('sites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

export const insertSite = (
  trx: Executor,
  values: { organizationId: string; id: string; name: string; domain: string; platform: string; currencyCode: string },
) =>
  trx
    .insertInto('sites')
    .values({
      organization_id: values.organizationId,
      id: values.id,
      name: values.name,
      domain: values.domain,
      platform: values.platform,
      currency_code: values.currencyCode,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** The fields sent; undefined when they are the stored ones (nothing written: docs/api.md#writes-that-change-nothing). */
export const updateSite = (
  trx: Executor,
  organizationId: string,
  id: string,
  changes: {
    name?: string | undefined;
    domain?: string | undefined;
    platform?: string | undefined;
    currencyCode?: string | undefined;
  },
) =>
  updateIfChanged(trx, 'sites', organizationId, id, {
    name: changes.name,
    domain: changes.domain,
    platform: changes.platform,
    currency_code: changes.currencyCode,
  });

/** Deletes the site; its product links go with it (product_sites cascades). */
export const deleteSiteRow = (trx: Executor, organizationId: string, id: string) =>
  trx
    .deleteFrom('sites')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
