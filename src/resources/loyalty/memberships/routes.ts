import Type from 'typebox';
import { checkCreateBody } from '../../../resource-kit/body.js';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../../quick-filters/index.js';
import { authOf } from '../../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { includeSchema, listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams, ImportCounts, SkippedRow } from '../../../records/common.js';
import { memberActivityList, membershipList } from './list.js';
import {
  MembershipImportBody,
  MembershipPatchBody,
  JoinCreateBody,
  PointsAdjustmentCreateBody,
  JOIN_REQUIRED,
  POINTS_ADJUSTMENT_REQUIRED,
} from './schemas.js';
import { LoyaltyMembershipService } from './service.js';
import { EmbeddedCustomer } from '../../../records/customer.js';
import { LoyaltyMembership } from '../../../records/loyalty/membership.js';
import { LoyaltyTransaction } from '../../../records/loyalty/transaction.js';
import { LoyaltyActivityEntry } from '../../../records/loyalty/activity-entry.js';

const tags = ['loyalty-memberships'];
/** A membership as lists and GET return it: include=customer adds the embedded customer. */
export const MembershipWithExtras = Type.Object(
  { ...LoyaltyMembership.properties, customer: Type.Optional(EmbeddedCustomer) },
  { additionalProperties: false },
);

export function membershipRoutes(app: PatronApp, { db }: PlatformServices): void {
  const memberships = new LoyaltyMembershipService(db);
  const read = { permission: 'loyalty:read', cost: 1 };
  const write = { permission: 'loyalty:write', cost: 1 };

  app.get(
    '/loyalty-memberships',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listLoyaltyMemberships',
        summary: 'List loyalty memberships, newest first by default (include: customer)',
        tags,
        querystring: listQuerySchema(membershipList, { quickFilter: true }),
        response: { 200: listEnvelope(MembershipWithExtras) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return memberships.list(
        organizationId,
        await withQuickFilter(db, organizationId, 'loyalty-memberships', membershipList, request.query),
      );
    },
  );

  app.post(
    '/loyalty-memberships',
    {
      config: {
        checkBody: checkCreateBody(JOIN_REQUIRED, 'membership'),
        ...write,
        refusals: {
          409: 'the customer is already an active member',
          422: 'customerId or loyaltyProgramId names no record of the organization',
        },
      },
      schema: {
        operationId: 'joinLoyaltyProgram',
        summary:
          'A customer joins a program (201); a member who left is restored with their balances (200); triggers loyaltyMembership.created',
        tags,
        body: JoinCreateBody,
        response: { 200: LoyaltyMembership, 201: LoyaltyMembership },
      },
    },
    async (request, reply) => {
      const { membership, created } = await memberships.join(authOf(request).organizationId, request.body);
      return reply.code(created ? 201 : 200).send(membership);
    },
  );

  app.post(
    '/loyalty-memberships/import',
    {
      config: {
        permission: 'loyalty:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a customer, program or tier that does not exist' },
      },
      schema: {
        operationId: 'importLoyaltyMemberships',
        summary:
          'Create or update memberships (rows: customer, loyaltyProgramId, pointsBalance, loyaltyTierId); at most 1,000 rows',
        tags,
        body: MembershipImportBody,
        response: {
          200: Type.Object({ data: Type.Array(LoyaltyMembership), skipped: Type.Array(SkippedRow), ...ImportCounts }),
        },
      },
    },
    async (request) => memberships.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/loyalty-memberships/:id',
    {
      config: read,
      schema: {
        operationId: 'getLoyaltyMembership',
        summary: 'One loyalty membership (include: customer)',
        tags,
        params: IdParams,
        querystring: Type.Object(
          { include: Type.Optional(includeSchema(membershipList)) },
          { additionalProperties: false },
        ),
        response: { 200: MembershipWithExtras },
      },
    },
    async (request) => memberships.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.get(
    '/loyalty-memberships/:id/activity',
    {
      config: read,
      schema: {
        operationId: 'listLoyaltyMemberActivity',
        summary:
          "The member's activity feed: every change of their standing (joining, points, rewards, stamps, tiers, referrals), newest first (filter kind, occurredAt)",
        tags,
        params: IdParams,
        querystring: listQuerySchema(memberActivityList),
        response: { 200: listEnvelope(LoyaltyActivityEntry) },
      },
    },
    async (request) => memberships.activity(authOf(request).organizationId, request.params.id, request.query),
  );

  app.patch(
    '/loyalty-memberships/:id',
    {
      config: {
        ...write,
        refusals: {
          409: 'tierAssignedManually true for a member without a tier',
          422: "loyaltyTierId names no tier of the member's program",
        },
      },
      schema: {
        operationId: 'updateLoyaltyMembership',
        summary:
          'Pin a tier (loyaltyTierId, or tierAssignedManually true) or unpin it (tierAssignedManually false: recalculated at once); a new tier triggers loyaltyMembership.tierChanged',
        tags,
        params: IdParams,
        body: MembershipPatchBody,
        response: { 200: LoyaltyMembership },
      },
    },
    async (request) => memberships.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.post(
    '/loyalty-memberships/:id/leave',
    {
      config: { ...write, refusals: { 409: 'the member has already left' } },
      schema: {
        operationId: 'leaveLoyaltyProgram',
        summary: 'The member leaves (leftAt set; balances kept for a rejoin); 409 if already left',
        tags,
        params: IdParams,
        response: { 200: LoyaltyMembership },
      },
    },
    async (request) => memberships.leave(authOf(request).organizationId, request.params.id),
  );

  app.delete(
    '/loyalty-memberships/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteLoyaltyMembership',
        summary:
          'Delete a membership with its points ledger, rewards and stamp cards; triggers loyaltyMembership.deleted',
        tags,
        params: IdParams,
        response: { 200: LoyaltyMembership },
      },
    },
    async (request) => memberships.delete(authOf(request).organizationId, request.params.id),
  );
}

/**
 * POST /loyalty-memberships/{id}/points-adjustments. It is listed in the API document under the loyalty-points tag, as
 * before the membership routes were gathered here, so the document stays as published.
 */
export function pointsAdjustmentRoute(app: PatronApp, { db }: PlatformServices): void {
  const memberships = new LoyaltyMembershipService(db);

  app.post(
    '/loyalty-memberships/:id/points-adjustments',
    {
      config: {
        checkBody: checkCreateBody(POINTS_ADJUSTMENT_REQUIRED, 'points adjustment'),
        permission: 'loyalty:write',
        cost: 1,
        refusals: { 409: 'the member has left, or the balance would go below 0 or above 2^53-1' },
      },
      schema: {
        operationId: 'adjustLoyaltyPoints',
        summary:
          'Add or remove points by hand (never below 0: 409); triggers loyaltyTransaction.created (and loyaltyMembership.tierChanged on a new tier)',
        tags: ['loyalty-points'],
        params: IdParams,
        body: PointsAdjustmentCreateBody,
        response: { 200: LoyaltyTransaction },
      },
    },
    async (request) => memberships.adjustPoints(authOf(request).organizationId, request.params.id, request.body),
  );
}
