import { sql, type RawBuilder, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';
import { SQL_UUID_V7 } from '../../../events/outbox.js';
import type { ActivityKind } from '../../../records/loyalty/activity-entry.js';

export interface ActivityEntry {
  membershipId: string;
  customerId: string;
  type: ActivityKind;
  reason?: string | null;
  points?: number | null;
  rewardId?: string | null;
  transactionId?: string | null;
  tierId?: string | null;
  stampCardId?: string | null;
  /** When it happened, for history written with its own time; default now. */
  createdAt?: Date;
  data?: Record<string, unknown>;
}

/**
 * Writes entries to the members' activity feed (docs/api.md#member-activity-feed) in the caller's transaction, in one
 * statement however many: every change of a member's standing writes its entry with the change, so a change that
 * rolls back leaves none.
 */
export async function recordActivity(
  trx: Transaction<DB>,
  organizationId: string,
  entries: readonly ActivityEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const now = new Date();
  await trx
    .insertInto('loyalty_activity')
    .values(
      entries.map((entry) => ({
        organization_id: organizationId,
        id: uuidv7(),
        loyalty_membership_id: entry.membershipId,
        customer_id: entry.customerId,
        type: entry.type,
        reason: entry.reason ?? null,
        points: entry.points ?? null,
        loyalty_reward_id: entry.rewardId ?? null,
        loyalty_transaction_id: entry.transactionId ?? null,
        loyalty_tier_id: entry.tierId ?? null,
        stamp_card_id: entry.stampCardId ?? null,
        data: JSON.stringify(entry.data ?? {}),
        created_at: entry.createdAt ?? now,
      })),
    )
    .execute();
}

/**
 * The feed entries of ledger rows a statement has just written, as a data-modifying CTE body over `rows` (a CTE
 * returning loyalty_transactions columns): set-based writers (order import earning, bulk and overnight expiry) add
 * it to the statement that writes the ledger, so many members' entries cost no statement more
 * (docs/api.md#member-activity-feed).
 */
export const pointsActivityFrom = (organizationId: string, rows: RawBuilder<unknown>) => sql`
  insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, reason, points,
    loyalty_transaction_id, loyalty_reward_id, created_at)
  select ${organizationId}::uuid, ${SQL_UUID_V7}, w.loyalty_membership_id, w.customer_id,
    case w.kind when 'earned' then 'pointsEarned' when 'spent' then 'pointsSpent' when 'adjusted' then 'pointsAdjusted'
      else 'pointsExpired' end,
    w.reason, w.points, w.id, w.loyalty_reward_id, w.created_at
  from ${rows} w`;

/** An entry of a member whose customer the statement looks up (the caller knows only the membership). */
export interface MemberActivityEntry extends Omit<ActivityEntry, 'customerId' | 'createdAt'> {
  /** Given ahead when entries written in one statement must keep an order (ids sort entries of the same moment). */
  id?: string;
}

/**
 * Like recordActivity, for writers that hold membership ids only (stamping many members' cards, attributing many
 * referrals): one INSERT … SELECT, the customer read from the membership in the same statement.
 */
export async function recordMemberActivity(
  trx: Transaction<DB>,
  organizationId: string,
  entries: readonly MemberActivityEntry[],
  at: Date = new Date(),
): Promise<void> {
  if (entries.length === 0) return;
  const input = entries.map((entry) => ({
    id: entry.id ?? uuidv7(),
    membership_id: entry.membershipId,
    type: entry.type,
    reason: entry.reason ?? null,
    points: entry.points ?? null,
    reward_id: entry.rewardId ?? null,
    transaction_id: entry.transactionId ?? null,
    tier_id: entry.tierId ?? null,
    stamp_card_id: entry.stampCardId ?? null,
    data: entry.data ?? {},
  }));
  await sql`
    insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, reason, points,
      loyalty_reward_id, loyalty_transaction_id, loyalty_tier_id, stamp_card_id, data, created_at)
    select ${organizationId}::uuid, e.id, e.membership_id, m.customer_id, e.type, e.reason, e.points, e.reward_id,
      e.transaction_id, e.tier_id, e.stamp_card_id, e.data, ${at}::timestamptz
    from json_to_recordset(${JSON.stringify(input)}::json) as e(id uuid, membership_id uuid, type text, reason text,
      points bigint, reward_id uuid, transaction_id uuid, tier_id uuid, stamp_card_id uuid, data jsonb)
    join loyalty_memberships m on m.organization_id = ${organizationId}::uuid and m.id = e.membership_id`.execute(trx);
}
