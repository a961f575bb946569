import type { Transaction } from 'kysely';
import type { DB, Metadata } from '../../../../db/schema.js';
import { earningConfig, eventSourceKey, multiplied, multiplierAt } from './rules.js';
import type { RuleOutcome } from '../schemas.js';
import type { MembershipRow } from '../../../../records/loyalty/membership.js';
import { creditPoints, repeatOf, type Credited } from '../ledger.js';

export interface NamedEvent {
  eventName: string;
  occurredAt: Date;
  key?: string | undefined;
  metadata?: Metadata | undefined;
}

export const organizationTimeZone = async (trx: Transaction<DB>, organizationId: string) =>
  (await trx.selectFrom('organizations').select('timezone').where('id', '=', organizationId).executeTakeFirstOrThrow())
    .timezone;

/**
 * A named event earns the points of every active event rule of the member's program with that name, multiplied by
 * the best points-multiplier offer running at occurredAt, each rule at most as often as its frequency allows (the
 * ledger's unique source key is the guard, so concurrent reports cannot both earn).
 */
export async function earnEvent(
  trx: Transaction<DB>,
  organizationId: string,
  member: MembershipRow,
  event: NamedEvent,
): Promise<{ rules: RuleOutcome[]; credited: Credited }> {
  const config = await earningConfig(trx, organizationId, member.loyalty_program_id, { stampCards: false });
  const rules = config.events.filter((rule) => rule.config.eventName === event.eventName);
  const timeZone = rules.some((rule) => rule.config.frequency === 'oncePerYear')
    ? await organizationTimeZone(trx, organizationId)
    : 'UTC';
  const hundredths = multiplierAt(config, event.occurredAt);
  const credits = rules.map((rule) => ({
    membershipId: member.id,
    points: multiplied(rule.config.points, hundredths),
    reason: `Event "${event.eventName}"`,
    key: eventSourceKey(rule, event.occurredAt, timeZone, event.key),
    ruleId: rule.id,
    eventName: event.eventName,
    metadata: event.metadata ?? {},
  }));
  const credited = await creditPoints(trx, organizationId, credits);
  const byRule = new Map(credited.transactions.map((row) => [row.loyalty_rule_id, row]));
  return {
    rules: credits.map((credit) => {
      const written = byRule.get(credit.ruleId);
      const earlier = repeatOf(credited, member.id, credit.key);
      return {
        loyaltyRuleId: credit.ruleId,
        outcome: written ? 'earned' : 'alreadyEarned',
        points: written?.points ?? 0,
        loyaltyTransactionId: written?.id ?? earlier ?? null,
      };
    }),
    credited,
  };
}
