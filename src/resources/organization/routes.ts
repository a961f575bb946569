import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../http/types.js';
import { Organization } from '../../records/organization.js';
import { getOrganization } from './service.js';

export function organizationRoutes(app: PatronApp, { db }: PlatformServices): void {
  app.get(
    '/organization',
    {
      config: { permission: 'any', cost: 1 },
      schema: {
        operationId: 'getOrganization',
        summary: "The calling key's organization, its plan and settings",
        tags: ['organization'],
        response: { 200: Organization },
      },
    },
    async (request) => getOrganization(db, authOf(request).organizationId),
  );
}
