import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { rewardExpiresAt, type CouponReward } from '../loyalty-common/reward-schemas.js';
import { issueReward, type Issued } from '../loyalty-rewards/issue.js';
import { loadMember, type Member } from '../loyalty-rewards/queries.js';
import type { RuleRow } from '../loyalty-rules/queries.js';

/**
 * Issues a rule's reward to a member the caller has locked (a full stamp card, a reward offer): loyaltyRuleId and
 * ruleSnapshot name the rule as it is now. A reward that would be born expired (a fixedDate already past) is not
 * issued (undefined): an order import or a stamp must not fail on a stale rule. `members` caches loaded members.
 */
export async function issueRuleReward(
  trx: Transaction<DB>,
  organizationId: string,
  membershipId: string,
  rule: RuleRow,
  reward: CouponReward,
  options: { stampCardId?: string; reason: string; now: Date; members: Map<string, Member> },
): Promise<Issued | undefined> {
  let member = options.members.get(membershipId);
  if (!member) {
    member = await loadMember(trx, organizationId, membershipId, 'none');
    if (!member) throw new Error(`issueRuleReward: membership ${membershipId} vanished inside its own lock`);
    options.members.set(membershipId, member);
  }
  const expiresAt = rewardExpiresAt(options.now, { rewardExpiry: reward.expiry, programDefault: member.programDefaultExpiry });
  if (expiresAt && expiresAt.getTime() <= options.now.getTime()) return undefined;
  return issueReward(
    trx,
    organizationId,
    {
      loyaltyMembershipId: membershipId,
      reward,
      loyaltyRuleId: rule.id,
      ruleSnapshot: { id: rule.id, name: rule.name, section: rule.section, config: rule.config },
      stampCardId: options.stampCardId ?? null,
      reason: options.reason,
    },
    { member, rule: { id: rule.id, name: rule.name, section: rule.section }, now: options.now },
  );
}
