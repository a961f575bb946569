import { sql } from 'kysely';
import type { ListDefinition } from '../../../../lists/types.js';
import { customersOfRewards, membershipsOfRewards, rulesOfRewards } from './queries.js';
import { EMAIL_OPT_OUT_SOURCES } from '../../../../records/customer.js';
import { customerSearchText, joinedCustomerFields } from '../../../../records/customer.js';
import { REWARD_STATUSES } from '../../../../records/loyalty/reward.js';

/**
 * What GET /loyalty-rewards can filter, sort, search and include (service.md Loyalty rewards table;
 * docs/api.md#lists).
 */
export const rewardList: ListDefinition = {
  name: 'loyalty rewards',
  from: 'loyalty_rewards r',
  alias: 'r',
  select: 'r.*',
  joins: {
    // A reward carries its membership's customer_id, so customer.* joins customers directly.
    customer: 'left join customers c on c.organization_id = r.organization_id and c.id = r.customer_id',
    // Deleted rules stay joinable: a reward keeps its rule (and rule.name filters) after the rule leaves configuration.
    rule: 'left join loyalty_rules lr on lr.organization_id = r.organization_id and lr.id = r.loyalty_rule_id',
  },
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'r.id' },
    loyaltyMembershipId: { type: 'uuid', column: 'r.loyalty_membership_id' },
    loyaltyRuleId: { type: 'uuid', column: 'r.loyalty_rule_id' },
    stampCardId: { type: 'uuid', column: 'r.stamp_card_id' },
    status: { type: 'enum', column: 'r.status', enumValues: REWARD_STATUSES },
    code: { type: 'string', column: 'r.code' },
    redeemedAt: { type: 'timestamp', column: 'r.redeemed_at' },
    expiresAt: { type: 'timestamp', column: 'r.expires_at' },
    revokedAt: { type: 'timestamp', column: 'r.revoked_at' },
    createdAt: { type: 'timestamp', column: 'r.created_at' },
    ...joinedCustomerFields('r.customer_id'),
    'customer.emailOptOut': { type: 'boolean', column: 'c.email_opt_out', join: 'customer' },
    'customer.emailOptOutSource': {
      type: 'enum',
      column: 'c.email_opt_out_source',
      join: 'customer',
      enumValues: EMAIL_OPT_OUT_SOURCES,
    },
    'customer.createdAt': { type: 'timestamp', column: 'c.created_at', join: 'customer' },
    'rule.id': { type: 'uuid', column: 'r.loyalty_rule_id' },
    'rule.name': { type: 'string', column: 'lr.name', join: 'rule' },
  },
  sorts: {
    createdAt: { column: 'r.created_at', type: 'timestamp', nullable: false },
    redeemedAt: { column: 'r.redeemed_at', type: 'timestamp', nullable: true },
    expiresAt: { column: 'r.expires_at', type: 'timestamp', nullable: true },
  },
  defaultSort: '-createdAt',
  // Search (docs/api.md#search): the code, and the customer's email, first and last name. Each side is served by a
  // trigram index: the code by loyalty_rewards_code_trgm; the customer by customers_search_trgm, whose expression
  // (which also holds the phone) is compared first so the index applies, then narrowed to the three fields. The
  // customers become an array computed once, so the OR is two index scans (BitmapOr) rather than a probe per reward.
  search: (pattern, organizationId) => sql`(lower(r.code) like lower(${pattern}) or r.customer_id = any(array(
    select s.id from customers s where s.organization_id = ${organizationId ?? sql`r.organization_id`}
      and ${customerSearchText('s')} like lower(${pattern})
      and (lower(s.email) || ' ' || coalesce(lower(s.first_name), '') || ' ' || coalesce(lower(s.last_name), '')) like lower(${pattern}))))`,
  includes: {
    customer: { load: ({ db, organizationId }, ids) => customersOfRewards(db, organizationId, ids), empty: () => null },
    membership: {
      load: ({ db, organizationId }, ids) => membershipsOfRewards(db, organizationId, ids),
      empty: () => null,
    },
    rule: { load: ({ db, organizationId }, ids) => rulesOfRewards(db, organizationId, ids), empty: () => null },
  },
};
