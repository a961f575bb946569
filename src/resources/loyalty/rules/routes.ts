import { authOf } from '../../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams } from '../../../records/common.js';
import { ruleList } from './list.js';
import { RuleBody, RuleCreateBody } from './schemas.js';
import { LoyaltyRuleService, readRuleCreate } from './service.js';
import { LoyaltyRule } from '../../../records/loyalty/rule.js';

const tags = ['loyalty-rules'];

export function ruleRoutes(app: PatronApp, { db }: PlatformServices): void {
  const rules = new LoyaltyRuleService(db);
  const read = { permission: 'loyalty:read', cost: 1 };
  const write = { permission: 'loyalty:write', cost: 1 };

  app.get(
    '/loyalty-rules',
    {
      config: read,
      schema: {
        operationId: 'listLoyaltyRules',
        summary: 'List loyalty rules, newest first by default',
        tags,
        querystring: listQuerySchema(ruleList),
        response: { 200: listEnvelope(LoyaltyRule) },
      },
    },
    async (request) => rules.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/loyalty-rules',
    {
      config: {
        ...write,
        refusals: { 422: 'loyaltyProgramId names no program of the organization' },
        checkBody: (body) => void readRuleCreate(body as RuleBody | undefined),
      },
      schema: {
        operationId: 'createLoyaltyRule',
        summary:
          'Create a rule in one of the sections rules, rewards, offers, stampCards (section, name, config required); triggers loyaltyRule.created',
        tags,
        body: RuleCreateBody,
        response: { 201: LoyaltyRule },
      },
    },
    async (request, reply) => reply.code(201).send(await rules.create(authOf(request).organizationId, request.body)),
  );

  app.get(
    '/loyalty-rules/:id',
    {
      config: read,
      schema: {
        operationId: 'getLoyaltyRule',
        summary: 'One loyalty rule',
        tags,
        params: IdParams,
        response: { 200: LoyaltyRule },
      },
    },
    async (request) => rules.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/loyalty-rules/:id',
    {
      config: write,
      schema: {
        operationId: 'updateLoyaltyRule',
        summary:
          "Change a rule's name, config, isActive or metadata (section and program are fixed); triggers loyaltyRule.updated",
        tags,
        params: IdParams,
        body: RuleBody,
        response: { 200: LoyaltyRule },
      },
    },
    async (request) => rules.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/loyalty-rules/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteLoyaltyRule',
        summary:
          'Remove a rule from configuration (rewards it issued keep pointing at it); triggers loyaltyRule.deleted',
        tags,
        params: IdParams,
        response: { 200: LoyaltyRule },
      },
    },
    async (request) => rules.delete(authOf(request).organizationId, request.params.id),
  );
}
