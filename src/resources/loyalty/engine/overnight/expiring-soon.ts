import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { recordEvents } from '../../../../events/outbox.js';
import type { EventToRecord } from '../../../../core/event-to-record.js';
import { LoyaltyPointsExpiringSoon } from '../../../../records/loyalty/points-expiring-soon.js';
import { toReward, type RewardRow, rewardEvent } from '../../../../records/loyalty/reward.js';
import type { Logger } from '../../../../util/logger.js';
import { queuePointsExpiringSoonMails, queueRewardExpiringSoonMails } from '../mail.js';

const BATCH = 1000;

/**
 * Runs `step` in short transactions until a batch comes back smaller than the batch size. Each step marks what it
 * announced (expiring_soon_sent_at) in the same transaction as its events, so every item is announced once, even
 * across retries and several runners; rows a request holds are skipped (SKIP LOCKED) for a later night.
 */
async function inBatches(db: Kysely<DB>, step: (trx: Transaction<DB>) => Promise<number>, batchSize: number) {
  let total = 0;
  for (;;) {
    const done = await db.transaction().execute(step);
    total += done;
    if (done < batchSize) return total;
  }
}

/**
 * loyaltyReward.expiringSoon for pending rewards lapsing within `days` (once per reward), shaped as rewardEvent shapes
 * every loyaltyReward.* event, and with each its rewardExpiringSoon mail when the organization has an active template
 * of that kind (docs/api.md#mail), in the batch's transaction.
 */
export async function announceExpiringRewards(
  db: Kysely<DB>,
  organizationId: string,
  now: Date,
  days: number,
  batchSize = BATCH,
  logger?: Logger,
) {
  const until = new Date(now.getTime() + days * 86_400_000);
  return inBatches(
    db,
    async (trx) => {
      const { rows } = await sql<RewardRow>`
      with due as (
        select id from loyalty_rewards
        where organization_id = ${organizationId}::uuid and status = 'pending' and expires_at > ${now}::timestamptz
          and expires_at <= ${until}::timestamptz and expiring_soon_sent_at is null
        order by expires_at, id limit ${batchSize}
        for update skip locked
      )
      update loyalty_rewards r set expiring_soon_sent_at = ${now}::timestamptz from due
      where r.organization_id = ${organizationId}::uuid and r.id = due.id
      returning r.*`.execute(trx);
      if (rows.length === 0) return 0;
      rows.sort((a, b) => a.expires_at!.getTime() - b.expires_at!.getTime() || (a.id < b.id ? -1 : 1));
      await queueRewardExpiringSoonMails(trx, organizationId, rows, now, logger);
      await recordEvents(
        trx,
        rows.map((row) => rewardEvent(organizationId, 'loyaltyReward.expiringSoon', toReward(row))),
      );
      return rows.length;
    },
    batchSize,
  );
}

interface DueCredit {
  id: string;
  loyalty_membership_id: string;
  customer_id: string;
  remaining: number;
  expires_at: Date;
  points_balance: number;
}

/**
 * loyaltyPoints.expiringSoon: credits with points left that lapse within `days` are announced once each, grouped
 * into one event per member and batch (points = what is left of them, expiresAt = the earliest), and each event with
 * its pointsExpiringSoon mail when the organization has an active template of that kind (docs/api.md#mail).
 */
export async function announceExpiringPoints(
  db: Kysely<DB>,
  organizationId: string,
  now: Date,
  days: number,
  batchSize = BATCH,
  logger?: Logger,
) {
  const until = new Date(now.getTime() + days * 86_400_000);
  return inBatches(
    db,
    async (trx) => {
      const { rows } = await sql<DueCredit>`
      with due as (
        select id from loyalty_transactions
        where organization_id = ${organizationId}::uuid and remaining > 0 and expires_at > ${now}::timestamptz
          and expires_at <= ${until}::timestamptz and expiring_soon_sent_at is null
        order by expires_at, id limit ${batchSize}
        for update skip locked
      ),
      marked as (
        update loyalty_transactions t set expiring_soon_sent_at = ${now}::timestamptz from due
        where t.organization_id = ${organizationId}::uuid and t.id = due.id
        returning t.id, t.loyalty_membership_id, t.customer_id, t.remaining, t.expires_at
      )
      select k.*, m.points_balance from marked k
      join loyalty_memberships m on m.organization_id = ${organizationId}::uuid and m.id = k.loyalty_membership_id
      order by k.loyalty_membership_id, k.expires_at, k.id`.execute(trx);
      const byMember = new Map<string, DueCredit[]>();
      for (const row of rows)
        byMember.set(row.loyalty_membership_id, [...(byMember.get(row.loyalty_membership_id) ?? []), row]);
      const announcements = [...byMember.values()].map((credits): LoyaltyPointsExpiringSoon => ({
        loyaltyMembershipId: credits[0]!.loyalty_membership_id,
        customerId: credits[0]!.customer_id,
        points: credits.reduce((sum, credit) => sum + credit.remaining, 0),
        expiresAt: credits[0]!.expires_at.toISOString(),
        pointsBalance: credits[0]!.points_balance,
        credits: credits.map((credit) => ({
          loyaltyTransactionId: credit.id,
          points: credit.remaining,
          expiresAt: credit.expires_at.toISOString(),
        })),
      }));
      const events: EventToRecord[] = announcements.map((record) => ({
        organizationId,
        name: 'loyaltyPoints.expiringSoon',
        schema: LoyaltyPointsExpiringSoon,
        record,
      }));
      await queuePointsExpiringSoonMails(
        trx,
        organizationId,
        announcements.map((announced) => ({
          customerId: announced.customerId,
          loyaltyMembershipId: announced.loyaltyMembershipId,
          points: announced.points,
          expiresAt: new Date(announced.expiresAt),
        })),
        logger,
      );
      await recordEvents(trx, events);
      return rows.length;
    },
    batchSize,
  );
}
