/**
 * What the Loyalty and Customers pages share: the organization's programs and tiers (for names), and the words for
 * rewards, expiries and activity kinds. Everything here renders API text as text.
 */
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import type { Schemas } from '@patron/client/browser';
import { useApi } from '../../api/session';
import { activeFormat, formatDateTime, formatInteger, formatMoney } from '../../lib/format';
import { instantToWallTime, wallTimeToInstant } from '../../lib/time';

export type Program = Schemas['LoyaltyProgram'];
export type Tier = Schemas['LoyaltyTier'];
export type Rule = Schemas['LoyaltyRule'];
export type Reward = Schemas['LoyaltyReward'];
export type Membership = Schemas['LoyaltyMembership'];
export type ActivityEntry = Schemas['LoyaltyActivityEntry'];
export type Customer = Schemas['Customer'];

export const PROGRAMS_KEY = ['loyalty-programs'] as const;
export const TIERS_KEY = ['loyalty-tiers'] as const;
export const RULES_KEY = ['loyalty-rules'] as const;
export const REWARDS_KEY = ['loyalty-rewards'] as const;
export const MEMBERSHIPS_KEY = ['loyalty-memberships'] as const;

/** Every program of the organization (organizations have a few), for names and pickers. */
export function usePrograms() {
  const api = useApi();
  return useQuery({
    queryKey: [...PROGRAMS_KEY, 'all'],
    queryFn: ({ signal }) => api.GET('/loyalty-programs', { params: { query: { limit: 250 } }, signal }),
    select: (page) => page.data,
  });
}

/** Every tier of the organization (a handful per program), for names. */
export function useTiers() {
  const api = useApi();
  return useQuery({
    queryKey: [...TIERS_KEY, 'all'],
    queryFn: ({ signal }) => api.GET('/loyalty-tiers', { params: { query: { limit: 250 } }, signal }),
    select: (page) => page.data,
  });
}

export const nameOf = <T extends { id: string; name: string }>(
  records: readonly T[] | undefined,
  id: string | null,
): string => (id === null ? '—' : (records?.find((record) => record.id === id)?.name ?? '…'));

type Loose = { type: string } & Record<string, unknown>;
const num = (value: unknown) => (typeof value === 'number' ? value : null);

/** An expiry object (never | daysAfterIssuance | daysAfterEarning | fixedDate) in words. */
export function describeExpiry(expiry: Loose | undefined | null): string {
  if (!expiry || expiry.type === 'never') return 'Never';
  if (expiry.type === 'daysAfterIssuance') return `${formatInteger(num(expiry.days))} days after issue`;
  if (expiry.type === 'daysAfterEarning') return `${formatInteger(num(expiry.days))} days after earning`;
  if (expiry.type === 'fixedDate') return `On ${formatDateTime(String(expiry.expiresAt))}`;
  return expiry.type;
}

/** A tier window (lifetime | rolling) in words. */
export function describeTierWindow(window: Loose): string {
  return window.type === 'rolling' ? `Rolling ${formatInteger(num(window.months))} months` : 'Lifetime points';
}

/** A reward object (service.md) in words: "15% off", "Free shipping (up to 15.00)". */
export function describeReward(reward: Loose): string {
  const minimum = num(reward.minimumOrderTotalCents);
  const onOrders = minimum ? ` on orders from ${formatMoney(minimum)}` : '';
  switch (reward.type) {
    case 'amountCoupon':
      return `${formatMoney(num(reward.amountCents))} off${onOrders}`;
    case 'percentageCoupon':
      return `${formatInteger(num(reward.percentageDiscount))}% off${onOrders}`;
    case 'freeShipping': {
      const maximum = num(reward.maximumValueCents);
      return maximum ? `Free shipping (up to ${formatMoney(maximum)})` : 'Free shipping';
    }
    case 'giftCard':
      return `Gift card of ${formatMoney(num(reward.amountCents))}`;
    case 'points':
      return `${formatInteger(num(reward.points))} points`;
    default:
      return reward.type;
  }
}

/** Light badges whose text meets AA contrast on their tint (light green and red do not). */
export const REWARD_STATUS_COLORS: Record<Reward['status'], string> = {
  pending: 'blue',
  redeemed: 'violet',
  expired: 'gray',
  revoked: 'pink',
};

export const ACTIVITY_KINDS: Record<ActivityEntry['kind'], string> = {
  joined: 'Joined',
  left: 'Left',
  rejoined: 'Rejoined',
  pointsEarned: 'Points earned',
  pointsSpent: 'Points spent',
  pointsAdjusted: 'Points adjusted',
  pointsExpired: 'Points expired',
  rewardIssued: 'Reward issued',
  rewardRedeemed: 'Reward redeemed',
  rewardRevoked: 'Reward revoked',
  rewardExpired: 'Reward expired',
  stampAdded: 'Stamp added',
  stampCardCompleted: 'Stamp card completed',
  tierChanged: 'Tier changed',
  referralAttributed: 'Referral attributed',
};

export const SECTION_LABELS: Record<Rule['section'], string> = {
  rules: 'Earning',
  rewards: 'Claimable reward',
  offers: 'Offer',
  stampCards: 'Stamp card',
};

/** A customer's name, or their email when the store gave no name. */
export function customerName(customer: Pick<Customer, 'firstName' | 'lastName' | 'email'>): string {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return name || customer.email;
}

/** A rule's config in a line: "1 point per 1.00", "Costs 200 points: Free shipping". */
export function describeRuleConfig(rule: Pick<Rule, 'section' | 'config'>): string {
  const config = rule.config as unknown as Record<string, unknown>;
  const reward = config.reward as Loose | undefined;
  switch (rule.section) {
    case 'rules':
      return config.type === 'orderSpend'
        ? `${formatInteger(num(config.pointsPerUnit))} per ${formatMoney(num(config.unitCents) ?? 100)} spent`
        : `${formatInteger(num(config.points))} for ${String(config.eventName)} (${String(config.frequency ?? 'once')})`;
    case 'rewards':
      return `Costs ${formatInteger(num(config.pointsCost))}: ${reward ? describeReward(reward) : '—'}`;
    case 'offers':
      return `${config.type === 'pointsMultiplier' ? `×${String(config.multiplier)} points` : reward ? describeReward(reward) : '—'}, ${formatDateTime(String(config.startsAt))} – ${formatDateTime(String(config.endsAt))}`;
    case 'stampCards':
      return `${formatInteger(num(config.stampsRequired))} stamps: ${reward ? describeReward(reward) : '—'}`;
    default:
      return '';
  }
}

/** An ISO instant as the value of an `<input type="datetime-local">` (the browser's time zone). */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  // A datetime-local input holds a wall-clock time: the organization's, as every time is shown.
  return instantToWallTime(iso, activeFormat().timeZone) ?? '';
}

/** A datetime-local input's value, read in the organization's zone, as an ISO instant ('' stays ''). */
export const fromLocalInput = (local: string): string =>
  local ? (wallTimeToInstant(local, activeFormat().timeZone) ?? local) : '';

/** The fields of `next` whose value differs from `current` (a PATCH sends only those; an empty one is refused). */
export function changedFields<T extends object>(next: T, current: object): Partial<T> {
  const changed: Partial<T> = {};
  for (const [key, value] of Object.entries(next) as [keyof T, unknown][]) {
    if (stableJson(value) !== stableJson((current as Record<keyof T, unknown>)[key]))
      changed[key] = value as T[keyof T];
  }
  return changed;
}

/** JSON with object keys sorted, so two equal values compare equal whatever their keys' order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** A success notice whose close button has a name (Mantine's has none of its own). */
export function notifySuccess(message: string): void {
  notifications.show({ color: 'green', message, closeButtonProps: { 'aria-label': 'Dismiss' } });
}

/** Names the close button of a Modal (Mantine's has none of its own): `<Modal {...CLOSE_LABEL}>`. */
export const CLOSE_LABEL = { closeButtonProps: { 'aria-label': 'Close' } } as const;
