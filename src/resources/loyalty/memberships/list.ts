import { sql } from 'kysely';
import type { ListDefinition } from '../../../lists/types.js';
import { customersOfMemberships } from './queries.js';
import { customerSearchText, joinedCustomerFields } from '../../../records/customer.js';
import { ACTIVITY_KINDS } from '../../../records/loyalty/activity-entry.js';

const customerJoin = 'join customers c on c.organization_id = m.organization_id and c.id = m.customer_id';

/** What GET /loyalty-memberships can filter, sort, search and include. */
export const membershipList: ListDefinition = {
  name: 'loyalty memberships',
  from: 'loyalty_memberships m',
  alias: 'm',
  select: 'm.*',
  joins: { customer: customerJoin },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'm.id' },
    customerId: { type: 'uuid', column: 'm.customer_id' },
    loyaltyProgramId: { type: 'uuid', column: 'm.loyalty_program_id' },
    loyaltyTierId: { type: 'uuid', column: 'm.loyalty_tier_id' },
    tierAssignedManually: { type: 'boolean', column: 'm.tier_assigned_manually' },
    tierAttainedAt: { type: 'timestamp', column: 'm.tier_attained_at' },
    tierReviewAt: { type: 'timestamp', column: 'm.tier_review_at' },
    leftAt: { type: 'timestamp', column: 'm.left_at' },
    referralCode: { type: 'string', column: 'm.referral_code' },
    pointsBalance: { type: 'integer', column: 'm.points_balance' },
    lifetimePoints: { type: 'integer', column: 'm.lifetime_points' },
    createdAt: { type: 'timestamp', column: 'm.created_at' },
    updatedAt: { type: 'timestamp', column: 'm.updated_at' },
    ...joinedCustomerFields('m.customer_id'),
  },
  sorts: {
    createdAt: { column: 'm.created_at', type: 'timestamp', nullable: false },
    pointsBalance: { column: 'm.points_balance', type: 'integer', nullable: false },
    lifetimePoints: { column: 'm.lifetime_points', type: 'integer', nullable: false },
  },
  defaultSort: '-createdAt',
  // The referral code, or the member's customer by the customers search expression (its trigram index, 0006).
  search: (pattern) => sql`(m.referral_code ilike ${pattern} or exists (select 1 from customers sc
    where sc.organization_id = m.organization_id and sc.id = m.customer_id
      and ${customerSearchText('sc')} like lower(${pattern})))`,
  includes: {
    customer: {
      load: ({ db, organizationId }, ids) => customersOfMemberships(db, organizationId, ids),
      empty: () => null,
    },
  },
};

/**
 * What GET /loyalty-memberships/{id}/activity (the member activity feed) can filter and sort: kind and occurredAt,
 * newest first, through the one list engine like every list (docs/api.md#member-activity-feed). The feed's index
 * (organization, membership, time, id) serves its pages.
 */
export const memberActivityList: ListDefinition = {
  name: 'member activity',
  from: 'loyalty_activity a',
  alias: 'a',
  select: 'a.*',
  joins: {},
  relations: {},
  fields: {
    kind: { type: 'enum', column: 'a.type', enumValues: ACTIVITY_KINDS },
    occurredAt: { type: 'timestamp', column: 'a.created_at' },
  },
  sorts: {
    occurredAt: { column: 'a.created_at', type: 'timestamp', nullable: false },
  },
  defaultSort: '-occurredAt',
  includes: {},
};

/** The feed with the membership it belongs to, which the route ANDs into the caller's filter (not offered to them). */
export const scopedMemberActivityList: ListDefinition = {
  ...memberActivityList,
  fields: { ...memberActivityList.fields, loyaltyMembershipId: { type: 'uuid', column: 'a.loyalty_membership_id' } },
};
