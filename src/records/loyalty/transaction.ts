/**
 * The loyalty transaction record (one entry of a member's points ledger, as GET /loyalty-activity serves it): its
 * response shape, the columns it is read from, the row→record mapping, its event.
 */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { LoyaltyTransactionsTable } from '../../db/schema.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { Metadata, Timestamp, Uuid } from '../common.js';

export const TRANSACTION_KINDS = ['earned', 'spent', 'adjusted', 'expired'] as const;

/** One entry of a member's points ledger (docs/api.md#loyalty-activity): earned, spent, adjusted or expired. */
export const LoyaltyTransaction = Type.Object(
  {
    id: Uuid,
    loyaltyMembershipId: Uuid,
    customerId: Uuid,
    kind: Type.Union([
      Type.Literal('earned'),
      Type.Literal('spent'),
      Type.Literal('adjusted'),
      Type.Literal('expired'),
    ]),
    points: Type.Integer({ description: 'Signed: positive credits, negative debits; never 0.' }),
    balanceAfter: Type.Integer({ minimum: 0, description: "The member's balance right after this entry." }),
    reason: Type.Union([Type.String(), Type.Null()]),
    loyaltyRuleId: Type.Union([Uuid, Type.Null()], {
      description: 'The earning rule (or claimed rewards rule) behind it.',
    }),
    loyaltyRewardId: Type.Union([Uuid, Type.Null()], { description: 'The reward paid for with these points.' }),
    orderId: Type.Union([Uuid, Type.Null()], { description: 'The order that earned these points.' }),
    eventName: Type.Union([Type.String(), Type.Null()], {
      description: 'The named event that earned them (POST /loyalty-events).',
    }),
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'For credits: when what is left of them lapses; null = never.',
    }),
    metadata: Metadata,
    createdAt: Timestamp,
  },
  { $id: 'LoyaltyTransaction', additionalProperties: false },
);
export type LoyaltyTransaction = Static<typeof LoyaltyTransaction>;

export type TransactionRow = Selectable<LoyaltyTransactionsTable>;

/** The columns toTransaction reads. */
export const TRANSACTION_COLUMNS = [
  'id',
  'loyalty_membership_id',
  'customer_id',
  'kind',
  'points',
  'balance_after',
  'reason',
  'loyalty_rule_id',
  'loyalty_reward_id',
  'order_id',
  'event_name',
  'expires_at',
  'metadata',
  'created_at',
] as const satisfies readonly (keyof TransactionRow)[];
export type LoyaltyTransactionFields = Pick<TransactionRow, (typeof TRANSACTION_COLUMNS)[number]>;

export const toTransaction = (row: LoyaltyTransactionFields): LoyaltyTransaction => ({
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

export const transactionEvent = (organizationId: string, row: LoyaltyTransactionFields): EventToRecord => ({
  organizationId,
  name: 'loyaltyTransaction.created',
  schema: LoyaltyTransaction,
  record: toTransaction(row),
});
