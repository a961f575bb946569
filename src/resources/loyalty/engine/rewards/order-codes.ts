import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { normalizeCode } from '../codes.js';
import { moveReward } from './transitions.js';
import type { RewardRow } from '../../../../records/loyalty/reward.js';

export interface OrderCodes {
  orderId: string;
  codes: readonly string[];
}

/**
 * A reward code among an imported order's discountCodes is redeemed as POST /loyalty-rewards/redeem would, naming that
 * order (docs/api.md#redeeming-codes-on-imported-orders). Codes that match no pending reward (a store's own coupons, a
 * code already redeemed by an earlier sync of the same order) are left alone: an import never fails over them. A
 * pending reward whose time ran out is expired instead, exactly as the redeem endpoint does. Returns how many rewards
 * were redeemed.
 */
export async function redeemOrderCodes(
  trx: Transaction<DB>,
  organizationId: string,
  orders: readonly OrderCodes[],
): Promise<number> {
  const orderByCode = new Map<string, string>();
  for (const order of orders) {
    for (const code of order.codes.map(normalizeCode)) if (!orderByCode.has(code)) orderByCode.set(code, order.orderId);
  }
  if (orderByCode.size === 0) return 0;
  // Locked in id order so two imports naming the same codes cannot deadlock; a concurrent redeem waits or wins (a
  // row it redeemed meanwhile no longer passes `status = 'pending'` once the lock is granted, so it is not returned).
  const { rows } = await sql<RewardRow>`
    select * from loyalty_rewards
    where organization_id = ${organizationId}::uuid and code = any(${[...orderByCode.keys()]}::text[]) and status = 'pending'
    order by id
    for update`.execute(trx);
  let redeemed = 0;
  for (const row of rows) {
    const outcome = await moveReward(trx, organizationId, row, 'redeemed', { orderId: orderByCode.get(row.code!) });
    if (!outcome.lapsed) redeemed += 1;
  }
  return redeemed;
}
