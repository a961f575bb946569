import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { recordEvents, SQL_UUID_V7, type EventToRecord } from '../../../events/outbox.js';
import { lockMemberships } from './locks.js';
import { transactionEvent, type TransactionRow } from '../../../records/loyalty/transaction.js';

export interface ExpiredPoints {
  transactions: TransactionRow[];
  events: EventToRecord[];
}

/**
 * Lapses what is left of some members' credits: the credits matching `credits` (a condition on alias `t`) are
 * zeroed, and each member gets one `expired` entry for the sum, with the balance lowered by exactly that (credits
 * hold sum(remaining) = balance, so it never goes below 0). Members who left expire too. The members are locked
 * first, in id order, as the ledger locks them, so this never deadlocks with a spend; `skipLocked` leaves members
 * busy in a request for a later batch (the overnight job) instead of waiting.
 */
export async function expireCredits(
  trx: Transaction<DB>,
  organizationId: string,
  membershipIds: readonly string[],
  credits: RawBuilder<unknown>,
  reason: string,
  options: { skipLocked?: boolean } = {},
): Promise<ExpiredPoints> {
  if (membershipIds.length === 0) return { transactions: [], events: [] };
  const locked = await lockMemberships(trx, organizationId, membershipIds, { skipLocked: options.skipLocked ?? false });
  if (locked.length === 0) return { transactions: [], events: [] };
  const { rows } = await sql<TransactionRow>`
    with due as (
      select t.id, t.loyalty_membership_id, t.remaining from loyalty_transactions t
      where t.organization_id = ${organizationId}::uuid and t.loyalty_membership_id = any(${locked}::uuid[])
        and t.remaining > 0 and (${credits})
      for update
    ),
    zeroed as (
      update loyalty_transactions t set remaining = 0 from due
      where t.organization_id = ${organizationId}::uuid and t.id = due.id
      returning due.loyalty_membership_id, due.remaining
    ),
    totals as (select loyalty_membership_id, sum(remaining) as total from zeroed group by loyalty_membership_id),
    moved as (
      update loyalty_memberships m set points_balance = m.points_balance - t.total, updated_at = now()
      from totals t
      where m.organization_id = ${organizationId}::uuid and m.id = t.loyalty_membership_id
      returning m.id, m.customer_id, m.points_balance, t.total
    )
    insert into loyalty_transactions (organization_id, id, loyalty_membership_id, customer_id, kind, points, balance_after, reason, created_at)
    select ${organizationId}::uuid, ${SQL_UUID_V7}, m.id, m.customer_id, 'expired', -m.total, m.points_balance, ${reason}, now()
    from moved m
    returning *`.execute(trx);
  return { transactions: rows, events: rows.map((row) => transactionEvent(organizationId, row)) };
}

const BATCH = 1000;

/**
 * The overnight points expiry: every credit with expiresAt ≤ now lapses, up to `batchSize` members per short
 * transaction (with its events), so no lock is held for long. Returns the members and points expired.
 */
export async function expireDuePoints(db: Kysely<DB>, organizationId: string, now: Date, batchSize = BATCH) {
  let members = 0;
  let points = 0;
  let after: string | null = null;
  for (;;) {
    const { rows: due } = await sql<{ id: string }>`
      select distinct loyalty_membership_id as id from loyalty_transactions
      where organization_id = ${organizationId}::uuid and remaining > 0 and expires_at <= ${now}::timestamptz
        and (${after}::uuid is null or loyalty_membership_id > ${after}::uuid)
      order by 1 limit ${batchSize}`.execute(db);
    if (due.length === 0) break;
    const expired = await db.transaction().execute(async (trx) => {
      const result = await expireCredits(
        trx,
        organizationId,
        due.map((row) => row.id),
        sql`t.expires_at <= ${now}::timestamptz`,
        'Points expired',
        {
          skipLocked: true,
        },
      );
      await recordEvents(trx, result.events);
      return result.transactions;
    });
    members += expired.length;
    points += expired.reduce((sum, row) => sum - row.points, 0);
    if (due.length < batchSize) break;
    after = due[due.length - 1]!.id;
  }
  return { members, points };
}
