import { authOf } from '../../../http/auth.js';
import { checkCreateBody } from '../../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams } from '../../../records/common.js';
import { tierList } from './list.js';
import { TierBody, TierCreateBody, TIER_REQUIRED } from './schemas.js';
import { LoyaltyTierService } from './service.js';
import { LoyaltyTier } from '../../../records/loyalty/tier.js';

const tags = ['loyalty-tiers'];

export function tierRoutes(app: PatronApp, { db }: PlatformServices): void {
  const tiers = new LoyaltyTierService(db);
  const read = { permission: 'loyalty:read', cost: 1 };
  const write = { permission: 'loyalty:write', cost: 1 };

  app.get(
    '/loyalty-tiers',
    {
      config: read,
      schema: {
        operationId: 'listLoyaltyTiers',
        summary: 'List loyalty tiers, newest first by default',
        tags,
        querystring: listQuerySchema(tierList),
        response: { 200: listEnvelope(LoyaltyTier) },
      },
    },
    async (request) => tiers.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/loyalty-tiers',
    {
      config: {
        checkBody: checkCreateBody(TIER_REQUIRED, 'loyalty tier'),
        ...write,
        refusals: {
          409: 'the program already has a tier at this threshold',
          422: 'loyaltyProgramId names no program of the organization',
        },
      },
      schema: {
        operationId: 'createLoyaltyTier',
        summary:
          'Create a tier (name and thresholdPoints required); members are recalculated at once; triggers loyaltyTier.created',
        tags,
        body: TierCreateBody,
        response: { 201: LoyaltyTier },
      },
    },
    async (request, reply) => reply.code(201).send(await tiers.create(authOf(request).organizationId, request.body)),
  );

  app.get(
    '/loyalty-tiers/:id',
    {
      config: read,
      schema: {
        operationId: 'getLoyaltyTier',
        summary: 'One loyalty tier',
        tags,
        params: IdParams,
        response: { 200: LoyaltyTier },
      },
    },
    async (request) => tiers.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/loyalty-tiers/:id',
    {
      config: { ...write, refusals: { 409: 'the program already has a tier at this threshold' } },
      schema: {
        operationId: 'updateLoyaltyTier',
        summary: 'Change a tier; a new threshold recalculates members at once; triggers loyaltyTier.updated',
        tags,
        params: IdParams,
        body: TierBody,
        response: { 200: LoyaltyTier },
      },
    },
    async (request) => tiers.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/loyalty-tiers/:id',
    {
      config: { ...write, refusals: { 409: 'members hold the tier' } },
      schema: {
        operationId: 'deleteLoyaltyTier',
        summary: 'Delete a tier (409 while members hold it); triggers loyaltyTier.deleted',
        tags,
        params: IdParams,
        response: { 200: LoyaltyTier },
      },
    },
    async (request) => tiers.delete(authOf(request).organizationId, request.params.id),
  );
}
