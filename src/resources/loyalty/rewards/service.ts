import type { Kysely, Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import { conflict, notFound, unprocessable, validationError } from '../../../core/errors.js';
import { getRecord, listRecords } from '../../../lists/engine.js';
import type { ListParams } from '../../../lists/query.js';
import { unwrapData } from '../../../resource-kit/body.js';
import { requireFields } from '../body.js';
import { normalizeCode } from '../engine/codes.js';
import { normalizeReward, refusePointsReward } from '../engine/reward-object-rules.js';
import { applyPoints } from '../engine/ledger.js';
import { issueReward } from '../engine/rewards/issue.js';
import { rewardList } from '../engine/rewards/list.js';
import { findReward, findRule, loadMember, lockReward, orderExists } from '../engine/rewards/queries.js';
import {
  type ClaimBody,
  type IssueBody,
  type IssueFields,
  type RedeemBody,
  type RevokeBody,
  ISSUE_REQUIRED,
} from './schemas.js';
import { moveReward, type Outcome } from '../engine/rewards/transitions.js';
import { type CouponReward, type Reward } from '../../../records/loyalty/reward-object.js';
import { type LoyaltyReward, toReward } from '../../../records/loyalty/reward.js';

/** A lapsed reward was expired (and committed); the request that found it still fails. */
const lapsedConflict = (reward: LoyaltyReward, action: string) =>
  conflict(`The reward expired at ${reward.expiresAt}; an expired reward cannot be ${action}.`);

export class LoyaltyRewardService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, rewardList, organizationId, params, toReward);
  }

  async get(organizationId: string, id: string, include?: string): Promise<LoyaltyReward> {
    return getRecord(this.db, rewardList, organizationId, include, {
      find: () => findReward(this.db, organizationId, id),
      toRecord: toReward,
      missing: () => notFound('The loyalty reward'),
    });
  }

  /** Issues a reward by hand to one member, outside any rule (docs/api.md#issuing-a-reward-by-hand). */
  async issue(organizationId: string, body: IssueBody | undefined): Promise<LoyaltyReward> {
    const { fields, path } = unwrapData<IssueFields>(body, 'reward');
    requireFields(fields, ISSUE_REQUIRED, path);
    const reward = fields.reward as Reward;
    refusePointsReward(reward, `${path}.reward`);
    const now = new Date();
    const expiresAt = fields.expiresAt === undefined ? undefined : new Date(fields.expiresAt);
    checkFuture(expiresAt, `${path}.expiresAt`, now);
    if (reward.expiry?.type === 'fixedDate')
      checkFuture(new Date(reward.expiry.expiresAt), `${path}.reward.expiry.expiresAt`, now);

    // No explicit transaction: the member is read unlocked, and one statement writes the reward, its activity and
    // its event after re-checking that the membership still stands (insertIssuedReward).
    const member = await loadMember(this.db, organizationId, fields.loyaltyMembershipId!, 'none');
    if (!member) {
      throw unprocessable(
        `Invalid request: ${path}.loyaltyMembershipId names no loyalty membership of this organization.`,
        [{ path: `${path}.loyaltyMembershipId`, message: 'does not exist in this organization' }],
      );
    }
    const issued = await issueReward(
      this.db,
      organizationId,
      {
        loyaltyMembershipId: member.membership.id,
        reward: normalizeReward(reward),
        expiresAt,
        reason: fields.reason ?? null,
      },
      { member, now, recordEvents: true },
    );
    return issued.reward;
  }

  /**
   * A member claims a rule of the `rewards` section: the rule's pointsCost is spent through the ledger (a `spent`
   * transaction naming the reward; 409 when the balance is short) and the rule's reward is issued with
   * loyaltyRuleId, ruleSnapshot and loyaltyTransactionId, all in one transaction.
   */
  async claim(organizationId: string, membershipId: string, body: ClaimBody): Promise<LoyaltyReward> {
    return this.db.transaction().execute(async (trx) => {
      // Locked for update up front: the ledger is about to change this row, so no shared lock needs upgrading.
      const member = await loadMember(trx, organizationId, membershipId, 'update');
      if (!member) throw notFound('The loyalty membership');
      if (member.membership.left_at)
        throw conflict('The member has left the loyalty program; rejoin before claiming rewards.');
      const rule = await findRule(trx, organizationId, body.loyaltyRuleId);
      const refuse = (message: string) =>
        unprocessable(`Invalid request: body.loyaltyRuleId ${message}.`, [{ path: 'body.loyaltyRuleId', message }]);
      if (!rule || rule.deleted_at) throw refuse('names no loyalty rule of this organization');
      if (rule.section !== 'rewards')
        throw refuse(`names a rule of the ${rule.section} section; only rules of the rewards section can be claimed`);
      if (rule.loyalty_program_id !== member.membership.loyalty_program_id)
        throw refuse("names a rule of another program than the member's");
      if (!rule.is_active)
        throw conflict(`The rule "${rule.name}" is inactive; it cannot be claimed until it is active again.`);
      const { pointsCost, reward } = rule.config as { pointsCost: number; reward: CouponReward };

      const rewardId = uuidv7();
      const spent = await applyPoints(trx, {
        organizationId,
        membershipId,
        points: -pointsCost,
        kind: 'spent',
        reason: `Claimed reward "${rule.name}"`,
        source: { ruleId: rule.id, rewardId },
      });
      if (!spent) throw new Error('applyPoints: an unkeyed debit is never a repeat');
      const issued = await issueReward(
        trx,
        organizationId,
        {
          id: rewardId,
          loyaltyMembershipId: membershipId,
          reward,
          loyaltyRuleId: rule.id,
          ruleSnapshot: { id: rule.id, name: rule.name, section: rule.section, config: rule.config },
          loyaltyTransactionId: spent.transaction.id,
        },
        {
          member: { ...member, membership: spent.membership },
          rule: { id: rule.id, name: rule.name, section: rule.section },
        },
      );
      await recordEvents(trx, [...spent.events, ...issued.events]);
      return issued.reward;
    });
  }

  /**
   * Pending → redeemed by the code shown at checkout, optionally naming the order it was used on
   * (docs/api.md#redeeming-and-revoking-rewards).
   */
  async redeem(organizationId: string, body: RedeemBody): Promise<LoyaltyReward> {
    const code = normalizeCode(body.code);
    return this.settle(async (trx) => {
      const row = await lockReward(trx, organizationId, { code });
      if (!row) throw notFound('The loyalty reward with this code');
      if (body.orderId !== undefined && !(await orderExists(trx, organizationId, body.orderId))) {
        throw unprocessable('Invalid request: body.orderId names no order of this organization.', [
          { path: 'body.orderId', message: 'does not exist in this organization' },
        ]);
      }
      return moveReward(trx, organizationId, row, 'redeemed', { orderId: body.orderId });
    }, 'redeemed');
  }

  /** Pending → revoked; the reason goes on the member's activity entry (docs/api.md#redeeming-and-revoking-rewards). */
  async revoke(organizationId: string, id: string, body: RevokeBody | undefined): Promise<LoyaltyReward> {
    return this.settle(async (trx) => {
      const row = await lockReward(trx, organizationId, { id });
      if (!row) throw notFound('The loyalty reward');
      return moveReward(trx, organizationId, row, 'revoked', { reason: body?.reason });
    }, 'revoked');
  }

  /** Runs a transition; a reward found lapsed is expired and committed before the 409 is answered. */
  private async settle(work: (trx: Transaction<DB>) => Promise<Outcome>, action: string): Promise<LoyaltyReward> {
    const outcome = await this.db.transaction().execute(work);
    if (outcome.lapsed) throw lapsedConflict(outcome.reward, action);
    return outcome.reward;
  }
}

function checkFuture(at: Date | undefined, path: string, now: Date): void {
  if (at && at.getTime() <= now.getTime()) {
    throw validationError(`Invalid request: ${path} must be in the future (the reward would be born expired).`, [
      { path, message: 'must be in the future' },
    ]);
  }
}
