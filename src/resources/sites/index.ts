import type { ResourceModule } from '../../core/types.js';
import { siteRoutes } from './routes.js';
import { Site } from '../../records/site.js';
import { DEMO } from '../../demo/ids.js';

export const sitesResource: ResourceModule = {
  name: 'sites',
  permissions: ['sites:read', 'sites:write'],
  description: "The stores the organization's data comes from. Orders and product links reference them.",
  routes: siteRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['site.created', 'site.updated', 'site.deleted'],
      schema: Site,
      firesWhen: {
        'site.created': 'POST /sites.',
        'site.updated': 'PATCH /sites/{id}.',
        'site.deleted': 'DELETE /sites/{id}.',
      },
    },
  ],
  // What "Test Request" in /docs sends, on the demo world (docs/api.md#documented-examples-and-the-demo-world).
  examples: {
    listSites: { summary: 'Every site' },
    createSite: {
      summary: 'Add a pop-up store selling in euros',
      body: { data: { name: 'Pop-up store', domain: 'popup.example.com', platform: 'custom', currencyCode: 'EUR' } },
    },
    getSite: { summary: 'The main store', params: { id: DEMO.sites.main } },
    updateSite: {
      summary: 'Rename the main store',
      params: { id: DEMO.sites.main },
      body: { data: { name: 'Main store (US)' } },
    },
    deleteSite: { summary: 'Close the outlet (no orders use it)', params: { id: DEMO.sites.outlet } },
  },
};
