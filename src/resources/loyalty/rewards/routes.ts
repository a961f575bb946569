import Type from 'typebox';
import { checkCreateBody } from '../../../resource-kit/body.js';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../../quick-filters/index.js';
import { authOf } from '../../../http/auth.js';
import { optionalBody } from '../../../http/optional-body.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { includeSchema, listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams } from '../../../records/common.js';
import { rewardList } from '../engine/rewards/list.js';
import { ClaimBody, RedeemBody, RevokeBody, IssueCreateBody, ISSUE_REQUIRED } from './schemas.js';
import { LoyaltyRewardService } from './service.js';
import { LoyaltyReward } from '../../../records/loyalty/reward.js';

const tags = ['loyalty-rewards'];

export function rewardRoutes(app: PatronApp, { db }: PlatformServices): void {
  const rewards = new LoyaltyRewardService(db);
  const read = { permission: 'loyalty:read', cost: 1 };
  const write = { permission: 'loyalty:write', cost: 1 };
  const getQuery = Type.Object({ include: Type.Optional(includeSchema(rewardList)) }, { additionalProperties: false });

  app.get(
    '/loyalty-rewards',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listLoyaltyRewards',
        summary: 'List loyalty rewards (issued by rules, stamp cards, claims or by hand), newest first by default',
        tags,
        querystring: listQuerySchema(rewardList, { quickFilter: true }),
        response: { 200: listEnvelope(LoyaltyReward) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return rewards.list(
        organizationId,
        await withQuickFilter(db, organizationId, 'loyalty-rewards', rewardList, request.query),
      );
    },
  );

  app.post(
    '/loyalty-rewards',
    {
      config: {
        checkBody: checkCreateBody(ISSUE_REQUIRED, 'reward'),
        ...write,
        refusals: {
          409: 'the member has left, or the reward would be born expired',
          422: 'loyaltyMembershipId names no membership of the organization',
        },
      },
      schema: {
        operationId: 'issueLoyaltyReward',
        summary:
          'Issue a reward to one member by hand: a fresh code, customer, membership and rule embedded; triggers loyaltyReward.issued',
        tags,
        body: IssueCreateBody,
        response: { 201: LoyaltyReward },
      },
    },
    async (request, reply) => reply.code(201).send(await rewards.issue(authOf(request).organizationId, request.body)),
  );

  app.post(
    '/loyalty-rewards/redeem',
    {
      config: {
        ...write,
        refusals: {
          404: 'no reward of the organization has this code',
          409: 'the reward is not pending (or has just expired)',
          422: 'orderId names no order of the organization',
        },
      },
      schema: {
        operationId: 'redeemLoyaltyReward',
        summary: 'Redeem a pending reward by its code, optionally naming the order; triggers loyaltyReward.redeemed',
        tags,
        body: RedeemBody,
        response: { 200: LoyaltyReward },
      },
    },
    async (request) => rewards.redeem(authOf(request).organizationId, request.body),
  );

  app.get(
    '/loyalty-rewards/:id',
    {
      config: read,
      schema: {
        operationId: 'getLoyaltyReward',
        summary: 'One loyalty reward',
        tags,
        params: IdParams,
        querystring: getQuery,
        response: { 200: LoyaltyReward },
      },
    },
    async (request) => rewards.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.post(
    '/loyalty-rewards/:id/revoke',
    {
      config: { ...write, refusals: { 409: 'the reward is not pending (or has just expired)' } },
      // The body is optional (only a reason).
      preValidation: optionalBody,
      schema: {
        operationId: 'revokeLoyaltyReward',
        summary:
          "Withdraw a pending reward; the reason goes on the member's activity feed; triggers loyaltyReward.revoked",
        tags,
        params: IdParams,
        body: RevokeBody,
        response: { 200: LoyaltyReward },
      },
    },
    async (request) => rewards.revoke(authOf(request).organizationId, request.params.id, request.body),
  );

  app.post(
    '/loyalty-memberships/:id/claim',
    {
      config: {
        ...write,
        refusals: {
          409: 'the member has left, the rule is inactive or the balance is short',
          422: "loyaltyRuleId names no live rewards rule of the member's program",
        },
      },
      schema: {
        operationId: 'claimLoyaltyReward',
        summary:
          "Claim a rule of the rewards section for the member's points: spends its pointsCost (409 when short) and issues its reward; triggers loyaltyTransaction.created and loyaltyReward.issued",
        tags,
        params: IdParams,
        body: ClaimBody,
        response: { 201: LoyaltyReward },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await rewards.claim(authOf(request).organizationId, request.params.id, request.body)),
  );
}
