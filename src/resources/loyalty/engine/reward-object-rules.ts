/**
 * What the loyalty domain does with a reward or expiry object (their shapes are in src/records/loyalty/reward-object.ts):
 * refuses points where a reward with a code is issued, normalises stored timestamps, and dates a reward's expiry.
 */
import { validationError } from '../../../core/errors.js';
import type { CouponReward, Expiry, Reward } from '../../../records/loyalty/reward-object.js';

/**
 * Rule 3: a points reward is refused where a reward with a code is issued (docs/api.md#issuing-a-reward-by-hand);
 * the message says where points go.
 */
export function refusePointsReward(reward: Reward, path: string): asserts reward is CouponReward {
  if (reward.type === 'points') {
    throw validationError(
      `Invalid request: ${path}.type "points" cannot be issued as a reward; add points with POST /v1/loyalty-memberships/{id}/points-adjustments.`,
      [{ path: `${path}.type`, message: 'points are added through a points adjustment, not issued as a reward' }],
    );
  }
}

/** Stored timestamps inside objects are normalised to UTC toISOString() (docs/api.md#timestamps). */
export function normalizeExpiry(expiry: Expiry): Expiry {
  return expiry.type === 'fixedDate'
    ? { type: 'fixedDate', expiresAt: new Date(expiry.expiresAt).toISOString() }
    : expiry;
}

export function normalizeReward<R extends Reward>(reward: R): R {
  return 'expiry' in reward && reward.expiry ? { ...reward, expiry: normalizeExpiry(reward.expiry) } : reward;
}

/**
 * When a reward issued at `issuedAt` stops being redeemable (docs/api.md#issuing-a-reward-by-hand): the explicit
 * expiresAt if given, else the reward's own expiry, else the program's default. null = never.
 */
export function rewardExpiresAt(
  issuedAt: Date,
  options: { expiresAt?: string | Date | null | undefined; rewardExpiry?: Expiry | undefined; programDefault: Expiry },
): Date | null {
  if (options.expiresAt !== undefined && options.expiresAt !== null) return new Date(options.expiresAt);
  const expiry = options.rewardExpiry ?? options.programDefault;
  switch (expiry.type) {
    case 'never':
      return null;
    case 'daysAfterIssuance':
      return new Date(issuedAt.getTime() + expiry.days * 86_400_000);
    case 'fixedDate':
      return new Date(expiry.expiresAt);
  }
}
