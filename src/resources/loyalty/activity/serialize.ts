import type { Selectable } from 'kysely';
import type { LoyaltyTransactionsTable } from '../../../db/schema.js';
import { LoyaltyTransaction } from './schemas.js';

export type TransactionRow = Selectable<LoyaltyTransactionsTable>;

export const toTransaction = (row: TransactionRow): LoyaltyTransaction => ({
  id: row.id,
  loyaltyMembershipId: row.loyalty_membership_id,
  customerId: row.customer_id,
  kind: row.kind,
  points: row.points,
  balanceAfter: row.balance_after,
  reason: row.reason,
  loyaltyRuleId: row.loyalty_rule_id,
  loyaltyRewardId: row.loyalty_reward_id,
  orderId: row.order_id,
  eventName: row.event_name,
  expiresAt: row.expires_at?.toISOString() ?? null,
  metadata: row.metadata,
  createdAt: row.created_at.toISOString(),
});

export const transactionEvent = (organizationId: string, row: TransactionRow) => ({
  organizationId,
  name: 'loyaltyTransaction.created',
  schema: LoyaltyTransaction,
  record: toTransaction(row),
});
