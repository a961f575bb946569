import Type from 'typebox';
import { authOf } from '../../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../../http/types.js';
import { listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams } from '../../../records/common.js';
import { activityList } from './list.js';
import { PointsAdjustmentBody } from './schemas.js';
import { LoyaltyPointsService } from './service.js';
import { EmbeddedCustomer } from '../../../records/customer.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';

const tags = ['loyalty-points'];
const TransactionWithExtras = Type.Object(
  {
    ...LoyaltyTransaction.properties,
    customer: Type.Optional(EmbeddedCustomer),
    membership: Type.Optional(LoyaltyMembership),
  },
  { additionalProperties: false },
);

export function pointsRoutes(app: PatronApp, { db }: PlatformServices): void {
  const points = new LoyaltyPointsService(db);

  app.get(
    '/loyalty-activity',
    {
      config: { permission: 'loyalty:read', cost: 1 },
      schema: {
        operationId: 'listLoyaltyActivity',
        summary:
          'The points ledger: every loyaltyTransaction (earned, spent, adjusted, expired), newest first by default (include: customer, membership)',
        tags,
        querystring: listQuerySchema(activityList),
        response: { 200: listEnvelope(TransactionWithExtras) },
      },
    },
    async (request) => points.activity(authOf(request).organizationId, request.query),
  );

  app.post(
    '/loyalty-memberships/:id/points-adjustments',
    {
      config: {
        permission: 'loyalty:write',
        cost: 1,
        refusals: { 409: 'the member has left, or the balance would go below 0 or above 2^53-1' },
      },
      schema: {
        operationId: 'adjustLoyaltyPoints',
        summary:
          'Add or remove points by hand (D31; never below 0: 409); triggers loyaltyTransaction.created (and loyaltyMembership.tierChanged on a new tier)',
        tags,
        params: IdParams,
        body: PointsAdjustmentBody,
        response: { 200: LoyaltyTransaction },
      },
    },
    async (request) => points.adjust(authOf(request).organizationId, request.params.id, request.body),
  );
}
