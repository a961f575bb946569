import { sql, type Transaction } from 'kysely';
import { plainArrayLiteral } from '../../../../db/arrays.js';
import { PREPARE } from '../../../../db/prepared.js';
import type { DB } from '../../../../db/schema.js';
import type { EventToRecord } from '../../../../core/event-to-record.js';
import { attributeReferrals } from '../referrals.js';
import { issueRuleRewards } from './rule-rewards.js';
import { earningConfig, inWindow, multiplied, multiplierAt, orderPoints, type EarningConfig } from './rules.js';
import { stampCards, type StampRequest } from '../stamp-cards.js';
import type { CouponReward } from '../../../../records/loyalty/reward-object.js';
import { creditPoints, type Credit } from '../ledger.js';

/** What earning reads of a member (they are locked, so nothing else of them changes meanwhile). */
type EarningMember = { id: string; customer_id: string; loyalty_program_id: string };

/** The columns of a newly created order that earning reads. */
export interface EarningOrder {
  id: string;
  customer_id: string;
  number: string;
  total_cents: number;
  cancelled_at: Date | null;
  created_at: Date;
}

/**
 * Newly created orders earn (order import with earnLoyalty true), inside the import's transaction, with a fixed
 * number of statements however many orders: each active membership of the order's customer gets its program's
 * orderSpend points (× the best multiplier offer running when the order was placed), stamps on its stamp cards,
 * the reward of each reward offer whose window holds one of its orders (once per member and offer), and a pending
 * referral of the customer is attributed to their first order. Credits are keyed `order:<id>:rule:<id>` (and
 * `offer:<id>` for a points offer) on the ledger's unique source key, so nothing is credited twice. Cancelled orders
 * earn nothing. Returns the events for the caller to record with its own.
 */
export async function earnFromOrders(
  trx: Transaction<DB>,
  organizationId: string,
  orders: readonly EarningOrder[],
): Promise<EventToRecord[]> {
  const earning = orders.filter((order) => order.cancelled_at === null);
  if (earning.length === 0) return [];
  const customers = [...new Set(earning.map((order) => order.customer_id))];
  const { rows: members } = await sql<EarningMember>`${PREPARE}
    select id, customer_id, loyalty_program_id from loyalty_memberships
    where organization_id = ${organizationId}::uuid and customer_id = any(${plainArrayLiteral(customers)}::uuid[]) and left_at is null
    order by id for update`.execute(trx);
  if (members.length === 0) return [];

  const configs = new Map<string, EarningConfig>();
  for (const programId of new Set(members.map((member) => member.loyalty_program_id))) {
    configs.set(programId, await earningConfig(trx, organizationId, programId));
  }
  const membersOf = new Map<string, EarningMember[]>();
  for (const member of members)
    membersOf.set(member.customer_id, [...(membersOf.get(member.customer_id) ?? []), member]);

  const credits: Credit[] = [];
  const stamps: StampRequest[] = [];
  const offerRewards = new Map<string, { member: EarningMember; offer: EarningConfig['rewardOffers'][number] }>();
  const firstOrders = new Map<string, string>();
  for (const order of [...earning].sort((a, b) => a.created_at.getTime() - b.created_at.getTime())) {
    if (!firstOrders.has(order.customer_id)) firstOrders.set(order.customer_id, order.id);
    for (const member of membersOf.get(order.customer_id) ?? []) {
      const config = configs.get(member.loyalty_program_id)!;
      const hundredths = multiplierAt(config, order.created_at);
      for (const rule of config.orderSpend) {
        const points = orderPoints(rule.config, order.total_cents);
        if (points > 0) {
          credits.push({
            membershipId: member.id,
            points: multiplied(points, hundredths),
            reason: `Order ${order.number}`,
            key: `order:${order.id}:rule:${rule.id}`,
            keyIsNew: true,
            ruleId: rule.id,
            orderId: order.id,
          });
        }
      }
      for (const rule of config.stampCards) {
        const minimum = rule.config.minimumOrderTotalCents;
        if (rule.config.stampsPerOrder > 0 && (minimum === null || order.total_cents >= minimum)) {
          stamps.push({ membershipId: member.id, rule, stamps: rule.config.stampsPerOrder });
        }
      }
      for (const offer of config.rewardOffers) {
        if (inWindow(offer.config, order.created_at)) offerRewards.set(`${member.id}/${offer.id}`, { member, offer });
      }
    }
  }

  const offers = offerCredits(trx, organizationId, [...offerRewards.values()]);
  // The four writers work on members this transaction has locked, and their statements go to its one connection,
  // which runs them one at a time in the order they are sent; each reads what the earlier ones wrote (a full card's
  // points are credited on top of the order credits, whose statement is always sent first). Awaiting them together
  // lets Node build one writer's rows and events while the database runs another's statement.
  const [credited, stamped, offerEvents, referralEvents] = await Promise.all([
    creditPoints(trx, organizationId, [...credits, ...offers.credits]),
    stampCards(trx, organizationId, stamps),
    offers.issue(),
    attributeReferrals(trx, organizationId, firstOrders),
  ]);
  return [...credited.events, ...stamped.events, ...offerEvents, ...referralEvents];
}

/**
 * Reward offers: a points reward becomes a credit keyed `offer:<id>` (once per member by the ledger's key); any
 * other reward is issued unless the member already holds one from the offer.
 */
function offerCredits(
  trx: Transaction<DB>,
  organizationId: string,
  wins: readonly { member: EarningMember; offer: EarningConfig['rewardOffers'][number] }[],
) {
  const credits: Credit[] = [];
  const coupons: { member: EarningMember; offer: EarningConfig['rewardOffers'][number]; reward: CouponReward }[] = [];
  for (const win of wins) {
    const reward = win.offer.config.reward;
    if (reward.type === 'points') {
      credits.push({
        membershipId: win.member.id,
        points: reward.amount,
        reason: `Offer "${win.offer.name}"`,
        key: `offer:${win.offer.id}`,
        ruleId: win.offer.id,
      });
    } else {
      coupons.push({ ...win, reward });
    }
  }
  const issue = async (): Promise<EventToRecord[]> => {
    if (coupons.length === 0) return [];
    const { rows: held } = await sql<{ loyalty_membership_id: string; loyalty_rule_id: string }>`
      select loyalty_membership_id, loyalty_rule_id from loyalty_rewards
      where organization_id = ${organizationId}::uuid and loyalty_rule_id = any(${[...new Set(coupons.map((win) => win.offer.id))]}::uuid[])
        and loyalty_membership_id = any(${[...new Set(coupons.map((win) => win.member.id))]}::uuid[])`.execute(trx);
    const holds = new Set(held.map((row) => `${row.loyalty_membership_id}/${row.loyalty_rule_id}`));
    const fresh = coupons.filter(({ member, offer }) => !holds.has(`${member.id}/${offer.id}`));
    const issued = await issueRuleRewards(
      trx,
      organizationId,
      fresh.map(({ member, offer, reward }) => ({
        membershipId: member.id,
        rule: offer,
        reward,
        reason: `Offer "${offer.name}"`,
      })),
      new Date(),
    );
    const events: EventToRecord[] = issued.flatMap((reward) => reward?.events ?? []);
    return events;
  };
  return { credits, issue };
}
