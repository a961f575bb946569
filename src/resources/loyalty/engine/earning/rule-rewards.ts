import type { Transaction } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { issueExpiry, issueRewards, type Issued, type IssueRequest } from '../rewards/issue.js';
import { loadMembers } from '../rewards/queries.js';
import type { CouponReward } from '../../../../records/loyalty/reward-object.js';
import type { RuleRow } from '../../../../records/loyalty/rule.js';

export interface RuleGrant {
  /** The reward's id when the caller has already recorded it (a full stamp card names its reward); default new. */
  id?: string | undefined;
  /** A member the caller has locked. */
  membershipId: string;
  rule: RuleRow;
  reward: CouponReward;
  stampCardId?: string | undefined;
  reason: string;
}

/**
 * Issues rules' rewards to members (full stamp cards, reward offers) in one statement: loyaltyRuleId and ruleSnapshot
 * name each rule as it is now. A reward that would be born expired (a fixedDate already past) is not issued
 * (undefined at its place): an order import or a stamp must not fail on a stale rule.
 */
export async function issueRuleRewards(
  trx: Transaction<DB>,
  organizationId: string,
  grants: readonly RuleGrant[],
  now: Date,
): Promise<(Issued | undefined)[]> {
  if (grants.length === 0) return [];
  const members = await loadMembers(
    trx,
    organizationId,
    grants.map((grant) => grant.membershipId),
    'none',
  );
  const requests = grants.map((grant): IssueRequest => {
    const member = members.get(grant.membershipId);
    if (!member) throw new Error(`issueRuleRewards: membership ${grant.membershipId} vanished inside its own lock`);
    const { rule } = grant;
    return {
      spec: {
        id: grant.id,
        loyaltyMembershipId: grant.membershipId,
        reward: grant.reward,
        loyaltyRuleId: rule.id,
        ruleSnapshot: { id: rule.id, name: rule.name, section: rule.section, config: rule.config },
        stampCardId: grant.stampCardId ?? null,
        reason: grant.reason,
      },
      member,
      rule: { id: rule.id, name: rule.name, section: rule.section },
    };
  });
  const live = requests.map((request) => {
    const expiresAt = issueExpiry(request, now);
    return !expiresAt || expiresAt.getTime() > now.getTime();
  });
  const issued = await issueRewards(
    trx,
    organizationId,
    requests.filter((_, index) => live[index]),
    { now },
  );
  let next = 0;
  return live.map((isLive) => (isLive ? issued[next++] : undefined));
}
