import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { recordEvents } from '../../../../events/outbox.js';
import { conflict } from '../../../../core/errors.js';
import { loadIncludes, withIncludes } from '../../../../lists/engine.js';
import { manualFulfillment, type FulfillmentProvider } from './fulfillment.js';
import { rewardList } from './list.js';
import { recordActivity, type ActivityEntry } from '../activity.js';
import { expireRewards, lockDueRewards, transitionReward } from './queries.js';
import type { Fulfillment } from '../../../../records/loyalty/reward-object.js';
import { type LoyaltyReward, toReward, type RewardRow, rewardEvent } from '../../../../records/loyalty/reward.js';

export const FULL_EMBEDS = ['customer', 'membership', 'rule'] as const;

/** Rewards as the action responses show them: customer, membership and rule embedded. */
export async function withEmbeds(
  db: Kysely<DB>,
  organizationId: string,
  rows: readonly RewardRow[],
): Promise<LoyaltyReward[]> {
  const includes = await loadIncludes(
    rewardList,
    { db, organizationId },
    FULL_EMBEDS,
    rows.map((row) => row.id),
  );
  return rows.map((row) => withIncludes(rewardList, toReward(row), row.id, includes));
}

const ACTIVITY_TYPE = { redeemed: 'rewardRedeemed', revoked: 'rewardRevoked', expired: 'rewardExpired' } as const;

const activityOf = (row: RewardRow, status: keyof typeof ACTIVITY_TYPE, reason: string | null): ActivityEntry => ({
  membershipId: row.loyalty_membership_id,
  customerId: row.customer_id,
  type: ACTIVITY_TYPE[status],
  reason,
  rewardId: row.id,
  transactionId: null,
  data: { code: row.code, ...(row.order_id ? { orderId: row.order_id } : {}) },
});

/** `lapsed`: the reward had run out of time and was expired instead of moved. */
export interface Outcome {
  reward: LoyaltyReward;
  lapsed: boolean;
}

export const isLapsed = (row: RewardRow, now: Date) =>
  row.status === 'pending' && row.expires_at !== null && row.expires_at.getTime() <= now.getTime();

/**
 * Moves a locked reward out of pending (redeemed or revoked) with its activity entry and event
 * (docs/api.md#redeeming-and-revoking-rewards). Any other state is 409. A pending reward whose time has run out but
 * which the overnight sweep has not reached yet is expired now instead (with loyaltyReward.expired), and reported as
 * `lapsed` so the caller can commit that and answer 409: an expired reward is never redeemed, whether or not the sweep
 * got there first (docs/api.md#reward-expiry).
 */
export async function moveReward(
  trx: Transaction<DB>,
  organizationId: string,
  row: RewardRow,
  to: 'redeemed' | 'revoked',
  options: {
    now?: Date;
    orderId?: string | undefined;
    reason?: string | undefined;
    fulfillment?: FulfillmentProvider;
  } = {},
): Promise<Outcome> {
  const now = options.now ?? new Date();
  const provider = options.fulfillment ?? manualFulfillment;
  if (row.status !== 'pending') {
    const verb = to === 'redeemed' ? 'redeemed' : 'revoked';
    throw conflict(
      `The reward is ${row.status}${row.status === 'redeemed' && row.redeemed_at ? ` (since ${row.redeemed_at.toISOString()})` : ''}; only a pending reward can be ${verb}.`,
    );
  }
  if (isLapsed(row, now)) {
    const [expired] = await expireRows(trx, organizationId, [row], now, provider);
    return { reward: toReward(expired!), lapsed: true };
  }
  const updated = await transitionReward(trx, organizationId, row.id, {
    status: to,
    at: now,
    orderId: options.orderId,
    fulfillment: provider.deactivate(row.fulfillment as Fulfillment | null, to),
  });
  await recordActivity(trx, organizationId, [activityOf(updated, to, options.reason ?? null)]);
  const [reward] = await withEmbeds(trx, organizationId, [updated]);
  await recordEvents(trx, [
    rewardEvent(organizationId, to === 'redeemed' ? 'loyaltyReward.redeemed' : 'loyaltyReward.revoked', reward!),
  ]);
  return { reward: reward!, lapsed: false };
}

/** Expires locked pending rewards: one update, one feed insert and one event per reward, whatever their number. */
async function expireRows(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly RewardRow[],
  now: Date,
  provider: FulfillmentProvider,
): Promise<RewardRow[]> {
  const updated = await expireRewards(
    trx,
    organizationId,
    rows.map((row) => ({
      id: row.id,
      fulfillment: provider.deactivate(row.fulfillment as Fulfillment | null, 'expired'),
    })),
    now,
  );
  await recordActivity(
    trx,
    organizationId,
    updated.map((row) => activityOf(row, 'expired', null)),
  );
  await recordEvents(
    trx,
    updated.map((row) => rewardEvent(organizationId, 'loyaltyReward.expired', toReward(row))),
  );
  return updated;
}

/**
 * Reward expiry (docs/api.md#reward-expiry), one batch: up to `batchSize` pending rewards of the organization with
 * expiresAt ≤ now become expired, each with its activity entry and loyaltyReward.expired event, in a fixed number of
 * statements. Returns how many expired; the overnight job calls it in a fresh short transaction per batch until it
 * returns less than batchSize (expireAllDueRewards), so no lock is held for long. Rewards locked by a request in flight
 * are skipped, not waited for; if still due they are taken by a later batch or night, and a redeem of one meanwhile
 * expires it itself.
 * Keep batchSize ≤ 5,000: the batch's feed entries are one multi-row insert of 10 parameters a row.
 */
export async function expireDueRewards(
  trx: Transaction<DB>,
  organizationId: string,
  now: Date,
  batchSize: number,
  fulfillment: FulfillmentProvider = manualFulfillment,
): Promise<number> {
  const due = await lockDueRewards(trx, organizationId, now, batchSize);
  if (due.length === 0) return 0;
  return (await expireRows(trx, organizationId, due, now, fulfillment)).length;
}

/** Every due reward of the organization, batch by batch, each batch its own transaction; returns the total. */
export async function expireAllDueRewards(
  db: Kysely<DB>,
  organizationId: string,
  now: Date,
  batchSize = 1000,
): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await db.transaction().execute((trx) => expireDueRewards(trx, organizationId, now, batchSize));
    total += expired;
    if (expired < batchSize) return total;
  }
}
