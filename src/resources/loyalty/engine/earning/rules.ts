import type { Transaction } from 'kysely';
import type { DB, LoyaltyRulesTable } from '../../../../db/schema.js';
import type { Executor } from '../../../../db/executor.js';
import type { Reward } from '../../../../records/loyalty/reward-object.js';
import type { RuleRow } from '../../../../records/loyalty/rule.js';

const MAX_POINTS = Number.MAX_SAFE_INTEGER;

/**
 * The live, active rules of a program's sections, e.g. every earning rule on an order (earning and claiming use
 * it), in creation order.
 */
export const activeRules = (
  db: Executor,
  organizationId: string,
  programId: string,
  sections: LoyaltyRulesTable['section'] | readonly LoyaltyRulesTable['section'][],
) =>
  db
    .selectFrom('loyalty_rules')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('loyalty_program_id', '=', programId)
    .where('section', 'in', typeof sections === 'string' ? [sections] : sections)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** Config shapes as loyalty-rules/config.ts stores them (defaults written out). */
export interface OrderSpendConfig {
  type: 'orderSpend';
  pointsPerUnit: number;
  unitCents: number;
  minimumOrderTotalCents: number | null;
}
export interface EventConfig {
  type: 'event';
  eventName: string;
  points: number;
  frequency: 'once' | 'oncePerYear' | 'unlimited';
}
export interface MultiplierConfig {
  type: 'pointsMultiplier';
  multiplier: number;
  startsAt: string;
  endsAt: string;
}
export interface RewardOfferConfig {
  type: 'reward';
  reward: Reward;
  startsAt: string;
  endsAt: string;
}
export interface StampCardConfig {
  stampsRequired: number;
  reward: Reward;
  stampsPerOrder: number;
  minimumOrderTotalCents: number | null;
}

export type Rule<C> = RuleRow & { config: C };

/** What earning needs of one program's configuration: its active rules, by kind. */
export interface EarningConfig {
  orderSpend: Rule<OrderSpendConfig>[];
  events: Rule<EventConfig>[];
  multipliers: Rule<MultiplierConfig>[];
  rewardOffers: Rule<RewardOfferConfig>[];
  stampCards: Rule<StampCardConfig>[];
}

const ofType = <C>(rules: RuleRow[], type: string) => rules.filter((rule) => rule.config.type === type) as Rule<C>[];

/** The program's active earning, offer and stamp-card rules, in creation order. */
export async function earningConfig(
  trx: Transaction<DB>,
  organizationId: string,
  programId: string,
  sections: { stampCards?: boolean } = {},
): Promise<EarningConfig> {
  const all = await activeRules(
    trx,
    organizationId,
    programId,
    sections.stampCards === false ? ['rules', 'offers'] : ['rules', 'offers', 'stampCards'],
  );
  const rules = all.filter((rule) => rule.section === 'rules');
  const offers = all.filter((rule) => rule.section === 'offers');
  return {
    orderSpend: ofType(rules, 'orderSpend'),
    events: ofType(rules, 'event'),
    multipliers: ofType(offers, 'pointsMultiplier'),
    rewardOffers: ofType(offers, 'reward'),
    stampCards: all.filter((rule) => rule.section === 'stampCards') as Rule<StampCardConfig>[],
  };
}

/** An offer's window is [startsAt, endsAt). */
export const inWindow = (config: { startsAt: string; endsAt: string }, at: Date) =>
  at.getTime() >= Date.parse(config.startsAt) && at.getTime() < Date.parse(config.endsAt);

/**
 * Multipliers do not stack: the highest pointsMultiplier offer whose window holds `at` applies, in hundredths (the
 * config's precision), so the arithmetic stays exact.
 */
export function multiplierAt(config: EarningConfig, at: Date): number {
  let best = 100;
  for (const offer of config.multipliers) {
    if (inWindow(offer.config, at)) best = Math.max(best, Math.round(offer.config.multiplier * 100));
  }
  return best;
}

/** floor(points × multiplier), capped at 2^53-1. */
export function multiplied(points: number, hundredths: number): number {
  const value = (BigInt(points) * BigInt(hundredths)) / 100n;
  return value > BigInt(MAX_POINTS) ? MAX_POINTS : Number(value);
}

/** An orderSpend rule's base points for an order total: floor(total / unitCents) × pointsPerUnit (0 below the minimum). */
export function orderPoints(config: OrderSpendConfig, totalCents: number): number {
  if (config.minimumOrderTotalCents !== null && totalCents < config.minimumOrderTotalCents) return 0;
  const value = BigInt(Math.floor(totalCents / config.unitCents)) * BigInt(config.pointsPerUnit);
  return value > BigInt(MAX_POINTS) ? MAX_POINTS : Number(value);
}

/** The year of `at` on the organization's clock (oncePerYear counts calendar years there). */
export function localYear(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric' }).format(at);
}

/**
 * The ledger source key of an event rule's credit, which is what enforces the rule's frequency: `once` is one key
 * for ever, `oncePerYear` one per local calendar year, `unlimited` only the caller's key (none: every report earns).
 */
export function eventSourceKey(
  rule: Rule<EventConfig>,
  at: Date,
  timeZone: string,
  key: string | undefined,
): string | null {
  const base = `event:${rule.config.eventName}:rule:${rule.id}`;
  switch (rule.config.frequency) {
    case 'once':
      return base;
    case 'oncePerYear':
      return `${base}:year:${localYear(at, timeZone)}`;
    case 'unlimited':
      return key === undefined ? null : `${base}:key:${key}`;
  }
}
