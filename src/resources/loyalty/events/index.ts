import type { ResourceModule } from '../../../core/types.js';
import { bulkExpireRoute } from '../activity/routes.js';
import { earningRoutes } from './routes.js';
import { Referral } from '../../../records/loyalty/referral.js';
import { StampCard } from '../../../records/loyalty/stamp-card.js';
import { LoyaltyPointsExpiringSoon } from '../../../records/loyalty/points-expiring-soon.js';

/**
 * The OpenAPI tag "loyalty-earning": POST /loyalty-events, /loyalty-stamps, /loyalty-history and the bulk expiry of
 * GET /loyalty-activity's selection, registered in the order the API document lists them.
 */
export const loyaltyEarningResource: ResourceModule = {
  name: 'loyalty-earning',
  description:
    'Earning (POST /loyalty-events, /loyalty-stamps; orders earn on import), historical ledger import and bulk expiry of points.',
  routes: (app, services) => {
    earningRoutes(app, services);
    bulkExpireRoute(app, services);
  },
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyPoints.expiringSoon'],
      schema: LoyaltyPointsExpiringSoon,
      firesWhen:
        "The overnight loyalty job (03:00 on the organization's clock), once per reward or credit expiring within expiringSoonDays; never a customer action.",
    },
    {
      names: ['stampCard.created', 'stampCard.updated', 'stampCard.completed'],
      schema: StampCard,
      firesWhen: {
        'stampCard.created': 'The first stamp of a card: POST /loyalty-stamps, or a stamp earned on order import.',
        'stampCard.updated': 'Each stamp: POST /loyalty-stamps, or a stamp earned on order import.',
        'stampCard.completed': 'The stamp that fills a card (sent after its stampCard.updated).',
      },
    },
    {
      names: ['referral.updated'],
      schema: Referral,
      firesWhen:
        "A referral is created or attributed: POST /loyalty-events with a referral, or the referred customer's first order on import.",
    },
  ],
};
