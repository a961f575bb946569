import type { Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';

export interface ActivityEntry {
  membershipId: string;
  customerId: string;
  /** joined, rejoined, left, tierChanged, rewardIssued, rewardRedeemed, rewardRevoked, rewardExpired… */
  type: string;
  reason?: string | null;
  rewardId?: string | null;
  transactionId?: string | null;
  tierId?: string | null;
  data?: Record<string, unknown>;
}

/** Writes entries to the members' activity feed (what is not a points movement; the ledger holds those). */
export async function recordActivity(
  trx: Transaction<DB>,
  organizationId: string,
  entries: readonly ActivityEntry[],
): Promise<void> {
  if (entries.length === 0) return;
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
        loyalty_reward_id: entry.rewardId ?? null,
        loyalty_transaction_id: entry.transactionId ?? null,
        loyalty_tier_id: entry.tierId ?? null,
        data: JSON.stringify(entry.data ?? {}),
      })),
    )
    .execute();
}
