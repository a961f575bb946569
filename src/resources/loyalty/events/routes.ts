import { authOf } from '../../../http/auth.js';
import { checkCreateBody } from '../../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { ENDPOINT_BUCKETS } from '../../../ratelimit/buckets.js';
import {
  LoyaltyEventResult,
  LoyaltyHistoryResult,
  LoyaltyStampBody,
  LoyaltyStampResult,
  LoyaltyEventCreateBody,
  LOYALTY_EVENT_REQUIRED,
} from './schemas.js';
import { LoyaltyHistoryBody } from '../engine/schemas.js';
import { LoyaltyEarningService } from './service.js';

const tags = ['loyalty-earning'];

export function earningRoutes(app: PatronApp, { db }: PlatformServices): void {
  const earning = new LoyaltyEarningService(db);

  app.post(
    '/loyalty-events',
    {
      config: {
        checkBody: checkCreateBody(LOYALTY_EVENT_REQUIRED, 'loyalty event'),
        permission: 'loyalty:write',
        cost: 1,
        buckets: [ENDPOINT_BUCKETS.loyaltyEvents],
        refusals: {
          409: 'the member has left, or the customer was already referred by another member',
          422: "the member, customer, program or referral code does not exist (or is the member's own)",
        },
      },
      schema: {
        operationId: 'reportLoyaltyEvent',
        summary:
          "A named event (signup, birthday, review…) earns the program's event rules (within their frequency; a key makes it idempotent); triggers loyaltyTransaction.created, and referral.updated with referralCode",
        tags,
        body: LoyaltyEventCreateBody,
        response: { 200: LoyaltyEventResult },
      },
    },
    async (request) => earning.event(authOf(request).organizationId, request.body),
  );

  app.post(
    '/loyalty-stamps',
    {
      config: {
        permission: 'loyalty:write',
        cost: 1,
        buckets: [ENDPOINT_BUCKETS.loyaltyStamps],
        refusals: {
          409: 'the member has left',
          422: 'the member, customer, program or stamp card rule does not exist',
        },
      },
      schema: {
        operationId: 'addLoyaltyStamps',
        summary:
          "Stamp a member's card (stampCard.created/updated/completed); a full card issues its rule's reward (loyaltyReward.issued) and extra stamps start the next card",
        tags,
        body: LoyaltyStampBody,
        response: { 200: LoyaltyStampResult },
      },
    },
    async (request) => earning.stamp(authOf(request).organizationId, request.body),
  );

  app.post(
    '/loyalty-history',
    {
      config: {
        permission: 'loyalty:write',
        cost: 10,
        buckets: [ENDPOINT_BUCKETS.loyaltyHistory],
        refusals: {
          409: 'a debit row exceeds the balance at its time (nothing is imported)',
          422: 'with strict true, a row names a member, customer or program that does not exist',
        },
      },
      schema: {
        operationId: 'importLoyaltyHistory',
        summary:
          'Import historical ledger entries with their createdAt (at most 1,000; balances follow; a key makes a row idempotent); triggers loyaltyTransaction.created',
        tags,
        body: LoyaltyHistoryBody,
        response: { 200: LoyaltyHistoryResult },
      },
    },
    async (request) => earning.history(authOf(request).organizationId, request.body),
  );
}
