import Type from 'typebox';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../../quick-filters/index.js';
import { optionalBody } from '../../../http/optional-body.js';
import { authOf } from '../../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { listQuerySchema, selectionQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { activityList } from './list.js';
import { BulkExpireBody, BulkExpireResult } from './schemas.js';
import { LoyaltyActivityService } from './service.js';
import { EmbeddedCustomer } from '../../../records/customer.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';

const tags = ['loyalty-points'];
export const TransactionWithExtras = Type.Object(
  {
    ...LoyaltyTransaction.properties,
    customer: Type.Optional(EmbeddedCustomer),
    membership: Type.Optional(LoyaltyMembership),
  },
  { additionalProperties: false },
);

export function listActivityRoute(app: PatronApp, { db }: PlatformServices): void {
  const activity = new LoyaltyActivityService(db);

  app.get(
    '/loyalty-activity',
    {
      config: { permission: 'loyalty:read', cost: 1, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listLoyaltyActivity',
        summary:
          'The points ledger: every loyaltyTransaction (earned, spent, adjusted, expired), newest first by default (include: customer, membership)',
        tags,
        querystring: listQuerySchema(activityList, { quickFilter: true }),
        response: { 200: listEnvelope(TransactionWithExtras) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return activity.activity(
        organizationId,
        await withQuickFilter(db, organizationId, 'loyalty-activity', activityList, request.query),
      );
    },
  );
}

/**
 * POST /loyalty-activity/bulk-expire. It is listed in the API document under the loyalty-earning tag, as before the
 * activity feed's routes were gathered here, so the document stays as published.
 */
export function bulkExpireRoute(app: PatronApp, { db }: PlatformServices): void {
  const activity = new LoyaltyActivityService(db);

  app.post(
    '/loyalty-activity/bulk-expire',
    {
      config: { permission: 'loyalty:write', cost: 5, refusals: { 404: QUICK_FILTER_MISSING } },
      // The body is optional (only a reason).
      preValidation: optionalBody,
      schema: {
        operationId: 'bulkExpireLoyaltyPoints',
        summary:
          'Expire what is left of the credits the filter and search of GET /loyalty-activity select (one expired entry per member); triggers loyaltyTransaction.created',
        tags: ['loyalty-earning'],
        querystring: selectionQuerySchema(activityList, { quickFilter: true }),
        body: BulkExpireBody,
        response: { 200: BulkExpireResult },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      const selection = await withQuickFilter(db, organizationId, 'loyalty-activity', activityList, request.query);
      return activity.bulkExpire(organizationId, selection, request.body);
    },
  );
}
