import type { ResourceModule } from '../../core/types.js';
import { siteRoutes } from './routes.js';
import { Site } from '../../records/site.js';

export const sitesResource: ResourceModule = {
  name: 'sites',
  permissions: ['sites:read', 'sites:write'],
  description: "The stores the organization's data comes from. Orders and product links reference them.",
  routes: siteRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [{ names: ['site.created', 'site.updated', 'site.deleted'], schema: Site }],
};
