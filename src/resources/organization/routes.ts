import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { Organization } from '../../records/organization.js';
import { OrganizationBody } from './schemas.js';
import { getOrganization, updateOrganization } from './service.js';

/** The permission PATCH /organization needs; reading stays open to any valid key (docs/api.md#organization-settings). */
export const ORGANIZATION_WRITE = 'organization:write';

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

  app.patch(
    '/organization',
    {
      config: { permission: ORGANIZATION_WRITE, cost: 1 },
      schema: {
        operationId: 'updateOrganization',
        summary:
          "Change the organization's name, time zone or settings (the plan is the operator's); sends no event, none is in the catalog",
        tags: ['organization'],
        body: OrganizationBody,
        response: { 200: Organization },
      },
    },
    async (request) => updateOrganization(db, authOf(request).organizationId, request.body),
  );
}
