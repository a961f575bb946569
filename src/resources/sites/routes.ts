import { authOf } from '../../http/auth.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { listQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { IdParams } from '../../records/common.js';
import { siteList } from './list.js';
import { Site } from '../../records/site.js';
import { SiteBody, SiteCreateBody, SITE_REQUIRED } from './schemas.js';
import { SiteService } from './service.js';
import { SITE } from '../../resource-kit/cascade-parents.js';

const tags = ['sites'];

export function siteRoutes(app: PatronApp, { db, cascades }: PlatformServices): void {
  const sites = new SiteService(db, cascades.of(SITE));
  const read = { permission: 'sites:read', cost: 1 };
  const write = { permission: 'sites:write', cost: 1 };

  app.get(
    '/sites',
    {
      config: read,
      schema: {
        operationId: 'listSites',
        summary: 'List sites, newest first by default',
        tags,
        querystring: listQuerySchema(siteList),
        response: { 200: listEnvelope(Site) },
      },
    },
    async (request) => sites.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/sites',
    {
      config: {
        ...write,
        refusals: { 409: 'a site with this domain already exists' },
        checkBody: checkCreateBody(SITE_REQUIRED, 'site'),
      },
      schema: {
        operationId: 'createSite',
        summary:
          'Create a site (name and domain required; platform defaults to custom, currencyCode to USD); triggers site.created',
        tags,
        body: SiteCreateBody,
        response: { 201: Site },
      },
    },
    async (request, reply) => {
      const site = await sites.create(authOf(request).organizationId, request.body);
      return reply.code(201).send(site);
    },
  );

  app.get(
    '/sites/:id',
    {
      config: read,
      schema: { operationId: 'getSite', summary: 'One site', tags, params: IdParams, response: { 200: Site } },
    },
    async (request) => sites.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/sites/:id',
    {
      config: { ...write, refusals: { 409: 'a site with this domain already exists' } },
      schema: {
        operationId: 'updateSite',
        summary: "Change a site's name, domain, platform or currency; triggers site.updated",
        tags,
        params: IdParams,
        body: SiteBody,
        response: { 200: Site },
      },
    },
    async (request) => sites.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/sites/:id',
    {
      config: { ...write, refusals: { 409: 'orders use the site' } },
      schema: {
        operationId: 'deleteSite',
        summary: 'Delete a site and its product links (409 while orders use it); triggers site.deleted',
        tags,
        params: IdParams,
        response: { 200: Site },
      },
    },
    async (request) => sites.delete(authOf(request).organizationId, request.params.id),
  );
}
