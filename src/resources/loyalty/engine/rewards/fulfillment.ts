import { type CouponReward, type Fulfillment } from '../../../../records/loyalty/reward-object.js';

/** Why a reward stops being usable at checkout. */
export type Deactivation = 'redeemed' | 'revoked' | 'expired';

/**
 * How a reward's code is honored at checkout (service.md fulfillment object). A store integration implements this
 * with `mode: 'platform'`: create the discount or gift card on the store when a reward is issued (answering
 * `pending` while queued, `active` once live, `failed` with a note when the store refuses it), and switch it off
 * when the reward is redeemed, revoked or expired. Both calls run inside the reward's transaction, so they must
 * only compute the new state (and queue any store call), never wait on the store.
 */
export interface FulfillmentProvider {
  /** The fulfillment of a newly issued reward, or null when there is nothing to fulfil. */
  issue(reward: CouponReward, context: { organizationId: string; code: string }): Fulfillment | null;
  /** The fulfillment once the reward has left pending. */
  deactivate(fulfillment: Fulfillment | null, reason: Deactivation): Fulfillment | null;
}

/** What the manual provider tells the merchant: there is no store to create the discount on. */
export const MANUAL_NOTE = 'No store connection: apply the code by hand at checkout.';

/**
 * The default while no store is connected: the merchant applies the code by hand, so the code is live (`active`)
 * from the moment it is issued and switched off (`deactivated`) when it is redeemed, revoked or expires.
 */
export const manualFulfillment: FulfillmentProvider = {
  issue: () => ({
    mode: 'manual',
    status: 'active',
    platformDiscountId: null,
    platformDiscountGid: null,
    shop: null,
    note: MANUAL_NOTE,
  }),
  deactivate: (fulfillment) => (fulfillment === null ? null : { ...fulfillment, status: 'deactivated' }),
};
