import type { ResourceModule } from '../../../core/types.js';
import { pointsAdjustmentRoute } from '../memberships/routes.js';
import { listActivityRoute } from './routes.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';

/**
 * The OpenAPI tag "loyalty-points": GET /loyalty-activity and the points adjustment of a membership, registered in
 * the order the API document lists them.
 */
export const loyaltyPointsResource: ResourceModule = {
  name: 'loyalty-points',
  description: 'The points ledger: balance adjustments and GET /loyalty-activity.',
  routes: (app, services) => {
    listActivityRoute(app, services);
    pointsAdjustmentRoute(app, services);
  },
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['loyaltyTransaction.created'],
      schema: LoyaltyTransaction,
      firesWhen:
        'Each ledger entry: points earned (POST /loyalty-events, order import, POST /loyalty-history), spent (a claim), adjusted (POST /loyalty-memberships/{id}/points-adjustments, a balance set by POST /loyalty-memberships/import) or expired (POST /loyalty-activity/bulk-expire, the overnight job).',
    },
  ],
};
