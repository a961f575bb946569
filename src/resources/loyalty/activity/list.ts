import { sql } from 'kysely';
import type { ListDefinition } from '../../../lists/types.js';
import { membershipsByIds } from '../memberships/queries.js';
import { toCustomer } from '../../../records/customer.js';
import { customerSearchText, joinedCustomerFields } from '../../../records/customer.js';
import { toMembership } from '../../../records/loyalty/membership.js';
import { TRANSACTION_KINDS } from '../../../records/loyalty/transaction.js';

/** What GET /loyalty-activity (the points ledger) can filter, sort, search and include. */
export const activityList: ListDefinition = {
  name: 'loyalty activity',
  from: 'loyalty_transactions t',
  alias: 't',
  select: 't.*',
  joins: { customer: 'join customers c on c.organization_id = t.organization_id and c.id = t.customer_id' },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 't.id' },
    loyaltyMembershipId: { type: 'uuid', column: 't.loyalty_membership_id' },
    customerId: { type: 'uuid', column: 't.customer_id' },
    kind: { type: 'enum', column: 't.kind', enumValues: TRANSACTION_KINDS },
    points: { type: 'integer', column: 't.points' },
    balanceAfter: { type: 'integer', column: 't.balance_after' },
    reason: { type: 'string', column: 't.reason' },
    loyaltyRuleId: { type: 'uuid', column: 't.loyalty_rule_id' },
    loyaltyRewardId: { type: 'uuid', column: 't.loyalty_reward_id' },
    orderId: { type: 'uuid', column: 't.order_id' },
    eventName: { type: 'string', column: 't.event_name' },
    expiresAt: { type: 'timestamp', column: 't.expires_at' },
    metadata: { type: 'metadata', column: 't.metadata' },
    createdAt: { type: 'timestamp', column: 't.created_at' },
    ...joinedCustomerFields('t.customer_id'),
  },
  sorts: {
    createdAt: { column: 't.created_at', type: 'timestamp', nullable: false },
    points: { column: 't.points', type: 'integer', nullable: false },
    expiresAt: { column: 't.expires_at', type: 'timestamp', nullable: true },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`(t.reason ilike ${pattern} or exists (select 1 from customers sc
    where sc.organization_id = t.organization_id and sc.id = t.customer_id
      and ${customerSearchText('sc')} like lower(${pattern})))`,
  includes: {
    customer: {
      load: async ({ db, organizationId }, ids) => {
        const { rows } = await sql<{ transaction_id: string } & Parameters<typeof toCustomer>[0]>`
          select t.id as transaction_id, c.* from loyalty_transactions t
          join customers c on c.organization_id = t.organization_id and c.id = t.customer_id
          where t.organization_id = ${organizationId}::uuid and t.id = any(${[...ids]}::uuid[])`.execute(db);
        return new Map(rows.map(({ transaction_id: id, ...customer }) => [id, toCustomer(customer)]));
      },
      empty: () => null,
    },
    membership: {
      load: async ({ db, organizationId }, ids) => {
        const links = await db
          .selectFrom('loyalty_transactions')
          .select(['id', 'loyalty_membership_id'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', [...ids])
          .execute();
        const members = new Map(
          (
            await membershipsByIds(db, organizationId, [...new Set(links.map((link) => link.loyalty_membership_id))])
          ).map((row) => [row.id, toMembership(row)]),
        );
        return new Map(links.map((link) => [link.id, members.get(link.loyalty_membership_id)]));
      },
      empty: () => null,
    },
  },
};
